// Through a real http.Server on 127.0.0.1: requests the SDK answers without reading their body
// (a GET, HEAD, DELETE or PUT it does not serve) followed by an endless chunked body. In front of
// the SDK, mcpHttpHandler refuses a non-POST that declares a body unread, and any SDK error
// answer ends in the bounded lingering close; the SDK alone answers and lets Node drain the
// body for as long as the client sends.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { createInFlightBudget } from '@tollgate/http-admission'
import { chunk, head, RawClient, rawPost } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { MCP_POST_HEADERS } from '@tollgate/test-kit/mcp-initialize'
import { afterEach, describe, expect, it } from 'vitest'
import {
  closeEarlyAnswers,
  createMcpHttpAdmission,
  mcpBodyAdmission,
  mcpHttpHandler,
} from '../src/index.js'
import { echoTarget } from './helpers/echo-target.js'

const MiB = 1024 * 1024
const PIECE = chunk(new Uint8Array(64 * 1024).fill(0x20))
// Far past what the kernel buffers of one loopback connection absorb (a few MiB): a server
// that took all of it read it.
const ATTACK_BYTES = 48 * MiB
// What a closed connection may have read: the 1 MiB linger, a few buffered chunks, the head.
const READ_BOUND = 4 * MiB

let running: Running[] = []
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()))
  running = []
})

type Handler = (req: IncomingMessage, res: ServerResponse) => void

/** Serves `handler` on /mcp, keeping every accepted socket so its `bytesRead` can be read. */
async function serve(handler: Handler) {
  const sockets: Socket[] = []
  const server = await listen(handler, { path: '/mcp' })
  server.server.on('connection', (s: Socket) => sockets.push(s))
  running.push(server)
  return { server, sockets }
}

/**
 * Sends `method` with a chunked body and keeps sending after any answer, until the server
 * closes or `ATTACK_BYTES` were accepted; returns the answer's status (if one arrived) and
 * whether the server closed the connection.
 */
async function endlessBody(
  port: number,
  method: string,
  accept = 'application/json, text/event-stream',
) {
  const client = new RawClient(port)
  await client.write(
    head([
      `${method} /mcp HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      `Accept: ${accept}`,
      'Content-Type: application/json',
      'Transfer-Encoding: chunked',
    ]),
  )
  let sent = 0
  while (sent < ATTACK_BYTES && (await client.write(PIECE))) sent += PIECE.byteLength
  const closedByServer = client.isClosed || !client.socket.writable
  const answered = client.hasResponse() ? (await client.response()).status : undefined
  client.destroy()
  return { sent, closedByServer, answered }
}

/** Sends a head with a chunked body, stops at the answer (RFC 9112 §9.5), returns the answer. */
async function politeBody(port: number, method: string) {
  const client = new RawClient(port)
  await client.write(
    head([
      `${method} /mcp HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      'Accept: application/json, text/event-stream',
      'Transfer-Encoding: chunked',
    ]),
  )
  while (!client.hasResponse() && !client.isClosed && (await client.write(PIECE))) {}
  const answer = await client.response()
  await client.closed
  return answer
}

const CALL = Buffer.from(
  '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}',
)

function tollgate() {
  const { seen, target } = echoTarget()
  const handler = mcpHttpHandler(
    target,
    createMcpHttpAdmission({
      body: mcpBodyAdmission({ budget: createInFlightBudget(64 * MiB) }),
    }),
  )
  return { seen, handler: ((req, res) => void handler(req, res)) as Handler }
}

