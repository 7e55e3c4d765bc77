import { ANONYMOUS_POOL, refusalPrincipal } from '@tollgate/http-admission'
import { createRepeatWindow, type RefusalEvent } from '@tollgate/json-budget'
import { createResultBudget } from '@tollgate/mcp-transport'
import {
  inputValidation,
  type McpMessageControls,
  mcpMessageControls,
  type SchemaRegistry,
  type ValidationCall,
} from '@tollgate/mcp-validation'
import type { Audit } from './audit.js'
import type { Route } from './surfaces.js'

/** What the message controls are built from, once, at start-up. */
export interface ControlOptions {
  /** The published input schemas of `schemas/mcp/`; `undefined` lifts input validation (test-only). */
  readonly registry: SchemaRegistry | undefined
  /** One tool result's JSON budget in bytes (text and structured content together). */
  readonly maxResultBytes: number
}

/**
 * The MCP message controls every server's transport is wrapped in, built once and held by the
 * hosts. `mcpMessageControls` fixes their order (transport → input validation → result budget
 * → server) for a 2025 session's transport, a 2026-07-28 request's and stdio's alike.
 */
export type MessageControls = McpMessageControls

/**
 * Builds the message controls once.
 * @throws TypeError on a bad registry or a bad `maxResultBytes`, at start-up.
 */
export function messageControls(options: ControlOptions): MessageControls {
  return mcpMessageControls({
    // Strict: a tool registered without a published schema refuses the connection (and so the
    // start) rather than a warning; the one exception is the test-only probe, exempted by name
    // where the server connects (build-server.ts), and registered only under its --unsafe flag.
    validation:
      options.registry === undefined
        ? undefined
        : inputValidation(options.registry, { unpublishedTools: 'error' }),
    resultBudget: createResultBudget({ maxResultBytes: options.maxResultBytes }),
  })
}

/** Window in which one session's repeats of a validation refusal are counted, not written. */
export const CALL_REFUSAL_WINDOW_MS = 10_000

/** The `control` of the result budget's events (`@tollgate/mcp-transport`). */
const RESULT_BUDGET_CONTROL = 'mcp-result-budget'

/**
 * The facts of one session the controls judge with: validation judges against the route's
 * surface (a name off it gets the unknown-tool bytes before any schema is read), and both it
 * and the result budget report every refusal with the route's name and the session's principal
 * key (json-budget's `RefusalEvent`: the code and the step, never caller bytes or result
 * bytes). The principal key is the credential's id, or for an anonymous session its pool and a
 * keyed hash of its caller key (`anonymous#…`, as the HTTP steps report it), never an address.
 * A refused call's audit line is `call_refused` with `layer` `'input_validation'`, `code`,
 * `control`, `route` and `credential`; a replaced result's is `result_refused` with `layer`
 * `'result_budget'`, the same fields and `limit`. Per session, repeats of one kind within
 * {@link CALL_REFUSAL_WINDOW_MS} are one line at once and one closing line with `repeated`, so a
 * burst costs two lines, not one per request.
 */
export function sessionCall(session: {
  readonly route: Route
  readonly credentialId: string
  /** An anonymous session's caller key (`SessionContext.quotaKey`); absent for a credential. */
  readonly quotaKey?: string | undefined
  readonly audit: Audit
}): ValidationCall {
  const where = { route: session.route.name, credential: session.credentialId }
  const window = createRepeatWindow<RefusalEvent>(
    (r) => {
      const { code, control, limit } = r.event
      const result = control === RESULT_BUDGET_CONTROL
      const fields = result
        ? { layer: 'result_budget', code, control, limit }
        : { layer: 'input_validation', code, control }
      session.audit(
        result ? 'result_refused' : 'call_refused',
        r.repeated === undefined
          ? { ...fields, ...where }
          : { ...fields, ...where, repeated: r.repeated },
      )
    },
    { windowMs: CALL_REFUSAL_WINDOW_MS },
  )
  return {
    surface: session.route.view.names,
    route: session.route.name,
    principal:
      session.quotaKey === undefined
        ? session.credentialId
        : refusalPrincipal(session.quotaKey, ANONYMOUS_POOL),
    onRefusal: (e) => window.note(`${e.code}\u0000${e.control}`, e),
  }
}
