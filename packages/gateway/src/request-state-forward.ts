// Where the request-state control sits on the forwarding path: the caller's `requestState` is
// opened before anything is sent upstream (a refusal never reaches it), and the upstream's is
// sealed before the answer goes back (it never leaves unsealed).
import type { CallContext } from './call-context.js'
import { gatewayRpcError } from './gateway-errors.js'
import type { RequestStateCall, RequestStateSeal } from './request-state.js'
import type { RpcReply } from './rpc-session.js'

/** The principal and route a request's state is bound to (stdio: one client, `stdio`). */
export function requestStateCall(context: CallContext): RequestStateCall {
  return {
    principal: context.principal?.key ?? 'stdio',
    route: context.route?.path ?? 'stdio',
  }
}

/** What a refusal is reported with: the code, and fields for the audit line. */
export type StateRefusalReport = (
  code: string,
  fields: Record<string, string | number | undefined>,
) => void

/**
 * Forwards one request through `forward` with its `requestState` opened by `seal` and the
 * result's `requestState` sealed. A refused state is answered as an error reply (the code in
 * `data.code`, the limit when there is one) and `forward` is not called. Never rejects unless
 * `forward` does.
 */
export async function forwardWithRequestState(
  seal: RequestStateSeal,
  forward: (params: Readonly<Record<string, unknown>> | undefined) => Promise<RpcReply>,
  method: string,
  params: Readonly<Record<string, unknown>> | undefined,
  context: CallContext,
  report: StateRefusalReport,
): Promise<RpcReply> {
  const call = requestStateCall(context)
  const opened = await seal.open(method, params, call)
  if (!opened.ok) {
    report(opened.code, { reason: opened.reason, keyId: opened.keyId, method })
    return { ok: false, error: gatewayRpcError(opened.code, opened.limit) }
  }
  const reply = await forward(opened.params)
  if (!reply.ok) return reply
  const sealed = seal.seal(method, reply.result, params, call)
  if (!sealed.ok) {
    report(sealed.code, { reason: 'upstream_state', method })
    return { ok: false, error: gatewayRpcError(sealed.code, sealed.limit) }
  }
  return { ok: true, result: sealed.result }
}
