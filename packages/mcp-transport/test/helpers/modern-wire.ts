// Test helper: serving a handler on 127.0.0.1 and speaking raw HTTP to it, for the 2026-07-28
// tests: one POST with exact headers and body, or a head followed by an endless body that keeps
// coming until the server answers (and then some, to see whether the server still reads).
import type { IncomingMessage, ServerResponse } from 'node:http'
import { chunk, head, RawClient, type RawResponse } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'

const PIECE = new Uint8Array(64 * 1024).fill(0x20)
const FRAMED = chunk(PIECE)
// Past what the kernel buffers of one loopback connection (a few MiB): bytes accepted beyond
// it were read by the server.
const AFTER = 64 * 1024 * 1024

/** Serves `handler` on 127.0.0.1 (errors destroy the response); `close()` stops it. */
export async function serveHandler(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<Running> {
  return listen((req, res) => {
    handler(req, res).catch(() => res.destroy())
  })
}

/** One request of `method` with `headers` and `body`, read to its answer. */
export async function send(
  port: number,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array = '',
): Promise<RawResponse> {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body)
  const client = new RawClient(port)
  const lines = [`${method} /mcp HTTP/1.1`, `host: 127.0.0.1:${port}`]
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`)
  if (method !== 'GET' || bytes.byteLength > 0) lines.push(`content-length: ${bytes.byteLength}`)
  await client.write(Buffer.concat([Buffer.from(head(lines), 'utf8'), bytes]))
  const answer = await client.response()
  client.destroy()
  return answer
}

/**
 * A POST with `headers` (and `content-length: declared` when given, else chunked framing)
 * whose body starts with `start` and then never ends: 64 KiB pieces of spaces until the server
 * answers, then up to 64 MiB more. `after` is what the server still took after its answer.
 */
export async function sendEndless(
  port: number,
  headers: Record<string, string>,
  start: string,
  declared?: number,
): Promise<{ answer: RawResponse; after: number; closedByServer: boolean }> {
  const client = new RawClient(port)
  const lines = ['POST /mcp HTTP/1.1', `host: 127.0.0.1:${port}`]
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`)
  lines.push(declared === undefined ? 'transfer-encoding: chunked' : `content-length: ${declared}`)
  const frame = (bytes: Uint8Array) => (declared === undefined ? chunk(bytes) : Buffer.from(bytes))
  await client.write(head(lines))
  await client.write(frame(Buffer.from(start, 'utf8')))
  let sent = 0
  while (sent < AFTER && !client.hasResponse() && !client.isClosed) {
    if (!(await client.write(frame(PIECE)))) break
    sent += PIECE.byteLength
    await new Promise((resolve) => setImmediate(resolve))
  }
  const answer = await client.response()
  let after = 0
  const framed = declared === undefined ? FRAMED : Buffer.from(PIECE)
  while (after < AFTER && (await client.write(framed))) after += PIECE.byteLength
  const closedByServer = client.isClosed || !client.socket.writable
  client.destroy()
  return { answer, after, closedByServer }
}

/**
 * The JSON-RPC error of a refusal whose `id` is `id`: `null` (the default) for one answered
 * before the body was parsed, the request's id for one answered after.
 */
export function errorOf(
  answer: RawResponse,
  id: string | number | null = null,
): { code: number; message: string; data?: unknown } {
  const body = JSON.parse(answer.body)
  if (body.id !== id || body.error === undefined) {
    throw new Error(`not a refusal: ${answer.status} ${answer.body.slice(0, 200)}`)
  }
  return body.error
}
