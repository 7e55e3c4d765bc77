// Test helper: a real http.Server on 127.0.0.1 (port 0) and a raw TCP client that keeps
// sending a body while it watches for the answer (a refusal may come before the body ends).
import { createServer, type RequestListener, type Server } from 'node:http'
import { type AddressInfo, connect, type Socket } from 'node:net'

export interface Running {
  readonly port: number
  readonly url: string
  close(): Promise<void>
}

export async function listen(handler: RequestListener | Server): Promise<Running> {
  const server = typeof handler === 'function' ? createServer(handler) : handler
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    url: `http://127.0.0.1:${port}/mcp`,
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
 * Sends `headers` then `body` in 64 KiB writes (chunked framing when `chunked`), stopping once
 * a response has arrived or the server closed; resolves with the response.
 */
export async function rawPost(
  port: number,
  headers: Record<string, string>,
  body: Uint8Array,
  { chunked = false }: { chunked?: boolean } = {},
): Promise<RawResponse & { sent: number }> {
  const socket: Socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  let data = Buffer.alloc(0)
  let closed = false
  const waiters: (() => void)[] = []
  const wake = () => {
    for (const w of waiters.splice(0)) w()
  }
  socket.on('data', (chunk: Buffer) => {
    data = Buffer.concat([data, chunk])
    wake()
  })
  socket.on('close', () => {
    closed = true
    wake()
  })
  const all: Record<string, string> = { host: `127.0.0.1:${port}`, ...headers }
  if (chunked) all['transfer-encoding'] = 'chunked'
  else all['content-length'] ??= String(body.byteLength)
  const head = `POST /mcp HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`
  const write = (b: Uint8Array) =>
    new Promise<boolean>((resolve) => {
      if (closed || socket.destroyed) return resolve(false)
      socket.write(b, (error) => resolve(!error))
    })
  await write(Buffer.from(head, 'latin1'))
  let sent = 0
  const step = 64 * 1024
  while (sent < body.byteLength && parse(data) === undefined && !closed) {
    const piece = body.subarray(sent, sent + step)
    const framed = chunked
      ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
      : piece
    if (!(await write(framed))) break
    sent += piece.byteLength
  }
  if (chunked && sent === body.byteLength) await write(Buffer.from('0\r\n\r\n'))
  for (;;) {
    const parsed = parse(data)
    if (parsed !== undefined) {
      socket.destroy()
      return { ...parsed, sent }
    }
    if (closed) throw new Error(`connection closed without a full response (${data.length} bytes)`)
    await new Promise<void>((resolve) => waiters.push(resolve))
  }
}

/** Parses one HTTP/1.1 response from `data`, or `undefined` while it is incomplete. */
export function parse(data: Buffer): RawResponse | undefined {
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
