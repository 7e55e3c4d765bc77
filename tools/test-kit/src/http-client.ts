// Raw HTTP/1.1 clients for tests: they write exactly the bytes given (headers, framing, a body
// that never ends) and read the answer while still sending, because a refusal may come before
// the body is complete. node:http and fetch would normalise or buffer what these tests attack.
import { request as httpRequest } from 'node:http'
import { connect, type Socket } from 'node:net'

/** One parsed HTTP response: status, lower-cased headers, body decoded as UTF-8. */
export interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

/**
 * Parses one HTTP/1.1 response from `data`, or `undefined` while it is incomplete: complete
 * once the head and `Content-Length` bytes arrived (0 when absent), or, for a chunked response,
 * once the last chunk arrived (the chunks are joined).
 */
export function parseResponse(data: Buffer): RawResponse | undefined {
  const end = data.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const lines = data.subarray(0, end).toString('latin1').split('\r\n')
  const status = Number(lines[0]?.split(' ')[1])
  const headers: Record<string, string> = {}
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':')
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim()
  }
  if (headers['transfer-encoding'] === 'chunked') {
    const rest = data.subarray(end + 4).toString('latin1')
    if (!rest.includes('0\r\n\r\n')) return undefined
    let body = ''
    let at = 0
    for (;;) {
      const nl = rest.indexOf('\r\n', at)
      const size = Number.parseInt(rest.slice(at, nl), 16)
      if (size === 0) break
      body += rest.slice(nl + 2, nl + 2 + size)
      at = nl + 2 + size + 2
    }
    return { status, headers, body: Buffer.from(body, 'latin1').toString('utf8') }
  }
  const length = Number(headers['content-length'] ?? 0)
  if (data.length < end + 4 + length) return undefined
  return { status, headers, body: data.subarray(end + 4, end + 4 + length).toString('utf8') }
}

/**
 * A raw TCP client on 127.0.0.1:`port`: the test writes the head and body bytes itself and
 * collects the answer, parsed by `parseResponse()`.
 */
export class RawClient {
  /** The socket (errors are swallowed: a server that cuts the connection is an outcome). */
  readonly socket: Socket
  /** Resolves once the socket closed. */
  readonly closed: Promise<void>
  private data = Buffer.alloc(0)
  private waiters: (() => void)[] = []
  /** Bytes the kernel accepted through `write()`. */
  sent = 0
  /** Whether the socket has closed. */
  isClosed = false

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1')
    this.socket.on('error', () => {})
    this.socket.on('data', (chunk: Buffer) => {
      this.data = Buffer.concat([this.data, chunk])
      this.wake()
    })
    this.closed = new Promise((resolve) =>
      this.socket.on('close', () => {
        this.isClosed = true
        this.wake()
        resolve()
      }),
    )
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w()
  }

  /** Writes (a string as latin1) and waits for the kernel to take it (false once the peer is gone). */
  async write(chunk: string | Uint8Array): Promise<boolean> {
    if (this.isClosed || this.socket.destroyed || !this.socket.writable) return false
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk
    const ok = await new Promise<boolean>((resolve) => {
      this.socket.write(bytes, (error) => resolve(!error))
    })
    if (ok) this.sent += bytes.byteLength
    return ok
  }

  /** Whether a complete response has arrived. */
  hasResponse(): boolean {
    return parseResponse(this.data) !== undefined
  }

  /** Resolves with the response once complete; rejects if the socket closed before that. */
  async response(): Promise<RawResponse> {
    for (;;) {
      const parsed = parseResponse(this.data)
      if (parsed) return parsed
      if (this.isClosed)
        throw new Error(`connection closed without a full response (${this.data.length} bytes)`)
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
  }

  /** Closes the socket. */
  destroy(): void {
    this.socket.destroy()
  }
}

/** A request head from its lines (`'POST / HTTP/1.1'`, `'host: x'`, ...), ending the head. */
export function head(lines: string[]): string {
  return `${lines.join('\r\n')}\r\n\r\n`
}

/** One chunk of `Transfer-Encoding: chunked` framing around `bytes` (a string as UTF-8). */
export function chunk(bytes: Uint8Array | string): Buffer {
  const b = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : Buffer.from(bytes)
  return Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')])
}

/**
 * Keeps sending `piece` (chunked framing when `chunked`) until a response arrives, the peer
 * closes, or `maxBytes` were sent. Returns the body bytes sent.
 */
export async function sendUntilAnswered(
  client: RawClient,
  piece: Uint8Array,
  maxBytes: number,
  chunked: boolean,
): Promise<number> {
  let sent = 0
  const framed = chunked ? chunk(piece) : Buffer.from(piece)
  while (sent < maxBytes && !client.hasResponse() && !client.isClosed) {
    if (!(await client.write(framed))) break
    sent += piece.byteLength
    await new Promise((resolve) => setImmediate(resolve))
  }
  return sent
}

/**
 * POSTs `body` to `http://127.0.0.1:<port><path>` in 64 KiB writes after a head of `headers`
 * (plus `host`, and `content-length` unless given, or chunked framing when `chunked`),
 * stopping once a response has arrived or the server closed; resolves with the response and
 * the body bytes sent. Rejects if the server closed without a full response.
 */
export async function rawPost(
  port: number,
  headers: Record<string, string>,
  body: Uint8Array,
  { chunked = false, path = '/mcp' }: { chunked?: boolean; path?: string } = {},
): Promise<RawResponse & { sent: number }> {
  const socket: Socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  let data = Buffer.alloc(0)
  let closed = false
  const waiters: (() => void)[] = []
  const wake = () => {
    for (const w of waiters.splice(0)) w()
  }
  socket.on('data', (piece: Buffer) => {
    data = Buffer.concat([data, piece])
    wake()
  })
  socket.on('close', () => {
    closed = true
    wake()
  })
  const all: Record<string, string> = { host: `127.0.0.1:${port}`, ...headers }
  if (chunked) all['transfer-encoding'] = 'chunked'
  else all['content-length'] ??= String(body.byteLength)
  const start = `POST ${path} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`
  const write = (b: Uint8Array) =>
    new Promise<boolean>((resolve) => {
      if (closed || socket.destroyed) return resolve(false)
      socket.write(b, (error) => resolve(!error))
    })
  await write(Buffer.from(start, 'latin1'))
  let sent = 0
  const step = 64 * 1024
  while (sent < body.byteLength && parseResponse(data) === undefined && !closed) {
    const piece = body.subarray(sent, sent + step)
    if (!(await write(chunked ? chunk(piece) : piece))) break
    sent += piece.byteLength
  }
  if (chunked && sent === body.byteLength) await write(Buffer.from('0\r\n\r\n'))
  for (;;) {
    const parsed = parseResponse(data)
    if (parsed !== undefined) {
      socket.destroy()
      return { ...parsed, sent }
    }
    if (closed) throw new Error(`connection closed without a full response (${data.length} bytes)`)
    await new Promise<void>((resolve) => waiters.push(resolve))
  }
}

/**
 * One POST of exactly `body` through node:http (supertest and fetch re-encode or drop what a
 * test sets: a Buffer sent as JSON, the `Host` header). `content-length` is the body's length.
 */
export function httpPost(
  port: number,
  path: string,
  body: Uint8Array,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { ...headers, 'content-length': body.byteLength },
      },
      (res) => {
        const parts: Buffer[] = []
        res.on('data', (c: Buffer) => parts.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers as Record<string, string>,
            body: Buffer.concat(parts).toString('utf8'),
          }),
        )
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}
