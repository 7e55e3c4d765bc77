import type { CallContext } from './call-context.js'
import {
  forwardParams,
  META_CLIENT_CAPABILITIES,
  META_LOG_LEVEL,
  metaOf,
  objectOrEmpty,
} from './forward-params.js'
import type { RpcNotification, RpcReply } from './rpc-session.js'
import type { ServerRequestRelay } from './server-requests.js'
import type { Upstream, UpstreamCall } from './upstream.js'

/** The reason a call's relay signal is aborted with when it ends (no `DOMException` per call). */
const CALL_ENDED = 'the call ended'

/**
 * Forwards callers' requests to the one upstream with each caller's per-request facts, and
 * routes the upstream's notifications about a request back to the caller that sent it. A
 * progress token the caller sent is replaced by one of the gateway's (callers' tokens could
 * collide on one upstream stream) and the upstream's progress under it is relayed back under
 * the caller's token. The upstream's requests to its client while a call is in flight go to
 * the {@link ServerRequestRelay} with that call's caller.
 */
export class UpstreamForwarder {
  readonly #upstream: Upstream
  readonly #relay: ServerRequestRelay
  /** The progress tokens the gateway sent upstream, to the caller's token and sink. */
  readonly #progress = new Map<string, { token: unknown; notify: (n: RpcNotification) => void }>()
  #nextToken = 1

  constructor(upstream: Upstream, relay: ServerRequestRelay) {
    this.#upstream = upstream
    this.#relay = relay
  }

  /**
   * Relays an upstream notification that names a progress token the gateway sent (a stdio
   * child's progress arrives on its one stream) to the caller that asked; others are ignored.
   */
  relay(notification: RpcNotification): void {
    if (notification.method !== 'notifications/progress') return
    const token = (notification.params as { progressToken?: unknown } | null)?.progressToken
    const sink = typeof token === 'string' ? this.#progress.get(token) : undefined
    if (sink === undefined) return
    sink.notify({
      method: notification.method,
      params: { ...(notification.params as object), progressToken: sink.token },
    })
  }

  /** Forwards one request with the caller's per-request facts; never rejects. */
  async forward(
    method: string,
    params: Readonly<Record<string, unknown>> | undefined,
    context: CallContext,
  ): Promise<RpcReply> {
    const forwarded = forwardParams(params, context)
    const meta = metaOf(params)
    const callerToken = meta?.progressToken
    let token: string | undefined
    const notify = context.notify
    if (
      notify !== undefined &&
      (typeof callerToken === 'string' || typeof callerToken === 'number')
    ) {
      token = `tollgate-${this.#nextToken++}`
      this.#progress.set(token, { token: callerToken, notify })
      forwarded._meta = { ...(forwarded._meta as object | undefined), progressToken: token }
    }
    // The signal of a relayed request's wait, made only when the upstream asks one (most calls
    // ask nothing): aborted when the call ends or its caller goes.
    let ended: AbortController | undefined
    let over = false
    const end = (): void => ended?.abort(CALL_ENDED)
    const endedSignal = (): AbortSignal => {
      if (ended === undefined) {
        ended = new AbortController()
        if (over || context.signal?.aborted === true) ended.abort(CALL_ENDED)
        else context.signal?.addEventListener('abort', end, { once: true })
      }
      return ended.signal
    }
    const call: UpstreamCall = {
      clientCapabilities:
        context.era === '2026' ? objectOrEmpty(meta?.[META_CLIENT_CAPABILITIES]) : {},
      // A 2026-07-28 caller names its level per request; a session-era caller's is the one it
      // set, or every message (the session era's default) when it set none.
      logLevel:
        context.era === '2026'
          ? typeof meta?.[META_LOG_LEVEL] === 'string'
            ? (meta[META_LOG_LEVEL] as string)
            : undefined
          : (context.session?.logLevel ?? 'debug'),
      onNotification:
        notify === undefined
          ? undefined
          : (n) => {
              if (n.method === 'notifications/progress') this.relay(n)
              else if (n.method === 'notifications/message' || method === 'subscriptions/listen')
                notify(n)
            },
      signal: context.signal,
      // A relayed request still waiting when the call ends (or its caller goes) is refused to
      // the upstream then, not held until its timeout against the caller's cap.
      onRequest: (request) => this.#relay.ask(request, { ...context, signal: endedSignal() }),
      caller: context.session ?? context,
    }
    try {
      return await this.#upstream.request(method, forwarded, false, call)
    } finally {
      over = true
      if (ended !== undefined) {
        end()
        context.signal?.removeEventListener('abort', end)
      }
      if (token !== undefined) this.#progress.delete(token)
    }
  }
}
