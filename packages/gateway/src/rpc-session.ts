import type { JsonRpcMessage, McpTransport } from '@tollgate/mcp-transport'
import { type GatewayCode, type GatewayRpcError, gatewayRpcError } from './gateway-errors.js'
import type { ServerRequest } from './upstream.js'

/** An upstream's answer to one request: its result, or a JSON-RPC error (its own or the gateway's). */
export type RpcReply =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly error: RpcErrorObject }

/** A JSON-RPC error object as the upstream sent it (re-built from its fields), or the gateway's. */
export type RpcErrorObject =
  | GatewayRpcError
  | { readonly code: number; readonly message: string; readonly data?: unknown }

/** A notification from the upstream. */
export interface RpcNotification {
  readonly method: string
  readonly params: unknown
}

interface Pending {
  readonly resolve: (reply: RpcReply) => void
  readonly timer: NodeJS.Timeout
}

/**
 * The gateway's JSON-RPC client side of one upstream connection, over any transport (the bounded
 * stdio transport on a child's pipes): the gateway's own request ids (callers' ids never reach
 * the upstream, so two callers cannot collide or answer each other's calls), a cap on requests in
 * flight, a deadline per request, and {@link RpcSession.failAll} to answer every pending request
 * with one bounded error when the connection dies. Requests from the upstream to its client
 * (sampling, elicitation, roots) go to {@link RpcSession.onrequest}, whose reply is sent back
 * under the upstream's id; without it they are answered `-32601`. `ping` is answered here.
 */
export class RpcSession {
  readonly #transport: McpTransport
  readonly #pending = new Map<number, Pending>()
  readonly #maxInFlight: number
  readonly #timeoutMs: number
  #nextId = 1
  #closed: GatewayCode | undefined
  onnotification: ((notification: RpcNotification) => void) | undefined
  onclose: (() => void) | undefined
  /** Answers a request from the upstream (never rejects); unset, every one is `-32601`. */
  onrequest: ((request: ServerRequest) => Promise<RpcReply>) | undefined

  constructor(transport: McpTransport, options: { maxInFlight: number; timeoutMs: number }) {
    this.#transport = transport
    this.#maxInFlight = options.maxInFlight
    this.#timeoutMs = options.timeoutMs
    transport.onmessage = (message) => this.#receive(message)
    transport.onclose = () => {
      this.failAll('ERR_UPSTREAM_EXITED')
      this.onclose?.()
    }
  }

  /** Starts the transport. */
  start(): Promise<void> {
    return this.#transport.start()
  }

  /** Requests in flight. */
  get inFlight(): number {
    return this.#pending.size
  }

