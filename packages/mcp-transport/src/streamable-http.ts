import type { IncomingMessage, ServerResponse } from 'node:http'
import { admitNodeRequest, type RenderRefusal, sendRefusal } from '@tollgate/http-admission'
import { AdmissionError } from '@tollgate/json-budget'
import {
  isLoopbackHost,
  type McpHttpOptions,
  type ResolvedMcpHttpOptions,
  resolveMcpHttpOptions,
} from './http-options.js'
import { JSON_RPC_ERRORS, jsonRpcErrorFor } from './json-rpc.js'
import { releaseFinishedJsonResponses } from './sdk-json-retention.js'

/** What the handler hands a request to: the SDK's `StreamableHTTPServerTransport`. */
export interface HandlesHttpRequest {
  handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>
}

/**
 * The target of {@link mcpHttpHandler}: a `StreamableHTTPServerTransport`, a transport decorator
 * around one (its `inner` chain is followed to `handleRequest`), or a function returning either
 * per request (stateless servers that make a transport per request).
 */
export type McpHttpTarget =
  | HandlesHttpRequest
  | { readonly inner: unknown }
  | ((req: IncomingMessage) => HandlesHttpRequest | { readonly inner: unknown } | Promise<unknown>)

const STRUCTURE = new Set([
  'ERR_JSON_INVALID_UTF8',
  'ERR_JSON_SYNTAX',
  'ERR_JSON_TOO_DEEP',
  'ERR_JSON_TOO_MANY_NODES',
  'ERR_JSON_DUPLICATE_KEY',
  'ERR_JSON_PROTO_KEY',
  'ERR_JSON_STRING_TOO_LONG',
  'ERR_JSON_NUMBER_TOO_LONG',
  'ERR_JSON_BOM',
])

/**
 * Renders a refusal as a JSON-RPC error body (`id: null`): `-32700 Parse error` for a body
 * refused for UTF-8 or structure, `-32000` with the bounded message otherwise; `data` holds the
 * stable code and the limit. Never the caller's bytes.
 */
export const renderJsonRpcRefusal: RenderRefusal = (error) => ({
  contentType: 'application/json',
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: jsonRpcErrorFor(
      STRUCTURE.has(error.code) ? JSON_RPC_ERRORS.parseError : JSON_RPC_ERRORS.serverError,
      error,
    ),
  }),
})

/**
 * Checks `Host` and `Origin` against the resolved allow-lists (DNS rebinding: a page on
 * `evil.example` that resolves to 127.0.0.1 reaches a loopback server with its own name in
 * `Host` and `Origin`). A request without `Origin` (not from a browser) passes the Origin check.
 * @returns the refusal, or `undefined` when the request may proceed.
 */
export function checkHostAndOrigin(
  req: IncomingMessage,
  options: ResolvedMcpHttpOptions,
): AdmissionError | undefined {
  if (options.allowedHosts !== undefined) {
    const host = req.headers.host
    let name: string | undefined
    try {
      name = host === undefined ? undefined : new URL(`http://${host}`).hostname
    } catch {
      name = undefined
    }
    if (name === undefined || !options.allowedHosts.includes(name)) {
      return new AdmissionError('ERR_HOST_NOT_ALLOWED')
    }
  }
  const allowed = options.allowedOrigins
  const origin = req.headers.origin
  if (allowed !== undefined && origin !== undefined) {
    let url: URL | undefined
    try {
      url = new URL(origin)
    } catch {
      url = undefined
    }
    const ok =
      url !== undefined &&
      url.origin !== 'null' &&
      (allowed === 'loopback'
        ? (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname)
        : allowed.includes(url.origin))
    if (!ok) return new AdmissionError('ERR_ORIGIN_NOT_ALLOWED')
  }
  return undefined
}

/**
 * A `node:http` request handler in front of the SDK's `StreamableHTTPServerTransport`:
 * validates `Host`/`Origin` (on by default for a loopback `host`), admits a POST body under the
 * MCP cap (4 MiB default, never above 64 MiB; a batch is one body) with the lexical preflight
 * running as it arrives, and hands the SDK the parsed body
 * (`handleRequest(req, res, parsedBody)`) so it is read once. GET (SSE), DELETE and other
 * methods pass through to the SDK untouched. A refusal is a JSON-RPC error body with the status
 * of its code (413 too large; 422 for UTF-8 or structure; 403 Host/Origin; 415, 408, 503) and
 * the connection is closed without reading the rest of the body. After each POST it releases
 * the SDK 1.32.2 transport's finished JSON-response entries, which the SDK would otherwise keep
 * (with the request's parsed body) until the session closes (`releaseSdkJsonResponses`).
 * @throws TypeError at construction on bad options.
 */
export function mcpHttpHandler(
  target: McpHttpTarget,
  options: McpHttpOptions = {},
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const resolved = resolveMcpHttpOptions(options)
  if (typeof target !== 'function') findHandler(target)
  const refuse = (res: ServerResponse, error: AdmissionError) =>
    sendRefusal(res, error, {
      render: renderJsonRpcRefusal,
      retryAfterSeconds: resolved.admission.retryAfterSeconds,
    })
  return async (req, res) => {
    const denied = checkHostAndOrigin(req, resolved)
    if (denied !== undefined) return refuse(res, denied)
    if (req.method !== 'POST') {
      return (await resolveTarget(target, req)).handleRequest(req, res)
    }
    if ((req as { _body?: unknown })._body === true) {
      throw new TypeError('the request body was already read by another parser (express.json?)')
    }
    const result = await admitNodeRequest(req, resolved.admission)
    if (!result.ok) return refuse(res, result.error)
    // An empty POST is not a JSON text; answering it here keeps the SDK from reading again.
    if (result.value === undefined) return refuse(res, new AdmissionError('ERR_JSON_SYNTAX'))
    const transport = await resolveTarget(target, req)
    try {
      await transport.handleRequest(req, res, result.value)
    } finally {
      // SDK 1.32.2 keeps every JSON-mode POST (and its parsed body) until the session closes.
      if (resolved.releaseSdkJsonResponses) releaseFinishedJsonResponses(transport)
    }
  }
}

/**
 * The Express 5 / Connect form of {@link mcpHttpHandler}: `app.all('/mcp', mcpExpressHandler(t))`.
 * Mount it without `express.json()` in front (the body must reach it unread). An unexpected
 * error goes to `next(err)`. Needs no import of Express.
 */
export function mcpExpressHandler(
  target: McpHttpTarget,
  options: McpHttpOptions = {},
): (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void {
  const handle = mcpHttpHandler(target, options)
  return (req, res, next) => {
    handle(req, res).catch(next)
  }
}

async function resolveTarget(target: McpHttpTarget, req: IncomingMessage) {
  return findHandler(typeof target === 'function' ? await target(req) : target)
}

function findHandler(target: unknown): HandlesHttpRequest {
  let t = target
  for (let hops = 0; hops < 32 && typeof t === 'object' && t !== null; hops++) {
    // The transport itself (called as a method), so the JSON-mode release can see its maps.
    if (typeof (t as HandlesHttpRequest).handleRequest === 'function')
      return t as HandlesHttpRequest
    t = (t as { inner?: unknown }).inner
  }
  throw new TypeError('target must be a StreamableHTTPServerTransport or a decorator around one')
}
