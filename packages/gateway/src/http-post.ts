import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  checkHeaderAgreement,
  type JsonRpcMessage,
  type McpHead,
  type McpHttpAdmission,
  type McpProtocolEras,
  type McpRouteHead,
  refuseJsonRpcUnread,
} from '@tollgate/mcp-transport'
import type { Principal } from './access.js'
import type { GatewayRoute } from './config.js'
import { dispatchMessage } from './dispatch.js'
import type { GatewayControls } from './gateway.js'
import { GATEWAY_CODES, type GatewayCode, gatewayRpcError } from './gateway-errors.js'
import {
  acceptsEventStream,
  declaresCapabilities,
  MISSING_CAPABILITIES,
  modernStatus,
  requestIdOf,
  sseEvent,
} from './http-answers.js'
import type { HttpSessions } from './http-sessions.js'
import type { MessagePipeline } from './pipeline.js'
import type { ToolCatalog } from './tool-catalog.js'

/**
 * The reason a request's signal is aborted with when its response closes unfinished: one
 * constant, so no `DOMException` (and its stack) is made for it.
 */
const CALLER_GONE = 'the caller is gone'

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/

/** What the HTTP front holds that one POST's answer needs (built once per front). */
export interface HttpPostHost {
  readonly mcp: McpHttpAdmission
  readonly eras: McpProtocolEras
  readonly sessions: HttpSessions
  readonly pipeline: MessagePipeline
  readonly catalog: ToolCatalog
  readonly controls: Pick<GatewayControls, 'limiter' | 'audit' | 'metrics'>
  /** Counts a message in flight (the drain waits for none), from dispatch to answer. */
  readonly inFlight: { enter(): void; leave(): void }
}

/** Per-request facts the front judged from the head of one POST. */
export interface HttpPostFacts {
  readonly head: McpHead
  readonly surface: McpRouteHead
  readonly stateless: boolean
  readonly sessionKnown: boolean
  readonly sessionHeader: string | undefined
  readonly principal: Principal
  readonly route: GatewayRoute
}

/** A header's value when it was sent once, else `undefined`. */
export function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value
}

/**
 * Answers one POST whose head the front admitted: the body is admitted under the body cap with
 * the lexical preflight, must agree with the 2026-07-28 headers, must be one JSON-RPC message
 * (a batch is refused `ERR_GATEWAY_UNSUPPORTED`, anything else malformed `ERR_INVALID_REQUEST`),
 * needs a known session unless it is a session-era `initialize` or stateless; a notification is
 * accepted (202), and so is a response that answers a request relayed to this session (any
 * other is refused `ERR_RELAY_UNKNOWN`). A `tools/call` of a served tool and `subscriptions/listen` are
 * charged to the principal's limiter first (refused 429 `-32011`). The answer is JSON, or an
 * event stream once the upstream sends a progress or log message about the request, or a request
 * of its client (relayed under the gateway's id).
 */