  /**
   * Sends one request with a fresh id and resolves with the reply; never rejects. Refused with
   * `ERR_UPSTREAM_BUSY` past the in-flight cap (unless `reserved`, for the gateway's own
   * requests), `ERR_UPSTREAM_TIMEOUT` past the deadline (`timeoutMs`, the session's by default;
   * a `notifications/cancelled` is sent). `signal` abandons the request: a
   * `notifications/cancelled` is sent and it resolves `ERR_RELAY_TIMEOUT` (its caller went away
   * or let a parked call expire).
   */
  request(
    method: string,
    params: unknown,
    reserved = false,
    timeoutMs = this.#timeoutMs,
    signal?: AbortSignal,
  ): Promise<RpcReply> {
    if (this.#closed !== undefined) return Promise.resolve(failure(this.#closed))
    if (!reserved && this.#pending.size >= this.#maxInFlight) {
      return Promise.resolve(failure('ERR_UPSTREAM_BUSY', this.#maxInFlight))
    }
    if (signal?.aborted === true) return Promise.resolve(failure('ERR_RELAY_TIMEOUT'))
    const id = this.#nextId++
    return new Promise<RpcReply>((resolve) => {
      const abandon = (reason: string, reply: RpcReply): void => {
        const pending = this.#pending.get(id)
        if (pending === undefined) return
        this.#pending.delete(id)
        clearTimeout(pending.timer)
        signal?.removeEventListener('abort', abandoned)
        this.notify('notifications/cancelled', { requestId: id, reason })
        resolve(reply)
      }
      const abandoned = (): void => abandon('cancelled', failure('ERR_RELAY_TIMEOUT'))
      const timer = setTimeout(
        () => abandon('timeout', failure('ERR_UPSTREAM_TIMEOUT', timeoutMs)),
        timeoutMs,
      )
      signal?.addEventListener('abort', abandoned, { once: true })
      this.#pending.set(id, {
        resolve: (reply) => {
          signal?.removeEventListener('abort', abandoned)
          resolve(reply)
        },
        timer,
      })
      const message: Record<string, unknown> = { jsonrpc: '2.0', id, method }
      if (params !== undefined) message.params = params
      this.#transport
        .send(message as JsonRpcMessage)
        .catch(() => this.#settle(id, failure('ERR_UPSTREAM_EXITED')))
    })
  }

  /** Sends a notification (nothing comes back). */
  notify(method: string, params?: unknown): void {
    if (this.#closed !== undefined) return
    const message: Record<string, unknown> = { jsonrpc: '2.0', method }
    if (params !== undefined) message.params = params
    this.#transport.send(message as JsonRpcMessage).catch(() => {})
  }

  /** Answers every pending request with `code` and refuses every later one with it. */
  failAll(code: GatewayCode): void {
    if (this.#closed === undefined) this.#closed = code
    for (const id of [...this.#pending.keys()]) this.#settle(id, failure(code))
  }

  /** Closes the transport after failing what is pending. */
  async close(code: GatewayCode = 'ERR_UPSTREAM_EXITED'): Promise<void> {
    this.failAll(code)
    await this.#transport.close().catch(() => {})
  }

  #settle(id: number, reply: RpcReply): void {
    const pending = this.#pending.get(id)
    if (pending === undefined) return
    this.#pending.delete(id)
    clearTimeout(pending.timer)
    pending.resolve(reply)
  }

  #receive(message: JsonRpcMessage): void {
    const m = message as {
      id?: unknown
      method?: unknown
      params?: unknown
      result?: unknown
      error?: unknown
    }
    if (typeof m.method === 'string') {
      if (m.id === undefined) {
        this.onnotification?.({ method: m.method, params: m.params })
        return
      }
      if (typeof m.id !== 'string' && typeof m.id !== 'number') return
      const id = m.id
      const answered =
        m.method === 'ping'
          ? Promise.resolve<RpcReply>({ ok: true, result: {} })
          : (this.onrequest?.({ method: m.method, params: m.params }) ??
            Promise.resolve<RpcReply>({
              ok: false,
              error: { code: -32601, message: 'Method not found' },
            }))
      void answered.then((reply) => {
        if (this.#closed !== undefined) return
        const message: Record<string, unknown> = { jsonrpc: '2.0', id }
        if (reply.ok) message.result = reply.result
        else message.error = reply.error
        this.#transport.send(message as JsonRpcMessage).catch(() => {})
      })
      return
    }
    if (typeof m.id !== 'number') return
    if (m.error !== undefined) this.#settle(m.id, { ok: false, error: upstreamError(m.error) })
    else if (m.result !== undefined && m.result !== null && typeof m.result === 'object') {
      this.#settle(m.id, { ok: true, result: m.result })
    } else this.#settle(m.id, failure('ERR_UPSTREAM_INVALID'))
  }
}

function failure(code: GatewayCode, limit?: number): RpcReply {
  return { ok: false, error: gatewayRpcError(code, limit) }
}

/**
 * The upstream's error rebuilt from its `code`, `message` and `data` only (a malformed one
 * becomes `ERR_UPSTREAM_INVALID`), so no other field it added is passed on.
 */
function upstreamError(error: unknown): RpcErrorObject {
  const e = error as { code?: unknown; message?: unknown; data?: unknown }
  if (
    error === null ||
    typeof error !== 'object' ||
    !Number.isSafeInteger(e.code) ||
    typeof e.message !== 'string'
  ) {
    return gatewayRpcError('ERR_UPSTREAM_INVALID')
  }
  return e.data === undefined
    ? { code: e.code as number, message: e.message }
    : { code: e.code as number, message: e.message, data: e.data }
}
