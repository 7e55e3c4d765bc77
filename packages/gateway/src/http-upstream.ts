import { isAdmissionError } from '@tollgate/json-budget'
import { type GatewayCode, gatewayRpcError } from './gateway-errors.js'
import type { GatewayLog } from './log.js'
import type { RpcReply } from './rpc-session.js'
import { readSseMessages } from './sse-reader.js'
import {
  GATEWAY_CLIENT_CAPABILITIES,
  GATEWAY_CLIENT_INFO,
  readHandshake,
  UPSTREAM_PROTOCOL_VERSION,
  type Upstream,
  type UpstreamCall,
  type UpstreamEvent,
  type UpstreamHandshake,
} from './upstream.js'
import { readJson, toReply } from './upstream-answer.js'
import { type UpstreamEra as Era, STATELESS, shapeRequest } from './upstream-request.js'

/** Options of {@link httpUpstream} (the CLI's names). */
export interface HttpUpstreamOptions {
  readonly url: string
  /** Largest answer read from the upstream, in bytes (`--max-line-bytes`). */
  readonly maxLineBytes: number
  readonly maxConcurrentCalls: number
  readonly callTimeoutMs: number
  readonly log: GatewayLog
}

const CONNECT_TIMEOUT_MS = 60_000
const RETRY_MS = 5000

/**
 * A Streamable HTTP upstream as an {@link Upstream}, either era, detected at start: a
 * `server/discover` that lists `2026-07-28` makes it stateless (every request carries the
 * version in `_meta` and the mirrored `MCP-Protocol-Version` / `Mcp-Method` headers);
 * otherwise the gateway runs `initialize` and keeps the upstream's `Mcp-Session-Id`. Answers
 * (JSON, or an event stream) are read under `maxLineBytes` and preflighted before parsing; an
 * answer past the cap is cut off and refused `ERR_UPSTREAM_LINE_TOO_LARGE`. The gateway holds
 * no GET stream, so the upstream's `list_changed` reaches it only inside a POST's stream.
 */
