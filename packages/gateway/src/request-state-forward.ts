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

/** The fields of a refusal's audit line: code, reason, and who called what (no caller bytes). */
export interface StateRefusal {
  readonly [field: string]: string | undefined
  readonly code: string
  readonly reason: string
  readonly method: string
  /** The tool of a `tools/call` (already found on the caller's route). */
  readonly tool: string | undefined
}

/** Receives each refusal, for the audit line and the refusal metric. */
export type StateRefusalReport = (refusal: StateRefusal) => void

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
  const refusal = (code: string, reason: string, keyId?: string): StateRefusal => ({
    code,
    reason,
    keyId,
    method,
    tool: method === 'tools/call' ? (params?.name as string) : undefined,
    principal: context.principal?.key,
    route: context.route?.path,
  })
  const opened = await seal.open(method, params, call)
  if (!opened.ok) {
    report(refusal(opened.code, opened.reason, opened.keyId))
    return { ok: false, error: gatewayRpcError(opened.code, opened.limit) }
  }
  const reply = await forward(opened.params)
  if (!reply.ok) return reply
  const sealed = seal.seal(method, reply.result, params, call)
  if (!sealed.ok) {
    report(refusal(sealed.code, 'upstream_state'))
    return { ok: false, error: gatewayRpcError(sealed.code, sealed.limit) }
  }
  return { ok: true, result: sealed.result }
}
