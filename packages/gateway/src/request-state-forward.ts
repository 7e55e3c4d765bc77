// Where the request-state control sits on the forwarding path: the caller's `requestState` is
// opened before anything is sent upstream (a refusal never reaches it), and the upstream's is
// sealed before the answer goes back (it never leaves unsealed). With the input bridge, a
// 2026-07-28 caller's request whose 2025-era upstream asks its client is answered
// `input_required` with a sealed handle naming the parked call, and a retry carrying that
// handle resumes the call instead of sending anything new upstream.
import type { CallContext } from './call-context.js'
import { META_CLIENT_CAPABILITIES, metaOf, objectOrEmpty } from './forward-params.js'
import { gatewayRpcError } from './gateway-errors.js'
import type { BridgeOutcome, InputBridge } from './input-bridge.js'
import {
  REQUEST_STATE_METHODS,
  type RequestStateCall,
  type RequestStateSeal,
} from './request-state.js'
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

/** Sends the request upstream; `overrides` replace the caller's signal and add a collector. */
export type ForwardOnce = (
  params: Readonly<Record<string, unknown>> | undefined,
  overrides?: Pick<CallContext, 'signal' | 'collect'>,
) => Promise<RpcReply>

/**
 * Forwards one request through `forward` with its `requestState` opened by `seal` and the
 * result's `requestState` sealed. A refused state is answered as an error reply (the code in
 * `data.code`, the limit when there is one) and `forward` is not called. With `bridge`, a
 * 2026-07-28 request runs as a bridged call (its upstream's requests come back as an
 * `input_required` result whose `requestState` names the parked call), and a state naming a
 * parked call resumes it with the caller's `inputResponses` (`ERR_REQUEST_STATE_CALL_GONE`
 * when this instance no longer holds it). Never rejects unless `forward` does.
 */
export async function forwardWithRequestState(
  seal: RequestStateSeal,
  forward: ForwardOnce,
  method: string,
  params: Readonly<Record<string, unknown>> | undefined,
  context: CallContext,
  report: StateRefusalReport,
  bridge?: InputBridge | undefined,
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
  let outcome: BridgeOutcome
  if (opened.parked !== undefined) {
    outcome =
      bridge === undefined
        ? { kind: 'gone' }
        : await bridge.resume(opened.parked, call.principal, params?.inputResponses, context.signal)
  } else if (bridge !== undefined && context.era === '2026' && REQUEST_STATE_METHODS.has(method)) {
    const capabilities = objectOrEmpty(metaOf(params)?.[META_CLIENT_CAPABILITIES])
    outcome = await bridge.start(
      capabilities,
      (signal, collect) => forward(opened.params, { signal, collect }),
      call.principal,
      context.signal,
    )
  } else outcome = { kind: 'reply', reply: await forward(opened.params) }
  if (outcome.kind === 'gone') {
    report(refusal('ERR_REQUEST_STATE_CALL_GONE', 'parked_call_gone'))
    return { ok: false, error: gatewayRpcError('ERR_REQUEST_STATE_CALL_GONE') }
  }
  if (outcome.kind === 'input') {
    const handle = seal.sealParked(method, outcome.id, params, call)
    if (!handle.ok) {
      bridge?.table.take(outcome.id, call.principal)?.cancel()
      report(refusal(handle.code, 'parked_state'))
      return { ok: false, error: gatewayRpcError(handle.code, handle.limit) }
    }
    return {
      ok: true,
      result: {
        resultType: 'input_required',
        inputRequests: outcome.requests,
        requestState: handle.result,
      },
    }
  }
  const reply = outcome.reply
  if (!reply.ok) return reply
  const sealed = seal.seal(method, reply.result, params, call)
  if (!sealed.ok) {
    report(refusal(sealed.code, 'upstream_state'))
    return { ok: false, error: gatewayRpcError(sealed.code, sealed.limit) }
  }
  return { ok: true, result: sealed.result }
}
