import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { type HandlesHttpRequest, mcpHttpHandler } from '@tollgate/mcp-transport'
import { authenticateRequest, type Principal, samePrincipal } from './auth.js'
import { buildMcpServer } from './build-server.js'
import { applyControls, type ControlOptions } from './controls.js'
import { ROUTES, type Route } from './surfaces.js'
import type { ServerContext } from './tools/context.js'

/** Options of {@link startHttpServer}. */
export interface HttpServerOptions {
  readonly host: string
  readonly port: number
  readonly maxBodyBytes: number
  readonly controls: ControlOptions
}

/** Most concurrent sessions; past it a new `initialize` is answered 503. */
const MAX_SESSIONS = 1000

interface Session {
  readonly transport: StreamableHTTPServerTransport
  readonly route: Route
  readonly principal: Principal
}

function jsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers = {},
) {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null })
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(body)
}

/**
 * Serves Streamable HTTP on the three routes. Each session is bound to the route and the
 * credential that opened it; a request naming a session from another route or credential is
 * answered as an unknown session.
 */
export async function startHttpServer(
  context: ServerContext,
  options: HttpServerOptions,
): Promise<{ server: Server; port: number; close: () => Promise<void> }> {
  const sessions = new Map<string, Session>()
  // Body admission (4 MiB cap, preflight as bytes arrive, Host/Origin checks) runs after the
  // route and the credential are known, so an unauthenticated body is never read; the handler
  // hands the SDK the parsed body, which then does not read it again.
  const targets = new WeakMap<IncomingMessage, HandlesHttpRequest>()
  const admit = mcpHttpHandler((req) => targets.get(req)!, {
    maxBytes: options.maxBodyBytes,
    host: options.host,
  })
  const routes = new Map(ROUTES.map((r) => [r.path, r]))

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    const route = routes.get(path)
    if (route === undefined) return jsonRpcError(res, 404, -32601, 'Not found')
    const principal = authenticateRequest(context, route, req)
    if (principal === undefined) {
      context.audit('auth_refused', { route: route.name })
      return jsonRpcError(res, 401, -32001, 'Unauthorized', { 'www-authenticate': 'Bearer' })
    }
    const credentialId = principal.id
    const sessionHeader = req.headers['mcp-session-id']
    if (typeof sessionHeader === 'string') {
      const session = sessions.get(sessionHeader)
      if (
        session === undefined ||
        session.route !== route ||
        !samePrincipal(session.principal, principal)
      ) {
        return jsonRpcError(res, 404, -32001, 'Session not found')
      }
      targets.set(req, session.transport)
      return admit(req, res)
    }
    if (req.method !== 'POST') return jsonRpcError(res, 400, -32000, 'Bad Request: no session')
    if (sessions.size >= MAX_SESSIONS) return jsonRpcError(res, 503, -32000, 'Too many sessions')
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, route, principal })
        context.audit('session_opened', { route: route.name, credential: credentialId })
      },
    })
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
    }
    const mcp = buildMcpServer(context, { route, credentialId })
    await mcp.connect(
      applyControls(transport, options.controls, { route, credentialId, audit: context.audit }),
    )
    targets.set(req, {
      handleRequest: async (rq, rs, body) => {
        await transport.handleRequest(rq, rs, body)
        if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) {
          // Not an initialize: nothing to keep.
          await mcp.close()
        }
      },
    })
    await admit(req, res)
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      context.audit('http_error', { error: error instanceof Error ? error.name : 'unknown' })
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal error')
      else res.end()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => resolve())
  })
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : options.port
  const close = async () => {
    for (const s of sessions.values()) await s.transport.close()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return { server, port, close }
}
