// The hand-over of an admitted request to a web-standard MCP handler (SDK 2.4's
// `createMcpHandler`, whose face is `fetch(request, { parsedBody, authInfo })`) without turning
// the parsed body back into text. The handler never reads the body of a `Request` it is given
// `parsedBody` with: it reads the method, the URL, the headers (Content-Type, Accept, the
// protocol version and mirrored `Mcp-*` headers) and the signal. So the `Request` built here
// carries exactly those and no body; `@modelcontextprotocol/node`'s `toNodeHandler` instead
// serializes the parsed value again (`JSON.stringify`, then `TextEncoder` for a Content-Length)
// into a body nobody reads. The web `Response` is written back to the Node response with
// back-pressure, and the client going away aborts the request's signal and cancels the
// response's stream.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import type { HandlesHttpRequest } from './http-handover.js'

/** What {@link webHandover} passes to the handler's `fetch` beside the request. */
export interface WebHandlerCallOptions {
  /** The admitted, parsed body: the handler reads it instead of the request's body. */
  parsedBody?: unknown
  /** The caller's verified identity, passed through as-is (SDK 2.4's `AuthInfo`). */
  authInfo?: object
}

/**
 * A web-standard MCP handler: SDK 2.4's `createMcpHandler(...)` result, or anything with the
 * same `fetch` face.
 */
export interface WebMcpHandler {
  fetch(request: Request, options?: WebHandlerCallOptions): Promise<Response>
}

/** Options of {@link webHandover}. */
export interface WebHandoverOptions {
  /**
   * Observes an error the handover turns into a 500 answer: `fetch` throwing or rejecting, or
   * the request being impossible to build (a Host that makes no URL). Default: none. A throw
   * from it is ignored.
   */
  onError?: (error: Error) => void
}

/**
 * The per-request facts of one hand-over; `authInfo` overrides `req.auth` (where
 * authentication middleware of the SDK's Node adapter convention puts it).
 */
export interface WebHandoverCall {
  readonly authInfo?: object
}

/** A frozen hand-over from a Node request to a web-standard MCP handler. */
export interface WebHandover extends HandlesHttpRequest {
  /**
   * Hands `req` to the handler with `parsedBody` (the admitted body) and writes its answer on
   * `res`. Never rejects: a handler that throws gets a 500 JSON-RPC error
   * (`-32603`, `Internal server error`, the body's id when it has one).
   */
  handleRequest(
    req: IncomingMessage,
    res: ServerResponse,
    parsedBody?: unknown,
    call?: WebHandoverCall,
  ): Promise<void>
}

// Headers about the bytes of a body the built request does not carry: the parsed body stands in
// for them, already decoded.
const BODY_FRAMING = new Set(['content-length', 'transfer-encoding', 'content-encoding'])

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/** The web `Request` for `req`: no body when `bodiless`, else the Node stream unread. */
function webRequestOf(req: IncomingMessage, bodiless: boolean, signal: AbortSignal): Request {
  const method = (req.method ?? 'GET').toUpperCase()
  const host = firstValue(req.headers.host) ?? firstValue(req.headers[':authority']) ?? 'localhost'
  const headers = new Headers()
  for (const name in req.headers) {
    const value = req.headers[name]
    if (value === undefined || name.charCodeAt(0) === 0x3a) continue
    if (bodiless && BODY_FRAMING.has(name)) continue
    if (typeof value === 'string') headers.set(name, value)
    else for (const item of value) headers.append(name, item)
  }
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal }
  if (!bodiless && method !== 'GET' && method !== 'HEAD') {
    // No admitted body (a host that hands over unread): the handler reads and bounds it itself.
    init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>
    init.duplex = 'half'
  }
  return new Request(`http://${host}${req.url ?? '/'}`, init)
}

/** The id to echo on a 500: a request's string or number id, else `null`. */
function echoableId(body: unknown): string | number | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null
  const { method, id } = body as { method?: unknown; id?: unknown }
  if (typeof method !== 'string') return null
  return typeof id === 'string' || typeof id === 'number' ? id : null
}

function internalError(body: unknown): Response {
  const id = echoableId(body)
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id },
    { status: 500 },
  )
}