describe('mcpHttpHandler', () => {
  for (const method of ['GET', 'HEAD', 'DELETE', 'PUT']) {
    it(`refuses a ${method} with an endless body unread (413, limit 0), reading a bounded number of bytes`, async () => {
      const { seen, handler } = tollgate()
      const { server, sockets } = await serve(handler)
      const attacks = await Promise.all([1, 2, 3].map(() => endlessBody(server.port, method)))
      for (const attack of attacks) {
        expect(attack.closedByServer).toBe(true)
        expect(attack.sent).toBeLessThan(ATTACK_BYTES)
      }
      for (const s of sockets) expect(s.bytesRead).toBeLessThan(READ_BOUND)
      // Nothing was built for the refused requests.
      expect(seen.transports).toBe(0)
    })
  }

  it('answers a client that stops sending once answered: 413 with ERR_BODY_TOO_LARGE, limit 0', async () => {
    const { seen, handler } = tollgate()
    const { server } = await serve(handler)
    const answer = await politeBody(server.port, 'GET')
    expect(answer.status).toBe(413)
    expect(answer.headers.connection).toBe('close')
    expect(JSON.parse(answer.body).error.data).toEqual({ code: 'ERR_BODY_TOO_LARGE', limit: 0 })
    expect(seen.transports).toBe(0)
  })

  it('serves a legitimate POST while endless GET bodies are being refused', async () => {
    const { seen, handler } = tollgate()
    const { server } = await serve(handler)
    const attacks = [1, 2, 3, 4].map(() => endlessBody(server.port, 'GET'))
    const served = await rawPost(server.port, MCP_POST_HEADERS, CALL)
    expect(served.status).toBe(200)
    expect(JSON.parse(served.body).result.content[0].text).toBe('len:2')
    for (const attack of await Promise.all(attacks)) expect(attack.closedByServer).toBe(true)
    expect(seen.echo).toBe(1)
  })

  it('still passes a bodyless GET and DELETE to the SDK (Content-Length: 0 is no body)', async () => {
    const { seen, handler } = tollgate()
    const { server } = await serve(handler)
    const del = await fetch(server.url, { method: 'DELETE', headers: { 'content-length': '0' } })
    expect(del.status).toBe(200)
    expect(seen.transports).toBe(1)
  })
})

describe('mcpHttpHandler controls removed (the SDK alone)', () => {
  it('lets Node drain an endless GET body the SDK answered: every byte read, the connection kept', async () => {
    const { target } = echoTarget()
    const { server, sockets } = await serve((req, res) => {
      void target().then((t) => t.handleRequest(req, res))
    })
    // A GET that does not accept an event stream: the SDK answers 406 at once.
    const attack = await endlessBody(server.port, 'GET', 'application/json')
    expect(attack.closedByServer).toBe(false)
    expect(attack.sent).toBeGreaterThanOrEqual(ATTACK_BYTES)
    expect(attack.answered).toBeGreaterThanOrEqual(400)
    const read = sockets.reduce((n, s) => n + s.bytesRead, 0)
    expect(read).toBeGreaterThan(ATTACK_BYTES / 2)
  })
})

describe('closeEarlyAnswers', () => {
  const answerEarly =
    (close: boolean): Handler =>
    (req, res) => {
      if (close) closeEarlyAnswers(req, res)
      // An answer written with the body unread, as the SDK writes its 405.
      res.writeHead(405, { 'content-type': 'application/json' }).end('{}')
    }

  it('closes an answer written before the body was read, reading a bounded number of bytes', async () => {
    const { server, sockets } = await serve(answerEarly(true))
    const attack = await endlessBody(server.port, 'POST')
    expect(attack.closedByServer).toBe(true)
    for (const s of sockets) expect(s.bytesRead).toBeLessThan(READ_BOUND)
    const answer = await politeBody(server.port, 'POST')
    expect(answer.status).toBe(405)
    expect(answer.headers.connection).toBe('close')
  })

  it('control: without it, Node drains the body behind the early answer', async () => {
    const { server } = await serve(answerEarly(false))
    const attack = await endlessBody(server.port, 'POST')
    expect(attack.closedByServer).toBe(false)
    expect(attack.sent).toBeGreaterThanOrEqual(ATTACK_BYTES)
  })
})
