import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  admitMcpBody,
  checkHeaderAgreement,
  DEFAULT_PROTOCOL_ERAS,
  guardHostAndOrigin,
  guardProtocolVersion,
  type JsonRpcMessage,
  type McpRouteHead,
  type McpRouteTool,
  mcpBodyAdmission,
  mcpRouteHead,
  readMcpHead,
  refuseJsonRpcUnread,
  resolveMcpHttpOptions,
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
import {
  type CallerSession,
  type MessagePipeline,
  SESSION_ERA_VERSIONS,
  STATELESS_VERSION,
} from './pipeline.js'
import type { ToolCatalog } from './tool-catalog.js'
import type { UpstreamTool } from './tool-guard.js'
import type { Upstream } from './upstream.js'

/** Host-only options of {@link serveHttp}. */
export interface HttpFrontOptions {
  readonly host: string
  readonly port: number
  readonly maxBodyBytes: number
  readonly pipeline: MessagePipeline
  readonly upstream: Upstream
  /** The served tools: the 2026-07-28 head admission's surface. */
  readonly catalog: ToolCatalog
  /** Access (credentials, routes), the per-principal limiter, audit and metrics. */
  readonly controls: Pick<GatewayControls, 'access' | 'limiter' | 'audit' | 'metrics'>
}

/** What {@link serveHttp} returns: the bound port, and the drain. */
export interface HttpFront {
  readonly port: number
  /** Stops taking requests, lets those in flight finish within `deadlineMs`, then closes. */
  drain(deadlineMs: number): Promise<void>
}

/** Most session-era sessions held at once. */
const MAX_SESSIONS = 10_000
/** A session unused for this long is forgotten: 30 minutes. */
const SESSION_IDLE_MS = 30 * 60_000
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/

/**
 * Serves Streamable HTTP at `/mcp`, both eras on the same route, decided per request: a request
 * whose `MCP-Protocol-Version` header is `2026-07-28` is stateless (no session; its header must
 * agree with the version and method its body names, else 400 `-32020`); any other is a
 * session-era request, which needs the `Mcp-Session-Id` the gateway issued on `initialize`
 * (checked from the head, before the body is read). Host and Origin are checked first (DNS
 * rebinding), then the body is admitted under `maxBodyBytes` with the lexical preflight
 * (duplicate keys and `__proto__` refused), then the message goes through the pipeline. One
 * message per POST: a batch is refused. Answers are `application/json`, or an event stream once
 * the upstream sends a progress or log message about the request (to a caller that accepts
 * one); there is no GET stream.
 * Also serves `/healthz` (the process is up) and `/readyz` (the upstream is initialized).
 */
