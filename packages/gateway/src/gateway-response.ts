// The JSON-RPC responses the gateway sends back, shaped for the caller's era.
import type { CallContext } from './call-context.js'
import type { RpcErrorObject, RpcReply } from './rpc-session.js'
import type { ToolRefusal } from './tool-guard.js'

/** A JSON-RPC response the gateway sends back. */
export type GatewayResponse =
  | { readonly jsonrpc: '2.0'; readonly id: string | number | null; readonly result: unknown }
  | { readonly jsonrpc: '2.0'; readonly id: string | number | null; readonly error: RpcErrorObject }

/**
 * The result response to request `id`. Every 2026-07-28 result names its type: the upstream's
 * (`input_required` passes through with its `requestState`), or `complete` from a session-era
 * upstream, which sends none. A session-era caller gets no `resultType` of `complete`, which its
 * revision does not have.
 */
export function resultResponse(
  id: string | number,
  result: unknown,
  context: Pick<CallContext, 'era'>,
): GatewayResponse {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) {
    return { jsonrpc: '2.0', id, result }
  }
  const r = result as Record<string, unknown>
  if (context.era === '2026')
    return { jsonrpc: '2.0', id, result: { resultType: 'complete', ...r } }
  if (r.resultType !== 'complete') return { jsonrpc: '2.0', id, result }
  const { resultType: _dropped, ...rest } = r
  return { jsonrpc: '2.0', id, result: rest }
}

/** The error response to request `id`. */
export function errorResponse(id: string | number, error: RpcErrorObject): GatewayResponse {
  return { jsonrpc: '2.0', id, error }
}

/** The response to request `id` carrying an upstream's reply (its result or its error). */
export function replyResponse(
  id: string | number,
  reply: RpcReply,
  context: Pick<CallContext, 'era'>,
): GatewayResponse {
  return reply.ok ? resultResponse(id, reply.result, context) : errorResponse(id, reply.error)
}

/** The `isError` result of a tool call whose result was refused: `code` and `limit` only. */
export function refusedResult(code: string, limit: number): ToolRefusal['result'] {
  return {
    content: [{ type: 'text', text: `${code}: result refused (limit ${limit})` }],
    isError: true,
  }
}
