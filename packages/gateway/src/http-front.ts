import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  admitMcpBody,
  guardHostAndOrigin,
  type JsonRpcMessage,
  refuseJsonRpcUnread,
  resolveMcpHttpOptions,
} from '@tollgate/mcp-transport'
import { dispatchMessage, requestVersion } from './dispatch.js'
import { GATEWAY_CODES, type GatewayCode, gatewayRpcError } from './gateway-errors.js'
import { type MessagePipeline, SESSION_ERA_VERSIONS, STATELESS_VERSION } from './pipeline.js'
import type { Upstream } from './upstream.js'

/** Host-only options of {@link serveHttp}. */
export interface HttpFrontOptions {
  readonly host: string
  readonly port: number
  readonly maxBodyBytes: number
  readonly pipeline: MessagePipeline
  readonly upstream: Upstream
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
 * message per POST: a batch is refused. Answers are `application/json`; there is no GET stream.
 * Also serves `/healthz` (the process is up) and `/readyz` (the upstream is initialized).
 */
export async function serveHttp(options: HttpFrontOptions): Promise<HttpFront> {
  const mcp = resolveMcpHttpOptions({
    host: options.host,
    maxBytes: options.maxBodyBytes,
    duplicateKeys: 'refuse',
    protoKeys: 'refuse',
    supportedProtocolVersions: [STATELESS_VERSION, ...SESSION_ERA_VERSIONS],
  })
  const sessions = new Map<string, number>()
  let inFlight = 0
  let draining = false
  let idle: (() => void) | undefined

  const refuse = (
    res: ServerResponse,
    code: GatewayCode,
    headers: Record<string, string> = {},
  ): void => refuseJsonRpcUnread(res, GATEWAY_CODES[code].status, gatewayRpcError(code), headers)

  const sessionAllowed = (id: string | undefined): boolean => {
    if (id === undefined) return false
    const seen = sessions.get(id)
    if (seen === undefined || Date.now() - seen > SESSION_IDLE_MS) {
      sessions.delete(id)
      return false
    }
    sessions.set(id, Date.now())
    return true
  }

  const openSession = (): string | undefined => {
    if (sessions.size >= MAX_SESSIONS) {
      const now = Date.now()
      for (const [id, seen] of sessions) if (now - seen > SESSION_IDLE_MS) sessions.delete(id)
      if (sessions.size >= MAX_SESSIONS) return undefined
    }
    const id = randomBytes(16).toString('hex')
    sessions.set(id, Date.now())
    return id
  }

  async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!guardHostAndOrigin(req, res, mcp)) return
    const sessionHeader = single(req.headers['mcp-session-id'])
    if (req.method === 'DELETE') {
      if (sessionHeader !== undefined && sessions.delete(sessionHeader)) {
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
    const headerVersion = single(req.headers['mcp-protocol-version'])
    if (
      headerVersion !== undefined &&
      headerVersion !== STATELESS_VERSION &&
      !SESSION_ERA_VERSIONS.includes(headerVersion)
    ) {
      refuseJsonRpcUnread(res, 400, {
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: [STATELESS_VERSION, ...SESSION_ERA_VERSIONS] },
      })
      return
    }
    const stateless = headerVersion === STATELESS_VERSION
    const sessionKnown = !stateless && sessionAllowed(sessionHeader)
    if (!stateless && sessionHeader !== undefined && !sessionKnown) {
      refuse(res, 'ERR_SESSION_UNKNOWN')
      return
    }
    const body = await admitMcpBody(req, res, mcp)
    if (!body.ok) return
    const message = body.value
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
      // 2026-07-28: the headers mirror the body; a proxy or a router that read one must not
      // be told something else by the other.
      const method = single(req.headers['mcp-method'])
      if (
        (method !== undefined && method !== m.method) ||
        requestVersion(params) !== STATELESS_VERSION
      ) {
        refuseJsonRpcUnread(res, 400, { code: -32020, message: 'Header and body disagree' })
        return
      }
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
      newSession = openSession()
      if (newSession === undefined) {
        refuse(res, 'ERR_SESSION_LIMIT', { 'Retry-After': '60' })
        return
      }
    }
    const traceparent = single(req.headers.traceparent)
    inFlight++
    try {
      const response = await dispatchMessage(message as JsonRpcMessage, options.pipeline, {
        era: stateless ? '2026' : '2025',
        traceparent:
          traceparent !== undefined && TRACEPARENT.test(traceparent) ? traceparent : undefined,
      })
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        'Cache-Control': 'no-store',
      }
      if (newSession !== undefined) headers['Mcp-Session-Id'] = newSession
      res.writeHead(200, headers).end(JSON.stringify(response))
    } finally {
      inFlight--
      if (inFlight === 0) idle?.()
    }
  }

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]
    if (path === '/mcp') {
      handleMcp(req, res).catch(() => {
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
