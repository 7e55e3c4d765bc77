import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { AdmissionError } from '@tollgate/json-budget'
import { isBusyCode, type RenderRefusal, refusalStatus, renderProblem } from './problem.js'

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
 * `Cache-Control: no-store`, `Retry-After` on a 503 (`ERR_ADMISSION_BUSY` and
 * `ERR_ADMISSION_PRINCIPAL_BUSY`), and the connection closed by {@link closeAfterResponse}'s
 * bounded lingering close, so the rest of an oversized or malformed body is never admitted,
 * never parsed as a next request, and the client still receives the answer. A client abort
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
  if (isBusyCode(error.code)) {
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
 * Bounds of the lingering close {@link closeAfterResponse} performs: after the response has
 * been flushed and the connection half-closed, at most `lingerBytes` more bytes (1 MiB) are
 * read and discarded (past them reading stops), and the socket is destroyed `lingerMs`
 * milliseconds (2,000) after the response, or when the body ends or the client closes. The body the client is still sending is what is discarded; no further request on
 * the connection is ever read.
 */
export const LINGER_LIMITS = Object.freeze({ lingerBytes: 1024 * 1024, lingerMs: 2_000 })

/**
 * Marks `res` as the last response on its connection (`Connection: close`) and, once the
 * response has been flushed, closes the connection without serving anything more on it:
 *
 * - when the request body was read to its end, the socket is ended (FIN) and destroyed once
 *   the FIN is out;
 * - otherwise (an answer given before the body was read: a refusal, a 401 from the head) it is
 *   a **lingering close**, as nginx's `lingering_close` and Kestrel do: the socket is
 *   half-closed (FIN after the response), the rest of the body is read and discarded for at
 *   most {@link LINGER_LIMITS} (1 MiB, 2 s), and the socket is destroyed at the first of those
 *   bounds, when the body ends, or when the client closes.
 *
 * Destroying straight away while the client is still sending makes the kernel answer with a
 * reset (RST), and the client's TCP stack drops the response it had not read yet: a client
 * uploading a body sees "connection reset" instead of its 401 or 413. Lingering lets the
 * response reach it; the bounds keep an endless body from costing more than 1 MiB of parsing
 * and one socket for 2 s. A response that is aborted before it finishes destroys the socket.
 * A response queued behind a pipelined request gets the same close once Node assigns it the
 * connection.
 */
export function closeAfterResponse(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close')
  res.shouldKeepAlive = false
  // A response queued behind a pipelined request has no socket yet: Node assigns it, emitting
  // 'socket', once the responses before it have finished, and only then writes this one (its
  // 'prefinish' and 'finish' come after). Without the close set up then, Node's own close of
  // a last response would reset a client still sending the body.
  const socket = res.socket
  if (socket === null) res.once('socket', (assigned: Socket) => closeOnSocket(res, assigned))
  else closeOnSocket(res, socket)
}

function closeOnSocket(res: ServerResponse, socket: Socket): void {
  const req = res.req as IncomingMessage | undefined
  let linger: Linger | undefined
  // From the moment the response is complete, whatever body is still unread is unwanted:
  // counting it starts here. A 'data' listener also keeps Node from "dumping" a request
  // nobody read (a dumped request discards bytes without emitting them, so they could not be
  // counted).
  res.once('prefinish', () => {
    if (req !== undefined && !req.complete && !req.readableEnded) linger = startLinger(socket, req)
  })
  res.once('finish', () => {
    if (linger !== undefined) {
      linger.halfClose()
    } else if (!socket.destroyed) {
      // Nothing of this request is left to arrive; whatever follows would be a next request,
      // which a connection announced as closing must not serve.
      socket.end(() => socket.destroy())
    }
  })
  res.once('close', () => {
    if (!res.writableFinished) socket.destroy()
  })
}

interface Linger {
  halfClose(): void
}

function startLinger(socket: Socket, req: IncomingMessage): Linger {
  let discarded = 0
  let halfClosed = false
  let ended = false
  const done = () => {
    clearTimeout(timer)
    req.off('data', onData)
    req.off('end', onEnd)
    socket.off('close', done)
    socket.destroy()
  }
  // The body ending ends the linger (bytes after it would be a next request), but never
  // before the response is out: destroying earlier could drop the answer still being written.
  const onEnd = () => {
    ended = true
    if (halfClosed) done()
  }
  const onData = (chunk: Buffer) => {
    discarded += chunk.byteLength
    if (discarded <= LINGER_LIMITS.lingerBytes) return
    // Enough: stop reading. The socket is not destroyed at once: a reset makes the client's
    // kernel drop the answer it has not read yet, so a client that stops sending once answered
    // (RFC 9112 §9.5) would lose it. Paused, nothing more is read; the time bound (or the
    // client's own close) ends the socket.
    req.pause()
  }
  // The time bound runs from the end of the response, so a response the client never reads
  // cannot hold the socket past it either.
  const timer = setTimeout(done, LINGER_LIMITS.lingerMs)
  timer.unref()
  req.on('error', noop)
  req.on('data', onData)
  req.once('end', onEnd)
  socket.once('close', done)
  return {
    halfClose() {
      if (socket.destroyed) return
      halfClosed = true
      // Node closes a last response's socket with end() plus destroy() once the FIN is out
      // (net.Socket#destroySoon). That destroy, with body bytes still arriving, is the reset
      // that loses the response; it is taken back, and the bounds here destroy instead.
      socket.removeListener('finish', socket.destroy)
      if (ended) {
        clearTimeout(timer)
        socket.end(() => socket.destroy())
        return
      }
      socket.end()
      // Past the byte bound: stay paused until the time bound (see onData).
      if (discarded > LINGER_LIMITS.lingerBytes) return
      // A request an admission paused is resumed: its bytes reach only the counter above.
      req.resume()
    },
  }
}

function noop(): void {}

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
