import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import {
  createMcpHttpAdmission,
  mcpBodyAdmission,
  refuseJsonRpcUnread,
} from '@tollgate/mcp-transport'
import type { Principal } from './access.js'
import type { GatewayRoute } from './config.js'
import type { GatewayControls } from './gateway.js'
import { GATEWAY_CODES, type GatewayCode, gatewayRpcError } from './gateway-errors.js'
import { answerPost, type HttpPostHost, singleHeader } from './http-post.js'
import { type MessagePipeline, SESSION_ERA_VERSIONS, STATELESS_VERSION } from './pipeline.js'
import { servedSurface } from './served-surface.js'
import type { ToolCatalog } from './tool-catalog.js'
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
  readonly controls: Pick<GatewayControls, 'access' | 'limiter' | 'audit' | 'metrics' | 'sessions'>
}

/** What {@link serveHttp} returns: the bound port, and the drain. */
export interface HttpFront {
  readonly port: number
  /** Stops taking requests, lets those in flight finish within `deadlineMs`, then closes. */
  drain(deadlineMs: number): Promise<void>
}

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
  const mcp = createMcpHttpAdmission({
    host: options.host,
    body: mcpBodyAdmission({
      maxBytes: options.maxBodyBytes,
      duplicateKeys: 'refuse',
      protoKeys: 'refuse',
    }),
    supportedProtocolVersions: [STATELESS_VERSION, ...SESSION_ERA_VERSIONS],
  })
  const eras = mcp.policy.eras
  // The head control's surface is the served tools, rebuilt when the catalog changes.
  const routeHead = servedSurface(options.catalog)
  const { access, audit, metrics, sessions } = options.controls
  // An anonymous caller is its peer address, which a connection keeps: its principal (a
  // digest) is made once per connection, not once per request.
  const anonymous = new WeakMap<Socket, Principal | undefined>()
  const anonymousOf = (socket: Socket): Principal | undefined => {
    if (anonymous.has(socket)) return anonymous.get(socket)
    const principal = access.authenticate(undefined, socket.remoteAddress ?? '')
    anonymous.set(socket, principal)
    return principal
  }
  let inFlight = 0
  let draining = false
  let idle: (() => void) | undefined
  const post: HttpPostHost = {
    mcp,
    eras,
    sessions,
    pipeline: options.pipeline,
    catalog: options.catalog,
    controls: options.controls,
    inFlight: {
      enter: () => {
        inFlight++
      },
      leave: () => {
        inFlight--
        if (inFlight === 0) idle?.()
      },
    },
  }

  const refuse = (
    res: ServerResponse,
    code: GatewayCode,
    headers: Record<string, string> = {},
  ): void => refuseJsonRpcUnread(res, GATEWAY_CODES[code].status, gatewayRpcError(code), headers)

  async function handleMcp(
    req: IncomingMessage,
    res: ServerResponse,
    route: GatewayRoute,
  ): Promise<void> {
    if (!mcp.guardHostAndOrigin(req, res)) return
    const authorization = singleHeader(req.headers.authorization)
    const principal =
      authorization === undefined
        ? anonymousOf(req.socket)
        : access.authenticate(authorization, req.socket.remoteAddress ?? '')
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
    const sessionHeader = singleHeader(req.headers['mcp-session-id'])
    // A session lives in the instance that minted it: another instance's id is named as such.
    const refuseSession = (where: 'unknown' | 'elsewhere'): void => {
      audit.event('session_refused', { route: route.path, principal: principal.key, reason: where })
      refuse(res, where === 'elsewhere' ? 'ERR_SESSION_ELSEWHERE' : 'ERR_SESSION_UNKNOWN')
    }
    if (req.method === 'DELETE') {
      const where = sessions.locate(sessionHeader, principal.key)
      if (where === 'open' && sessions.delete(sessionHeader as string)) res.writeHead(200).end()
      else refuseSession(where === 'elsewhere' ? where : 'unknown')
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
    if (!mcp.guardProtocolVersion(req, res)) return
    const verdict = eras.judgeHeader(req.headers['mcp-protocol-version'])
    const stateless = verdict.era === 'modern'
    const where = stateless ? 'unknown' : sessions.locate(sessionHeader, principal.key)
    const sessionKnown = where === 'open'
    if (!stateless && sessionHeader !== undefined && where !== 'open') {
      refuseSession(where)
      return
    }
    // 2026-07-28: the method and tool name in the headers are judged before any body byte (a
    // tool off the served surface, an unknown method); the body must agree with them later.
    const head = mcp.readMcpHead(req)
    const surfaceNow = routeHead()
    const decision = surfaceNow.admit(head, { principal: principal.key })
    if (!decision.ok) {
      refuseJsonRpcUnread(res, decision.status, decision.error, decision.headers)
      return
    }
    try {
      await answerPost(
        req,
        res,
        { head, surface: surfaceNow, stateless, sessionKnown, sessionHeader, principal, route },
        post,
      )
    } finally {
      decision.release()
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