export function httpUpstream(options: HttpUpstreamOptions): Upstream {
  const { log } = options
  let listener: ((event: UpstreamEvent) => void) | undefined
  let era: Era | undefined
  let handshake: UpstreamHandshake | undefined
  let inFlight = 0
  let nextId = 1
  let stopped = false
  let retry: NodeJS.Timeout | undefined
  const controllers = new Set<AbortController>()

  async function exchange(
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMs: number,
    notification = false,
    call?: UpstreamCall,
  ): Promise<{ reply: RpcReply; headers?: Headers }> {
    const id = nextId++
    let body: Record<string, unknown> = { jsonrpc: '2.0', method }
    if (!notification) body.id = id
    const { headers, params: p } = shapeRequest(era, method, params, call)
    if (p !== undefined) body = { ...body, params: p }
    const controller = new AbortController()
    controllers.add(controller)
    const timer = setTimeout(() => controller.abort(), timeoutMs)
    const gone = (): void => {
      controller.abort()
      // A session-era upstream is told its call was abandoned, as a stdio child is.
      if (!notification && era?.kind === 'session') {
        void exchange(
          'notifications/cancelled',
          { requestId: id, reason: 'cancelled' },
          timeoutMs,
          true,
        )
      }
    }
    call?.signal?.addEventListener('abort', gone, { once: true })
    if (call?.signal?.aborted === true) controller.abort()
    try {
      const res = await fetch(options.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: controller.signal,
        redirect: 'error',
      })
      if (notification || res.status === 202) {
        await res.body?.cancel()
        return { reply: { ok: true, result: {} }, headers: res.headers }
      }
      if (res.status === 404 && era?.kind === 'session') {
        await res.body?.cancel()
        lost('session_expired')
        return { reply: fail('ERR_UPSTREAM_UNAVAILABLE') }
      }
      const type = res.headers.get('content-type') ?? ''
      let answer: unknown
      if (type.startsWith('text/event-stream')) {
        answer = await readSseMessages(
          res,
          options.maxLineBytes,
          id,
          (note) => {
            if (typeof note.method !== 'string') return
            const notification = { method: note.method, params: note.params }
            // Progress and log messages on this answer's stream are about this request, and so
            // is every frame of a `subscriptions/listen` stream (a list change there also
            // re-reads the gateway's catalog).
            const listen = method === 'subscriptions/listen'
            const about =
              listen ||
              note.method === 'notifications/progress' ||
              note.method === 'notifications/message'
            if (about && call?.onNotification !== undefined) call.onNotification(notification)
            if (!about || (listen && note.method.endsWith('/list_changed'))) {
              listener?.({ kind: 'notification', notification })
            }
          },
          (request) => {
            // A session-era upstream's request to its client on this call's stream is about
            // this call: the caller answers it (or the gateway refuses it), then the answer is
            // posted back.
            if (era?.kind !== 'session') return
            const asked = call?.onRequest?.({ method: request.method, params: request.params })
            void (asked ?? Promise.resolve(METHOD_NOT_FOUND)).then((reply) =>
              postAnswer(request.id, reply),
            )
          },
        )
      } else answer = await readJson(res, options.maxLineBytes)
      return { reply: toReply(answer, id), headers: res.headers }
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_UPSTREAM_LINE_TOO_LARGE') {
        return { reply: fail('ERR_UPSTREAM_LINE_TOO_LARGE', options.maxLineBytes) }
      }
      if (isAdmissionError(error)) return { reply: fail('ERR_UPSTREAM_INVALID') }
      if (controller.signal.aborted) {
        return {
          reply: stopped ? fail('ERR_GATEWAY_DRAINING') : fail('ERR_UPSTREAM_TIMEOUT', timeoutMs),
        }
      }
      return { reply: fail('ERR_UPSTREAM_EXITED') }
    } finally {
      clearTimeout(timer)
      call?.signal?.removeEventListener('abort', gone)
      controllers.delete(controller)
    }
  }

  /** Posts the gateway's answer to a request of a session-era upstream (202 expected). */
  async function postAnswer(id: string | number, reply: RpcReply): Promise<void> {
    if (era?.kind !== 'session' || stopped) return
    const { headers } = shapeRequest(era, '', undefined)
    const body = reply.ok
      ? { jsonrpc: '2.0', id, result: reply.result }
      : { jsonrpc: '2.0', id, error: reply.error }
    const controller = new AbortController()
    controllers.add(controller)
    const timer = setTimeout(() => controller.abort(), options.callTimeoutMs)
    try {
      const res = await fetch(options.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: controller.signal,
        redirect: 'error',
      })
      await res.body?.cancel()
    } catch {
      // The upstream times its own request out.
    } finally {
      clearTimeout(timer)
      controllers.delete(controller)
    }
  }

  async function connect(): Promise<void> {
    era = undefined
    const discover = await exchange('server/discover', undefined, CONNECT_TIMEOUT_MS)
    const result = discover.reply.ok
      ? (discover.reply.result as { supportedVersions?: unknown })
      : undefined
    if (
      result !== undefined &&
      Array.isArray(result.supportedVersions) &&
      result.supportedVersions.includes(STATELESS)
    ) {
      era = { kind: 'stateless' }
      ready(readHandshake({ ...(result as object), protocolVersion: STATELESS }))
      return
    }
    era = { kind: 'session', id: undefined, version: UPSTREAM_PROTOCOL_VERSION }
    const init = await exchange(
      'initialize',
      {
        protocolVersion: UPSTREAM_PROTOCOL_VERSION,
        capabilities: GATEWAY_CLIENT_CAPABILITIES,
        clientInfo: GATEWAY_CLIENT_INFO,
      },
      CONNECT_TIMEOUT_MS,
    )
    const found = init.reply.ok ? readHandshake(init.reply.result) : undefined
    if (found === undefined) {
      lost('initialize_failed')
      return
    }
    era = {
      kind: 'session',
      id: init.headers?.get('mcp-session-id') ?? undefined,
      version: found.protocolVersion,
    }
    await exchange('notifications/initialized', undefined, CONNECT_TIMEOUT_MS, true)
    ready(found)
  }

  function ready(found: UpstreamHandshake | undefined): void {
    if (found === undefined) {
      lost('discover_invalid')
      return
    }
    handshake = found
    log('upstream_ready', { era: era?.kind, protocolVersion: found.protocolVersion })
    listener?.({ kind: 'ready', handshake: found })
  }

  function lost(reason: string): void {
    const was = handshake !== undefined
    handshake = undefined
    log('upstream_unavailable', { reason })
    if (was) listener?.({ kind: 'down' })
    if (stopped || retry !== undefined) return
    retry = setTimeout(() => {
      retry = undefined
      void connect()
    }, RETRY_MS)
    retry.unref()
  }

  return Object.freeze({
    get handshake() {
      return handshake
    },
    async request(
      method: string,
      params: unknown,
      own = false,
      call?: UpstreamCall,
    ): Promise<RpcReply> {
      if (handshake === undefined) return fail('ERR_UPSTREAM_UNAVAILABLE')
      if (!own && inFlight >= options.maxConcurrentCalls)
        return fail('ERR_UPSTREAM_BUSY', options.maxConcurrentCalls)
      inFlight++
      try {
        const p = params as Record<string, unknown> | undefined
        const timeout = own ? CONNECT_TIMEOUT_MS : options.callTimeoutMs
        return (await exchange(method, p, timeout, false, call)).reply
      } finally {
        inFlight--
      }
    },
    notify(method: string, params?: unknown): void {
      if (handshake !== undefined)
        void exchange(
          method,
          params as Record<string, unknown> | undefined,
          options.callTimeoutMs,
          true,
        )
    },
    listen(l: (event: UpstreamEvent) => void): void {
      listener = l
    },
    start: connect,
    async close(): Promise<void> {
      stopped = true
      if (retry !== undefined) clearTimeout(retry)
      for (const c of controllers) c.abort()
    },
  })
}

const METHOD_NOT_FOUND: RpcReply = Object.freeze({
  ok: false,
  error: Object.freeze({ code: -32601, message: 'Method not found' }),
})

function fail(code: GatewayCode, limit?: number): RpcReply {
  return { ok: false, error: gatewayRpcError(code, limit) }
}
