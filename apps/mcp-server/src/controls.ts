import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { resultBudget } from '@tollgate/mcp-transport'
import { type SchemaRegistry, withInputValidation } from '@tollgate/mcp-validation'

/** The message-level controls every session's transport is wrapped in. */
export interface ControlOptions {
  /** The published input schemas of `schemas/mcp/`; `undefined` lifts input validation (test-only). */
  readonly registry: SchemaRegistry | undefined
  /** One tool result's JSON budget in bytes (text and structured content together). */
  readonly maxResultBytes: number
}

/**
 * Wraps a session's transport in the MCP message controls. Outermost first: the result budget
 * (charges everything the server sends), then input validation (judges the raw `tools/call`
 * arguments before the SDK's zod parsing can drop unknown keys).
 */
export function applyControls(
  transport: Transport,
  options: ControlOptions,
  // The session's route and credential: validation judges against the route's surface (a name
  // off it gets the unknown-tool bytes before any schema is read) and audits every refusal.
  session: {
    readonly route: import('./surfaces.js').Route
    readonly credentialId: string
    readonly audit: import('./audit.js').Audit
  },
): Transport {
  // Inner first: validation sits next to the server; the budget sees every outgoing result,
  // the validation refusals included.
  let wrapped: Transport = transport
  if (options.registry !== undefined) {
    const where = { route: session.route.name, credential: session.credentialId }
    wrapped = withInputValidation(wrapped, options.registry, {
      surface: session.route.view.names,
      // The event holds no caller bytes (a name off the surface is reported by its length).
      onRefusal: (e) =>
        session.audit('call_refused', { layer: 'input_validation', ...e, ...where }),
    })
  }
  return resultBudget(wrapped, { maxResultBytes: options.maxResultBytes })
}