function headersOf(response: Response): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of response.headers) {
    const held = out[name]
    if (held === undefined) out[name] = value
    else if (Array.isArray(held)) held.push(value)
    else out[name] = [held, value]
  }
  return out
}

/** Writes `body` on `res`, waiting for `drain` when `res` is full; stops when `closed` aborts. */
async function pump(
  body: ReadableStream<Uint8Array>,
  res: ServerResponse,
  closed: AbortSignal,
): Promise<void> {
  const reader = body.getReader()
  const stop = () => {
    reader.cancel().catch(() => {})
  }
  closed.addEventListener('abort', stop, { once: true })
  try {
    for (;;) {
      if (closed.aborted) return
      const { done, value } = await reader.read()
      if (done || closed.aborted) return
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off('drain', go)
            closed.removeEventListener('abort', go)
            resolve()
          }
          res.on('drain', go)
          closed.addEventListener('abort', go, { once: true })
        })
      }
    }
  } finally {
    closed.removeEventListener('abort', stop)
  }
}

function report(onError: ((error: Error) => void) | undefined, error: unknown): void {
  try {
    onError?.(error instanceof Error ? error : new Error(String(error)))
  } catch {}
}

/**
 * Builds the hand-over of admitted requests to a web-standard MCP handler (SDK 2.4's
 * `createMcpHandler`): `webHandover(handler)` is a target `mcpHttpHandler`,
 * `McpHttpAdmission.handle` and the 2026-07-28 steps accept in place of
 * `{ handleRequest: toNodeHandler(handler) }`. Each call builds a bodiless web `Request`
 * (method, `http://<Host><url>`, the request's headers but its body framing —
 * `Content-Length`, `Transfer-Encoding`, `Content-Encoding` — and a signal aborted when the
 * client goes away), calls `handler.fetch(request, { parsedBody, authInfo })`, and writes the
 * `Response`: status, headers, then the body streamed with back-pressure (an SSE stream
 * included), its stream cancelled when the client goes away. With no `parsedBody` (a POST
 * handed over unread), the request's body is streamed to the handler, which bounds it.
 * `authInfo` is the call's, else `req.auth`.
 * @throws TypeError at construction when `handler` has no `fetch` function or
 *   `options.onError` is not a function.
 */
export function webHandover(handler: WebMcpHandler, options: WebHandoverOptions = {}): WebHandover {
  if (typeof (handler as Partial<WebMcpHandler> | null)?.fetch !== 'function') {
    throw new TypeError('handler must have a fetch(request, options) function')
  }
  const { onError } = options
  if (onError !== undefined && typeof onError !== 'function') {
    throw new TypeError('onError must be a function')
  }
  const fetch = handler.fetch.bind(handler)
  const handleRequest = async (
    req: IncomingMessage,
    res: ServerResponse,
    parsedBody?: unknown,
    call?: WebHandoverCall,
  ): Promise<void> => {
    // Express passes `next` third: never a body.
    const body = typeof parsedBody === 'function' ? undefined : parsedBody
    const gone = new AbortController()
    let finished = false
    const onClose = () => {
      if (!finished) gone.abort()
    }
    res.on('close', onClose)
    if (res.destroyed) gone.abort()
    const authInfo = call?.authInfo ?? (req as IncomingMessage & { auth?: object }).auth
    let response: Response
    try {
      const request = webRequestOf(req, body !== undefined, gone.signal)
      const fetchOptions: WebHandlerCallOptions = {}
      if (body !== undefined) fetchOptions.parsedBody = body
      if (authInfo !== undefined) fetchOptions.authInfo = authInfo
      response = await fetch(request, fetchOptions)
    } catch (error) {
      report(onError, error)
      response = internalError(body)
    }
    if (res.headersSent || res.destroyed) {
      finished = true
      res.off('close', onClose)
      await response.body?.cancel().catch(() => {})
      return
    }
    let whole = true
    try {
      res.writeHead(response.status, headersOf(response))
      if (response.body !== null) await pump(response.body, res, gone.signal)
    } catch (error) {
      report(onError, error)
      whole = false
    } finally {
      finished = true
      res.off('close', onClose)
    }
    // A stream that failed mid-way: the client must not take a cut answer as whole.
    if (whole) res.end()
    else res.destroy()
  }
  return Object.freeze({ handleRequest })
}
