import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import {
  admitMcpBody,
  guardHostAndOrigin,
  guardProtocolVersion,
  handleMcpRequest,
  isInitializeBody,
  mcpBodyAdmission,
  refuseJsonRpcUnread,
  resolveMcpHttpOptions,
  SessionPool,
} from '@tollgate/mcp-transport'
import { authenticateRequest, type Principal, samePrincipal } from './auth.js'
import { buildMcpServer } from './build-server.js'
import { applyControls, type ControlOptions } from './controls.js'
import { ROUTES, type Route } from './surfaces.js'
import type { ServerContext } from './tools/context.js'

/** Session limits of {@link startHttpServer}; each `undefined` takes the default. */
export interface HttpSessionOptions {
  /** Most sessions open at once, every credential together. Default: 1,000. */
  readonly maxSessions?: number | undefined
  /**
   * Most sessions one principal's quota key holds (each credential its own; every anonymous
   * caller shares one). Default: a tenth of `maxSessions`, rounded up.
   */
  readonly maxSessionsPerCredential?: number | undefined
  /** A session with no request in flight for this long is closed. Default: 600,000 ms. */
  readonly sessionIdleMs?: number | undefined
}

/** Options of {@link startHttpServer}. */
export interface HttpServerOptions {
  readonly host: string
  readonly port: number
  readonly maxBodyBytes: number
  readonly controls: ControlOptions
  readonly sessions?: HttpSessionOptions
}

/** What a session is bound to: the SDK transport, the route and who opened it. */
interface Session {
  readonly transport: StreamableHTTPServerTransport
  readonly route: Route
  readonly principal: Principal
}

/** Seconds a client is told to wait after a session limit (429 / 503). */
const SESSION_RETRY_AFTER_SECONDS = '5'

/**
 * Serves Streamable HTTP on the three routes. One request reads top to bottom, the cheap checks
 * on its head first and each refusal closing the connection unread: Host/Origin and
 * `MCP-Protocol-Version` (the transport's guards), the route, the credential, then the session
 * (the one named, bound to this route and principal) or a reserved slot for a new one (global
 * cap and per-credential quota counted at once), and only then the body. Nothing is built for a
 * request before all of that has passed: the `McpServer` and its transport are made for an
 * admitted `initialize` alone.
 */
export async function startHttpServer(
  context: ServerContext,
  options: HttpServerOptions,
): Promise<{ server: Server; port: number; close: () => Promise<void> }> {
  // Each body also counts against its principal's share of the in-flight budget (at most 8
  // bodies and a quarter of the budget per credential; all anonymous callers share one key),
  // so one credential sending many bodies at once cannot take the budget from the others.
  const http = resolveMcpHttpOptions({
    body: mcpBodyAdmission({ maxBytes: options.maxBodyBytes }),
    host: options.host,
  })
  const pool = new SessionPool<Session>({
    maxSessions: options.sessions?.maxSessions,
    maxSessionsPerKey: options.sessions?.maxSessionsPerCredential,
    idleMs: options.sessions?.sessionIdleMs,
  })
  const routes = new Map(ROUTES.map((r) => [r.path, r]))

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!guardHostAndOrigin(req, res, http)) {
      return context.audit('http_refused', { reason: 'host_or_origin' })
    }
    if (!guardProtocolVersion(req, res, http)) {
      return context.audit('http_refused', { reason: 'protocol_version' })
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    const route = routes.get(path)
    if (route === undefined) {
      context.audit('http_refused', { reason: 'route_not_found' })
      return refuseJsonRpcUnread(res, 404, { code: -32601, message: 'Not found' })
    }
    const principal = authenticateRequest(context, route, req)
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
    if (typeof sessionHeader === 'string') {
      const use = pool.use(sessionHeader)
      if (
        use === undefined ||
        use.value.route !== route ||
        !samePrincipal(use.value.principal, principal)
      ) {
        use?.done()
        context.audit('session_refused', { reason: 'not_found', route: route.name })
        return refuseJsonRpcUnread(res, 404, { code: -32001, message: 'Session not found' })
      }
      // The idle clock stays stopped while the response is open (an SSE stream included).
      res.once('close', use.done)
      if (req.method !== 'POST') {
        return handleMcpRequest(use.value.transport, req, res, undefined, http)
      }
      const body = await admitMcpBody(req, res, http, { principal: principal.quotaKey })
      if (!body.ok) return
      return handleMcpRequest(use.value.transport, req, res, body.value, http)
    }
    if (req.method !== 'POST') {
      return refuseJsonRpcUnread(res, 400, { code: -32000, message: 'Bad Request: no session' })
    }
    // The slot is taken before the body is read, so initializes held back mid-body cannot all
    // pass a check made at their heads and count past the cap once their bodies arrive.
    const reserved = pool.reserve(principal.quotaKey)
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
    let mcp: McpServer | undefined
    try {
      const body = await admitMcpBody(req, res, http, { principal: principal.quotaKey })
      if (!body.ok) return
      if (!isInitializeBody(body.value)) {
        return refuseJsonRpcUnread(res, 400, {
          code: -32000,
          message: 'Bad Request: no session',
        })
      }
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => {
          slot.commit(id, { transport, route, principal }, () => server.close())
          context.audit('session_opened', { route: route.name, credential: principal.id })
        },
      })
      transport.onclose = () => {
        if (transport.sessionId !== undefined) pool.delete(transport.sessionId)
      }
      const server = buildMcpServer(context, { route, credentialId: principal.id })
      mcp = server
      await server.connect(
        applyControls(transport, options.controls, {
          route,
          credentialId: principal.id,
          audit: context.audit,
        }),
      )
      // The SDK transport itself, not the decorated one: it reads the body we admitted and
      // its JSON-response entries are released on it.
      await handleMcpRequest(transport, req, res, body.value, http)
      if (transport.sessionId === undefined || !pool.has(transport.sessionId)) {
        await server.close() // the SDK refused the initialize: nothing to keep
      }
    } catch (error) {
      await mcp?.close()
      throw error
    } finally {
      slot.release() // frees the slot, or once committed starts the idle clock
    }
  }

  const server = createServer((req, res) => {
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
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return { server, port, close }
}
