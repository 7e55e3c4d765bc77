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

/**
 * The facts of one session the controls judge with: validation judges against the route's
 * surface (a name off it gets the unknown-tool bytes before any schema is read) and reports
 * every refusal with the route's name and the credential (json-budget's `RefusalEvent`: the
 * code and the step, never caller bytes). The audit line is `call_refused` with `layer`,
 * `code`, `control`, `route` and `credential`; per session, repeats of one kind within
 * {@link CALL_REFUSAL_WINDOW_MS} are one line at once and one closing line with `repeated`, so a
 * burst costs two lines, not one per request.
 */
export function sessionCall(session: {
  readonly route: Route
  readonly credentialId: string
  readonly audit: Audit
}): ValidationCall {
  const where = { route: session.route.name, credential: session.credentialId }
  const window = createRepeatWindow<RefusalEvent>(
    (r) => {
      const fields = { layer: 'input_validation', code: r.event.code, control: r.event.control }
      session.audit(
        'call_refused',
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
    principal: session.credentialId,
    onRefusal: (e) => window.note(`${e.code}\u0000${e.control}`, e),
  }
}
