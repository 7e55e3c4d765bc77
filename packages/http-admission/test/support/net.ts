// Test helpers: a real http.Server on 127.0.0.1 (port 0) and a raw TCP client that can keep
// sending while it reads the answer.
import { createServer, request as httpRequest, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connect, type Socket } from 'node:net'

export interface Running {
  readonly server: Server
  readonly port: number
  readonly url: string
  close(): Promise<void>
}

export async function listen(handler: RequestListener | Server): Promise<Running> {
  const server = typeof handler === 'function' ? createServer(handler) : handler
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

/**
 * A raw client: writes `head`, then whatever `send` writes, and collects the answer. The
 * response is parsed once the socket closes or the head plus Content-Length bytes arrived.
 */
export class RawClient {
  readonly socket: Socket
  readonly closed: Promise<void>
  private data = Buffer.alloc(0)
  private waiters: (() => void)[] = []
  sent = 0
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

  /** Writes and waits for the kernel to take it (false once the peer is gone). */
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
    return parse(this.data) !== undefined
  }

  /** Resolves with the response once complete (or the socket closed). */
  async response(): Promise<RawResponse> {
    for (;;) {
      const parsed = parse(this.data)
      if (parsed) return parsed
      if (this.isClosed)
        throw new Error(`connection closed without a full response (${this.data.length} bytes)`)
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
  }

  destroy(): void {
    this.socket.destroy()
  }
}

function parse(data: Buffer): RawResponse | undefined {
  const end = data.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const lines = data.subarray(0, end).toString('latin1').split('\r\n')
  const status = Number(lines[0]?.split(' ')[1])
  const headers: Record<string, string> = {}
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':')
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim()
  }
  const length = Number(headers['content-length'] ?? 0)
  if (data.length < end + 4 + length) return undefined
  return { status, headers, body: data.subarray(end + 4, end + 4 + length).toString('utf8') }
}

export function head(lines: string[]): string {
  return `${lines.join('\r\n')}\r\n\r\n`
}

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

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `check()` is true, polling (no timing assertion: the test timeout bounds it). */
export async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(5)
}

/** One POST with exact bytes through node:http (supertest re-encodes a Buffer sent as JSON). */
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
