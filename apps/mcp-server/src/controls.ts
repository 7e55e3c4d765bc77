import { resultBudget } from '@tollgate/mcp-transport'
import { type SchemaRegistry, withInputValidation } from '@tollgate/mcp-validation'
import type { Audit } from './audit.js'
import type { Route } from './surfaces.js'

/** The message-level controls every server's transport is wrapped in. */
export interface ControlOptions {
  /** The published input schemas of `schemas/mcp/`; `undefined` lifts input validation (test-only). */
  readonly registry: SchemaRegistry | undefined
  /** One tool result's JSON budget in bytes (text and structured content together). */
  readonly maxResultBytes: number
}

/** A transport as both SDK lines and the controls see it (structurally). */
type AnyTransport = Parameters<typeof resultBudget>[0]

/**
 * Wraps a transport in the MCP message controls, in one order, from the wire to the server:
 * the transport, then input validation (every inbound message reaches it first, so it judges
 * the raw `tools/call` arguments before the SDK parses them, and its refusals go straight back
 * to the wire, bounded by construction), then the result budget (next to the server, so it
 * charges every result the server sends). The same order for a 2025 session's transport, a
 * 2026-07-28 request's and stdio's.
 */
export function applyControls(
  transport: AnyTransport,
  options: ControlOptions,
  // The route and credential: validation judges against the route's surface (a name off it
  // gets the unknown-tool bytes before any schema is read) and audits every refusal.
  session: {
    readonly route: Route
    readonly credentialId: string
    readonly audit: Audit
  },
): AnyTransport {
  let wrapped: AnyTransport = transport
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
