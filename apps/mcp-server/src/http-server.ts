import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node'
import { type McpServer, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server'
import { type CallerKeys, callerKeys } from '@tollgate/http-admission'
import {
  createMcpHttpAdmission,
  isInitializeBody,
  type McpHead,
  mcpBodyAdmission,
  refuseJsonRpcUnread,
  SessionPool,
} from '@tollgate/mcp-transport'
import type { SchemaRegistry } from '@tollgate/mcp-validation'
import { bodyRefusalAudit } from './audit.js'
import { authenticateRequest, type Principal, samePrincipal, statelessPrincipal } from './auth.js'
import { buildMcpServer, type PublishedTools } from './build-server.js'
import type { MessageControls } from './controls.js'
import { createDrain, type Drain, SERVER_DRAINING } from './drain.js'
import { answerProbe, PROBE_PATHS, type StoreHealth } from './health.js'
import { createModernLeg, routeHead } from './http-modern.js'
import { type PrincipalQuota, principalQuota } from './principal-quota.js'
import type { SharedLimits } from './shared-quota.js'
import { ROUTES, type Route } from './surfaces.js'
import type { ServerContext } from './tools/context.js'

/** Session limits of {@link startHttpServer}; each `undefined` takes the default. */
export interface HttpSessionOptions {
  /** Most sessions open at once, every credential together. Default: 1,000. */
  readonly maxSessions?: number | undefined
  /**
   * Most sessions one credential holds, and every anonymous caller together (each anonymous
   * caller, one per address, a quarter of it). Default: a tenth of `maxSessions`, rounded up.
   */
  readonly maxSessionsPerCredential?: number | undefined
  /** A session with no request in flight for this long is closed. Default: 600,000 ms. */
  readonly sessionIdleMs?: number | undefined
  /** How long an open GET stream alone keeps a session alive. Default: 600,000 ms. */
  readonly streamIdleMs?: number | undefined
  /** A session is closed this long after it opened, however busy. Default: 3,600,000 ms. */
  readonly sessionLifetimeMs?: number | undefined
}

/** Options of {@link startHttpServer}. */
export interface HttpServerOptions {
  readonly host: string
  readonly port: number
  readonly maxBodyBytes: number
  readonly controls: MessageControls
  /** The published input schemas of the tool table (`publishTools`). */
  readonly published: PublishedTools
  /** `schemas/mcp/`, loaded: each route's head admission reads its tools' `x-mcp-header`s there. */
  readonly schemas: SchemaRegistry
  readonly sessions?: HttpSessionOptions
  /** The per-principal quotas of 2026-07-28 requests; `undefined`: the defaults. */
  readonly quota?: PrincipalQuota
  /** Who an anonymous caller is (its address; forwarded only from trusted proxies). Default: `callerKeys()`. */
  readonly callers?: CallerKeys
  /**
   * The fleet-wide limits (`--redis-url`): the session quota is then also held on the shared
   * store, a lease per session, so N instances do not give a credential N times its quota.
   * `undefined`: each instance counts alone.
   */
  readonly shared?: SharedLimits
  /**
   * The drain state `main` begins on SIGTERM: new MCP requests are then refused 503
   * `ERR_SERVER_DRAINING` and `/readyz` answers 503. Default: one of the server's own.
   */
  readonly drain?: Drain
  /** Whether the shared store (`--redis-url`) answers, for `/readyz`; `undefined`: no store. */
  readonly storeHealth?: StoreHealth
}

/** What a session is bound to: the SDK transport, the route and who opened it. */
interface Session {
  readonly transport: NodeStreamableHTTPServerTransport
  readonly route: Route
  readonly principal: Principal
}

/** Seconds a client is told to wait after a session limit (429 / 503). */
const SESSION_RETRY_AFTER_SECONDS = '5'

/**
 * Serves Streamable HTTP on the three routes, both MCP eras on each, decided per request. One
 * request reads top to bottom, the cheap checks on its head first and each refusal closing the
 * connection unread: Host/Origin and `MCP-Protocol-Version` (the transport's guards), the
 * route, the credential. Then the era, from the head: a request naming a session, or with no
 * 2026-07-28 version header, is 2025 traffic (the session, bound to this route and principal,
 * or a reserved slot for a new one: global cap and per-credential quota counted at once); a
 * request whose `MCP-Protocol-Version` is 2026-07-28 is stateless (POST only; a request slot of
 * its principal's quota: in flight and rate). Only then the body. Nothing is built for a
 * request before all of that has passed.
 */
export async function startHttpServer(
  context: ServerContext,
  options: HttpServerOptions,
): Promise<{ server: Server; port: number; close: () => Promise<void> }> {
  // Each body also counts against its principal's share of the in-flight budget (at most 8
  // bodies and a quarter of the budget per credential; every anonymous caller together the same
  // in the anonymous pool, each address a quarter of that, on both eras), so one credential
  // sending many bodies at once cannot take the budget from the others, anonymous traffic never
  // takes the credentials' share, and one anonymous caller never the whole anonymous pool.
  // One `body_refused` audit line per refused body, aggregated like the other refusal lines:
  // the path's body step reports the body control's refusals and its own (an empty body), so
  // the body control itself takes no hook (it would report each refusal a second time); the
  // path's other refusals are audited below as `http_refused`.
  const http = createMcpHttpAdmission({
    // Repeated and `__proto__` keys refused (422), as on stdio, whatever the library default.
    body: mcpBodyAdmission({
      maxBytes: options.maxBodyBytes,
      duplicateKeys: 'refuse',
      protoKeys: 'refuse',
      // With --redis-url the per-principal body count holds across the fleet too.
      ...(options.shared === undefined ? {} : { fleetBodies: options.shared.bodies }),
    }),
    onRefusal: bodyRefusalAudit(context.audit, (e) => e.control === 'mcp-body'),
    host: options.host,
    // The SDK line's 2025 versions; the stateless revision is admitted by `eras`.
    supportedProtocolVersions: SUPPORTED_PROTOCOL_VERSIONS,
  })
  const heads = new Map(
    ROUTES.map((r) => [
      r,
      routeHead(r, options.schemas, (e) => context.audit('head_refused', { ...e, route: r.name })),
    ]),
  )
  const quota = options.quota ?? principalQuota()
  const callers = options.callers ?? callerKeys()
  const modern = createModernLeg(context, ROUTES, options.published, options.controls)
  const pool = new SessionPool<Session>({
    maxSessions: options.sessions?.maxSessions,
    maxSessionsPerKey: options.sessions?.maxSessionsPerCredential,
    idleMs: options.sessions?.sessionIdleMs,
    streamIdleMs: options.sessions?.streamIdleMs,
    maxLifetimeMs: options.sessions?.sessionLifetimeMs,
  })
  const routes = new Map(ROUTES.map((r) => [r.path, r]))

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!http.guardHostAndOrigin(req, res)) {
      return context.audit('http_refused', { reason: 'host_or_origin' })
    }
    if (!http.guardProtocolVersion(req, res)) {
      return context.audit('http_refused', { reason: 'protocol_version' })
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    const route = routes.get(path)
    if (route === undefined) {
      context.audit('http_refused', { reason: 'route_not_found' })
      return refuseJsonRpcUnread(res, 404, { code: -32601, message: 'Not found' })
    }
    const principal = authenticateRequest(context, route, req, callers)
    if (principal === undefined) {
      context.audit('auth_refused', { route: route.name })
      return refuseJsonRpcUnread(
        res,
        401,
        { code: -32001, message: 'Unauthorized' },
        { 'WWW-Authenticate': 'Bearer' },
      )
    }
    const sessionHeader = req.headers['mcp-session-id']
    const head = http.readMcpHead(req)
    if (sessionHeader === undefined && head.era === 'modern') {
      return serveStateless(req, res, route, statelessPrincipal(principal), head)
    }
    return serveSession(req, res, route, principal, sessionHeader)
  }

  /**
   * A 2026-07-28 request, every step before the body from its head: POST only (405), the
   * route's head admission (`Mcp-Method` served, `Mcp-Name` on the surface, the declared length
   * under the tool's cap), a slot of its principal's quota; then a batch refused at its first
   * byte, the body, every mirrored header against the parsed body (-32020), and the SDK.
   */
  const serveStateless = async (
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    principal: Principal,
    head: McpHead,
  ) => {
    if (!http.guardModernHttpMethod(res, head)) {
      return context.audit('http_refused', { reason: 'method_not_allowed', route: route.name })
    }
    const routeHead = heads.get(route)!
    const releaseHead = http.guardMcpHead(res, head, {
      route: routeHead,
      principal: principal.quotaKey,
    })
    if (releaseHead === undefined) return
    // Taken before the body is read, so requests held back mid-body count while they wait.
    const acquired = await quota.acquire(principal.quotaKey, undefined, principal.pool)
    if (!acquired.ok) {
      releaseHead()
      const { code, status, limit, retryAfterSeconds } = acquired.error
      context.audit('quota_refused', { reason: code, route: route.name })
      return refuseJsonRpcUnread(
        res,
        status,
        { code: -32000, message: 'Too many requests', data: { code, limit } },
        { 'Retry-After': String(retryAfterSeconds) },
      )
    }
    try {
      const where = { route: routeHead, principal: principal.quotaKey, pool: principal.pool }
      if (!(await http.guardModernFirstByte(req, res, head, where))) return
      const body = await http.admitMcpBody(req, res, where)
      if (!body.ok) return
      if (!http.guardHeaderAgreement(req, res, head, body.value, { route: routeHead })) return
      await modern.serve(req, res, body.value, route, principal)
    } finally {
      acquired.lease.release()
      releaseHead()
    }
  }

  /** A 2025 request: the session it names, or an `initialize` opening one. */
  const serveSession = async (
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    principal: Principal,
    sessionHeader: string | string[] | undefined,
  ) => {
    if (typeof sessionHeader === 'string') {
      // Read without touching its clocks: a request refused here keeps no session alive.
      const found = pool.peek(sessionHeader)
      const use =
        found === undefined ||
        found.value.route !== route ||
        !samePrincipal(found.value.principal, principal)
          ? undefined
          : pool.use(sessionHeader, req.method === 'GET' ? 'stream' : 'request')
      if (use === undefined) {
        // Another instance's tag: the load balancer sent this session to an instance that never
        // held it. Still a 404 (a client then opens a new session), but named, so it is not
        // taken for an expired session.
        if (found === undefined && pool.locate(sessionHeader) === 'elsewhere') {
          context.audit('session_refused', { reason: 'elsewhere', route: route.name })
          return refuseJsonRpcUnread(res, 404, {
            code: -32001,
            message: 'Session minted by another instance: route by Mcp-Session-Id',
            data: { code: 'ERR_SESSION_ELSEWHERE' },
          })
        }
        context.audit('session_refused', { reason: 'not_found', route: route.name })
        return refuseJsonRpcUnread(res, 404, { code: -32001, message: 'Session not found' })
      }
      // The idle clock stays stopped while the response is open; a GET's event stream keeps
      // the session alive for at most streamIdleMs with nothing else in flight.
      res.once('close', use.done)
      if (req.method !== 'POST') {
        return http.handleMcpRequest(use.value.transport, req, res, undefined)
      }
      const body = await http.admitMcpBody(req, res, {
        principal: principal.quotaKey,
        pool: principal.pool,
      })
      if (!body.ok) return
      return http.handleMcpRequest(use.value.transport, req, res, body.value)
    }
    if (req.method !== 'POST') {
      return refuseJsonRpcUnread(res, 400, { code: -32000, message: 'Bad Request: no session' })
    }
    // The slot is taken before the body is read, so initializes held back mid-body cannot all
    // pass a check made at their heads and count past the cap once their bodies arrive.
    const reserved = pool.reserve(principal.quotaKey, principal.pool)
    if (!reserved.ok) {
      const { code, status, limit } = reserved.error
      context.audit('session_refused', { reason: code, route: route.name })
      return refuseJsonRpcUnread(
        res,
        status,
        { code: -32000, message: 'Too many sessions', data: { code, limit } },
        { 'Retry-After': SESSION_RETRY_AFTER_SECONDS },
      )
    }
    const { slot } = reserved
    // The fleet's count, on the shared store: a lease held while the session lives, taken
    // before the body like the local slot.
    const lease = await options.shared?.reserveSession(principal.quotaKey, principal.pool)
    if (lease !== undefined && !lease.ok) {
      slot.release()
      const { code, status, limit, retryAfterSeconds } = lease
      context.audit('session_refused', { reason: code, route: route.name })
      return refuseJsonRpcUnread(
        res,
        status,
        { code: -32000, message: 'Too many sessions', data: { code, limit } },
        { 'Retry-After': String(retryAfterSeconds) },
      )
    }
    let kept = false
    let mcp: McpServer | undefined
    try {
      const body = await http.admitMcpBody(req, res, {
        principal: principal.quotaKey,
        pool: principal.pool,
      })
      if (!body.ok) return
      if (!isInitializeBody(body.value)) {
        return refuseJsonRpcUnread(res, 400, {
          code: -32000,
          message: 'Bad Request: no session',
        })
      }
      const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => pool.mintId(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => {
          slot.commit(id, { transport, route, principal }, () => server.close())
          context.audit('session_opened', { route: route.name, credential: principal.id })
        },
      })
      transport.onclose = () => {
        if (transport.sessionId !== undefined) pool.delete(transport.sessionId)
        void lease?.release()
      }
      const server = buildMcpServer(
        context,
        principal.anonymous
          ? { route, credentialId: principal.id, quotaKey: principal.quotaKey }
          : { route, credentialId: principal.id },
        options.published,
        options.controls,
      )
      mcp = server
      // The server connects through the message controls (see buildMcpServer).
      await server.connect(transport)
      // The SDK transport itself, not the decorated one: it reads the body we admitted and
      // its JSON-response entries are released on it.
      await http.handleMcpRequest(transport, req, res, body.value)
      if (transport.sessionId === undefined || !pool.has(transport.sessionId)) {
        await server.close() // the SDK refused the initialize: nothing to keep
      } else kept = true
    } catch (error) {
      await mcp?.close()
      throw error
    } finally {
      slot.release() // frees the slot, or once committed starts the idle clock
      if (!kept) void lease?.release()
    }
  }

  const drain = options.drain ?? createDrain()
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    if ((PROBE_PATHS as readonly string[]).includes(path)) {
      void answerProbe(req, res, path, drain, options.storeHealth).catch(() => res.destroy())
      return
    }
    if (drain.draining) {
      // Refused from the head, the connection closed: the client retries on another instance.
      context.audit('http_refused', { reason: 'draining' })
      return refuseJsonRpcUnread(
        res,
        503,
        { code: -32000, message: 'Server is draining', data: { code: SERVER_DRAINING } },
        { 'Retry-After': '1' },
      )
    }
    // A GET is a 2025 session's event stream, open for as long as the session: not a request
    // the drain waits for (closing the sessions ends it).
    if (req.method !== 'GET') drain.admit(res)
    handle(req, res).catch((error: unknown) => {
      context.audit('http_error', { error: error instanceof Error ? error.name : 'unknown' })
      if (!res.headersSent)
        refuseJsonRpcUnread(res, 500, { code: -32603, message: 'Internal error' })
      else res.destroy()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => resolve())
  })
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : options.port
  const close = async () => {
    await pool.close()
    await modern.close()
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    server.closeAllConnections()
    await closed
  }
  return { server, port, close }
}