export async function answerPost(
  req: IncomingMessage,
  res: ServerResponse,
  facts: HttpPostFacts,
  host: HttpPostHost,
): Promise<void> {
  const { mcp, eras, sessions, pipeline, catalog } = host
  const { limiter, audit, metrics } = host.controls
  const { stateless, sessionKnown, sessionHeader } = facts
  const refuse = (code: GatewayCode, headers: Record<string, string> = {}): void =>
    refuseJsonRpcUnread(res, GATEWAY_CODES[code].status, gatewayRpcError(code), headers)
  const body = await mcp.admitMcpBody(req, res)
  if (!body.ok) return
  const message = body.value
  const disagreement = checkHeaderAgreement(facts.head, message, req.headers, eras, facts.surface)
  if (disagreement !== undefined) {
    refuseJsonRpcUnread(res, disagreement.status, disagreement.error, {}, requestIdOf(message))
    return
  }
  // 2026-07-28: every request declares its client capabilities in `_meta` (what the upstream
  // may ask of it); without them it is refused as a stateless server refuses it.
  if (stateless && !declaresCapabilities(message)) {
    refuseJsonRpcUnread(res, 400, MISSING_CAPABILITIES, {}, requestIdOf(message))
    return
  }
  if (Array.isArray(message)) {
    refuseJsonRpcUnread(res, 400, gatewayRpcError('ERR_GATEWAY_UNSUPPORTED'))
    return
  }
  const m = (message ?? {}) as {
    jsonrpc?: unknown
    method?: unknown
    id?: unknown
    params?: unknown
  }
  const isRequest =
    typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')
  const isNotification = typeof m.method === 'string' && m.id === undefined
  const isResponse = m.method === undefined && m.id !== undefined && ('result' in m || 'error' in m)
  if (
    typeof message !== 'object' ||
    m.jsonrpc !== '2.0' ||
    !(isRequest || isNotification || isResponse)
  ) {
    refuseJsonRpcUnread(res, 400, gatewayRpcError('ERR_INVALID_REQUEST'))
    return
  }
  const params =
    m.params !== null && typeof m.params === 'object'
      ? (m.params as Record<string, unknown>)
      : undefined
  if (stateless) {
    // Agreement was checked above.
  } else if (!sessionKnown && m.method !== 'initialize') {
    refuse(sessionHeader === undefined ? 'ERR_INVALID_REQUEST' : 'ERR_SESSION_UNKNOWN')
    return
  }
  if (isResponse && !stateless) {
    // The caller's answer to a request relayed to it: only to one relayed to this session.
    const refused = pipeline.answer(message, sessions.state(sessionHeader ?? ''))
    if (refused !== undefined) {
      refuse(refused)
      return
    }
  }
  if (!isRequest) {
    res.writeHead(202).end()
    return
  }
  let newSession: string | undefined
  if (!stateless && m.method === 'initialize') {
    // With a Redis, one round trip: the session holds a lease of the principal's fleet quota.
    const opened = await sessions.open(facts.principal.key, facts.principal.anonymous)
    if (!opened.ok) {
      audit.event('session_refused', {
        route: facts.route.path,
        principal: facts.principal.key,
        reason: opened.code,
      })
      metrics.refused(opened.code, facts.route.path, '(none)')
      refuseJsonRpcUnread(
        res,
        opened.status,
        gatewayRpcError(opened.code, opened.limit),
        { 'Retry-After': String(opened.retryAfterSeconds) },
        requestIdOf(message),
      )
      return
    }
    newSession = opened.id
  }
  const traceparent = singleHeader(req.headers.traceparent)
  // A caller that accepts an event stream gets the upstream's progress and log messages
  // about its request: the answer turns into a stream at the first one.
  let streaming = false
  const sessionHeaders: Record<string, string> =
    newSession === undefined ? {} : { 'Mcp-Session-Id': newSession }
  // ... and the requests the upstream makes of its client (sampling, elicitation, roots).
  const toStream = acceptsEventStream(req.headers.accept)
    ? (message: Readonly<Record<string, unknown>>): void => {
        if (res.writableEnded || res.destroyed) return
        if (!streaming) {
          streaming = true
          res.writeHead(200, {
            'Content-Type': 'text/event-stream',
            'Cache-Control': 'no-store',
            ...sessionHeaders,
          })
        }
        res.write(sseEvent(message))
      }
    : undefined
  const notify =
    toStream === undefined
      ? undefined
      : (n: { method: string; params: unknown }): void => {
          const note: Record<string, unknown> = { jsonrpc: '2.0', method: n.method }
          if (n.params !== undefined) note.params = n.params
          toStream(note)
        }
  const gone = new AbortController()
  // Gone is a caller whose answer did not finish; after a finished answer nothing listens.
  res.once('close', () => {
    if (!res.writableFinished) gone.abort(CALLER_GONE)
  })
  const context = {
    signal: gone.signal,
    era: stateless ? ('2026' as const) : ('2025' as const),
    traceparent:
      traceparent !== undefined && TRACEPARENT.test(traceparent) ? traceparent : undefined,
    principal: facts.principal,
    route: facts.route,
    notify,
    ask: toStream,
    session: stateless ? undefined : sessions.state(newSession ?? sessionHeader ?? ''),
  }
  // The per-principal limits are charged once the tool is known to be served to this caller
  // (a caller must not create buckets named as it likes); a refusal reads nothing more.
  let lease: { release(): void } | undefined
  // A `subscriptions/listen` stream holds an upstream request open: it counts against the
  // caller's concurrency (and rate) like a call, so one caller cannot hold every upstream slot.
  const name = (params as { name?: unknown } | undefined)?.name
  const bucket =
    m.method === 'subscriptions/listen'
      ? 'subscriptions/listen'
      : m.method === 'tools/call' &&
          typeof name === 'string' &&
          catalog.find(name) !== undefined &&
          pipeline.mayCall(name, context)
        ? name
        : undefined
  if (bucket !== undefined) {
    // One round trip to the fleet's Redis with --redis-url; at once in memory.
    const granted = await limiter.acquire(facts.principal.key, bucket)
    if (!granted.ok) {
      audit.event('call_refused', {
        code: granted.code,
        principal: facts.principal.key,
        route: facts.route.path,
        tool: bucket,
      })
      metrics.refused(granted.code, facts.route.path, bucket)
      refuseJsonRpcUnread(
        res,
        granted.status,
        {
          code: -32011,
          message: 'Too many calls',
          data: { code: granted.code, retryAfterSeconds: granted.retryAfterSeconds },
        },
        { 'Retry-After': String(granted.retryAfterSeconds) },
      )
      return
    }
    lease = granted
  }
  host.inFlight.enter()
  try {
    const response = await dispatchMessage(message as JsonRpcMessage, pipeline, context)
    if (streaming) res.end(sseEvent(response))
    else {
      // One write with its length: no chunked framing for the client to undo.
      const text = JSON.stringify(response)
      res
        .writeHead(stateless ? modernStatus(response) : 200, {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(text),
          'Cache-Control': 'no-store',
          ...sessionHeaders,
        })
        .end(text)
    }
  } finally {
    lease?.release()
    host.inFlight.leave()
  }
}
