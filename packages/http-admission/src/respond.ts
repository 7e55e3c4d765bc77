import type { ServerResponse } from 'node:http'
import type { AdmissionError } from '@tollgate/json-budget'
import { type RenderRefusal, refusalStatus, renderProblem } from './problem.js'

/** Options of {@link sendRefusal}. */
export interface SendRefusalOptions {
  /** Renders the body. Default: problem+json ({@link renderProblem}). */
  readonly render?: RenderRefusal
  /** Seconds in `Retry-After` for a 503. Default: 1. */
  readonly retryAfterSeconds?: number
}

/**
 * Answers a refusal on a `node:http` response and closes the connection: the status of the
 * code, a small body (problem+json unless `render` says otherwise), `Connection: close`,
 * `Cache-Control: no-store`, `Retry-After` on a 503, and the socket destroyed once the response
 * has flushed, so the rest of an oversized or malformed body is never read. A client abort
 * (`ERR_BODY_ABORTED`) has no one to answer: the socket is destroyed. When headers were already
 * sent, the response is cut and the socket destroyed. Headers set earlier (CORS, security
 * headers) are kept.
 */
export function sendRefusal(
  res: ServerResponse,
  error: AdmissionError,
  options: SendRefusalOptions = {},
): void {
  const socket = res.socket
  if (error.code === 'ERR_BODY_ABORTED' || res.headersSent || res.writableEnded) {
    socket?.destroy()
    if (!res.writableEnded) res.destroy()
    return
  }
  const { contentType, body } = (options.render ?? renderProblem)(error)
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body
  // Headers set by earlier middleware (CORS, security headers) stay, so a browser can read
  // the refusal; the ones that would describe some other representation go.
  for (const name of STALE_HEADERS) res.removeHeader(name)
  res.statusCode = refusalStatus(error)
  res.setHeader('Content-Type', contentType)
  res.setHeader('Content-Length', bytes.byteLength)
  res.setHeader('Cache-Control', 'no-store')
  if (error.code === 'ERR_ADMISSION_BUSY') {
    res.setHeader('Retry-After', String(options.retryAfterSeconds ?? 1))
  }
  closeAfterResponse(res)
  res.end(bytes)
}

const STALE_HEADERS = [
  'content-encoding',
  'content-range',
  'etag',
  'last-modified',
  'transfer-encoding',
]

/**
 * Marks `res` as the last response on its connection (`Connection: close`) and destroys the
 * socket as soon as the response has been flushed (or the response closes), without reading
 * whatever the client is still sending. Use it for any answer given before a body was read to
 * its end, so the unread rest can never be parsed as a next request.
 */
export function closeAfterResponse(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close')
  res.shouldKeepAlive = false
  const socket = res.socket
  const destroy = () => {
    socket?.destroy()
  }
  res.once('finish', destroy)
  res.once('close', destroy)
}

/**
 * Answers a request before (or instead of) reading its body — a 401, 404, 405, 415 an app
 * decides from the head alone — and closes the connection unread. Without this, Node keeps a
 * keep-alive connection open after the response and reads and discards whatever body follows,
 * so one socket streaming an endless body costs a core for as long as it likes. `body` is sent
 * as is (a string is UTF-8); `headers` are added to the ones set earlier, and `Connection:
 * close` and `Content-Length` are always set. Never put caller bytes in `body`.
 */
export function refuseUnread(
  res: ServerResponse,
  status: number,
  body: string | Uint8Array = '',
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent || res.writableEnded) {
    res.socket?.destroy()
    if (!res.writableEnded) res.destroy()
    return
  }
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body
  res.statusCode = status
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value)
  res.setHeader('Content-Length', bytes.byteLength)
  closeAfterResponse(res)
  res.end(bytes)
}