export async function serveHttp(options: HttpFrontOptions): Promise<HttpFront> {
  const mcp = resolveMcpHttpOptions({
    host: options.host,
    body: mcpBodyAdmission({
      maxBytes: options.maxBodyBytes,
      duplicateKeys: 'refuse',
      protoKeys: 'refuse',
    }),
    supportedProtocolVersions: [STATELESS_VERSION, ...SESSION_ERA_VERSIONS],
  })
  const eras = DEFAULT_PROTOCOL_ERAS
  let surface: { served: readonly UpstreamTool[] | undefined; head: McpRouteHead } = {
    served: undefined,
    head: mcpRouteHead(),
  }
  // The head control's surface is the served tools, rebuilt when the catalog changes.
  const routeHead = (): McpRouteHead => {
    const served = options.catalog.served
    if (surface.served !== served) surface = { served, head: surfaceOf(served) }
    return surface.head
  }
  const sessions = new Map<string, { seen: number; key: string; state: CallerSession }>()
  const { access, limiter, audit, metrics } = options.controls
  let inFlight = 0
  let draining = false
  let idle: (() => void) | undefined

  const refuse = (
    res: ServerResponse,
    code: GatewayCode,
    headers: Record<string, string> = {},
  ): void => refuseJsonRpcUnread(res, GATEWAY_CODES[code].status, gatewayRpcError(code), headers)

  // A session is bound to the principal that opened it: another caller cannot use its id.
  const sessionAllowed = (id: string | undefined, key: string): boolean => {
    if (id === undefined) return false
    const entry = sessions.get(id)
    if (entry === undefined || Date.now() - entry.seen > SESSION_IDLE_MS || entry.key !== key) {
      if (entry !== undefined && entry.key === key) sessions.delete(id)
      return false
    }
    entry.seen = Date.now()
    return true
  }

  const openSession = (key: string): string | undefined => {
    if (sessions.size >= MAX_SESSIONS) {
      const now = Date.now()
      for (const [id, entry] of sessions)
        if (now - entry.seen > SESSION_IDLE_MS) sessions.delete(id)
      if (sessions.size >= MAX_SESSIONS) return undefined
    }
    const id = randomBytes(16).toString('hex')
    sessions.set(id, { seen: Date.now(), key, state: { logLevel: undefined } })
    return id
  }

  async function handleMcp(
    req: IncomingMessage,
    res: ServerResponse,
    route: GatewayRoute,
  ): Promise<void> {
    if (!guardHostAndOrigin(req, res, mcp)) return
    const authorization = single(req.headers.authorization)
    const principal = access.authenticate(authorization, req.socket.remoteAddress ?? '')
    if (principal === undefined || !access.mayUse(principal, route)) {
      audit.event('auth_refused', {
        route: route.path,
        principal: principal?.key,
        reason: principal === undefined ? 'credential' : 'route',
      })
      metrics.refused('ERR_UNAUTHORIZED', route.path, '(none)')
      refuseJsonRpcUnread(
        res,
        401,
        { code: -32001, message: 'Unauthorized' },
        { 'WWW-Authenticate': 'Bearer' },
      )
      return
    }
    const sessionHeader = single(req.headers['mcp-session-id'])
    if (req.method === 'DELETE') {
      if (
        sessionHeader !== undefined &&
        sessionAllowed(sessionHeader, principal.key) &&
        sessions.delete(sessionHeader)
      ) {
        res.writeHead(200).end()
      } else refuse(res, 'ERR_SESSION_UNKNOWN')
      return
    }
    if (req.method !== 'POST') {
      refuseJsonRpcUnread(
        res,
        405,
        { code: -32000, message: 'Method not allowed' },
        { Allow: 'POST, DELETE' },
      )
      return
    }
    if (draining) {
      refuse(res, 'ERR_GATEWAY_DRAINING', { 'Retry-After': '1' })
      return
    }
    // An unsupported version is answered as every tollgate host answers it: from the head for a
    // request without a body, after the bounded body otherwise (with the request's id, and the
    // sent value echoed only when it has a version's shape).
    if (!guardProtocolVersion(req, res, mcp, eras)) return
    const verdict = eras.judgeHeader(req.headers['mcp-protocol-version'])
    const stateless = verdict.era === 'modern'
    const sessionKnown = !stateless && sessionAllowed(sessionHeader, principal.key)
    if (!stateless && sessionHeader !== undefined && !sessionKnown) {
      refuse(res, 'ERR_SESSION_UNKNOWN')
      return
    }
    // 2026-07-28: the method and tool name in the headers are judged before any body byte (a
    // tool off the served surface, an unknown method); the body must agree with them later.
    const head = readMcpHead(req, eras)
    const surfaceNow = routeHead()
    const decision = surfaceNow.admit(head, { principal: principal.key })
    if (!decision.ok) {
      refuseJsonRpcUnread(res, decision.status, decision.error, decision.headers)
      return
    }
    try {
      await answerPost(req, res, {
        head,
        surface: surfaceNow,
        stateless,
        sessionKnown,
        sessionHeader,
        principal,
        route,
      })
    } finally {
      decision.release()
    }
  }

  async function answerPost(
    req: IncomingMessage,
    res: ServerResponse,
    facts: {
      head: ReturnType<typeof readMcpHead>
      surface: McpRouteHead
      stateless: boolean
      sessionKnown: boolean
      sessionHeader: string | undefined
      principal: Principal
      route: GatewayRoute
    },
  ): Promise<void> {
    const { stateless, sessionKnown, sessionHeader } = facts
    const body = await admitMcpBody(req, res, mcp)
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
    const isResponse =
      m.method === undefined && m.id !== undefined && ('result' in m || 'error' in m)
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
      refuse(res, sessionHeader === undefined ? 'ERR_INVALID_REQUEST' : 'ERR_SESSION_UNKNOWN')
      return
    }
    if (!isRequest) {
      res.writeHead(202).end()
      return
    }
    let newSession: string | undefined
    if (!stateless && m.method === 'initialize') {
      newSession = openSession(facts.principal.key)
      if (newSession === undefined) {
        refuse(res, 'ERR_SESSION_LIMIT', { 'Retry-After': '60' })
        return
      }
    }
    const traceparent = single(req.headers.traceparent)
    // A caller that accepts an event stream gets the upstream's progress and log messages
    // about its request: the answer turns into a stream at the first one.
    let streaming = false
    const sessionHeaders: Record<string, string> =
      newSession === undefined ? {} : { 'Mcp-Session-Id': newSession }
    const notify = acceptsEventStream(req.headers.accept)
      ? (n: { method: string; params: unknown }): void => {
          if (res.writableEnded || res.destroyed) return
          if (!streaming) {
            streaming = true
            res.writeHead(200, {
              'Content-Type': 'text/event-stream',
              'Cache-Control': 'no-store',
              ...sessionHeaders,
            })
          }
          const note: Record<string, unknown> = { jsonrpc: '2.0', method: n.method }
          if (n.params !== undefined) note.params = n.params
          res.write(sseEvent(note))
        }
      : undefined
    const gone = new AbortController()
    res.once('close', () => gone.abort())
    const context = {
      signal: gone.signal,
      era: stateless ? ('2026' as const) : ('2025' as const),
      traceparent:
        traceparent !== undefined && TRACEPARENT.test(traceparent) ? traceparent : undefined,
      principal: facts.principal,
      route: facts.route,
      notify,
      session: stateless ? undefined : sessions.get(newSession ?? sessionHeader ?? '')?.state,
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
            options.catalog.find(name) !== undefined &&
            options.pipeline.mayCall(name, context)
          ? name
          : undefined
    if (bucket !== undefined) {
      const granted = limiter.acquire(facts.principal.key, bucket)
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
          429,
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
    inFlight++
    try {
      const response = await dispatchMessage(message as JsonRpcMessage, options.pipeline, context)
      if (streaming) res.end(sseEvent(response))
      else {
        res
          .writeHead(stateless ? modernStatus(response) : 200, {
            'Content-Type': 'application/json',
            'Cache-Control': 'no-store',
            ...sessionHeaders,
          })
          .end(JSON.stringify(response))
      }
    } finally {
      lease?.release()
      inFlight--
      if (inFlight === 0) idle?.()
    }
  }

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]
    const route = path === undefined ? undefined : access.route(path)
    if (route !== undefined) {
      handleMcp(req, res, route).catch(() => {
        if (!res.headersSent)
          refuseJsonRpcUnread(res, 500, { code: -32603, message: 'Internal error' })
        else res.destroy()
      })
      return
    }
    if (req.method === 'GET' && path === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok"}')
      return
    }
    if (req.method === 'GET' && path === '/metrics') {
      metrics.render().then(
        ({ contentType, body }) => res.writeHead(200, { 'Content-Type': contentType }).end(body),
        () => res.writeHead(500).end(),
      )
      return
    }
    if (req.method === 'GET' && path === '/readyz') {
      const ready = !draining && options.upstream.handshake !== undefined
      res
        .writeHead(ready ? 200 : 503, { 'Content-Type': 'application/json' })
        .end(ready ? '{"status":"ready"}' : '{"status":"not ready"}')
      return
    }
    refuseJsonRpcUnread(res, 404, { code: -32000, message: 'Not found' })
  })
  server.headersTimeout = 30_000
  server.requestTimeout = 120_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => resolve())
  })
  const port = (server.address() as AddressInfo).port

  return Object.freeze({
    port,
    async drain(deadlineMs: number): Promise<void> {
      draining = true
      server.close()
      server.closeIdleConnections()
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, deadlineMs)
          idle = () => {
            clearTimeout(timer)
            resolve()
          }
        })
      }
      server.closeAllConnections()
    },
  })
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value
}

/**
 * The head control of the served surface. A tool whose `x-mcp-header` declarations the control
 * refuses is left off the surface (its calls are refused from the head) rather than failing
 * the whole route.
 */
function surfaceOf(served: readonly UpstreamTool[]): McpRouteHead {
  const tools: Record<string, McpRouteTool> = {}
  for (const tool of served) {
    try {
      mcpRouteHead({ tools: { [tool.name]: { inputSchema: tool.inputSchema } } })
      tools[tool.name] = { inputSchema: tool.inputSchema }
    } catch {
      // Left off the surface.
    }
  }
  return mcpRouteHead({ tools })
}
