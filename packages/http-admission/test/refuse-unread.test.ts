import type { IncomingMessage, ServerResponse } from 'node:http'
import { chunk, head, RawClient, sendUntilAnswered } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import { refuseUnread } from '../src/index.js'
import { LINGER_LIMITS } from '../src/respond.js'
import { until } from './helpers/wait.js'

// An app that answers from the head alone (401 here) while the client streams an endless
// chunked body. With refuseUnread the connection is closed unread after a bounded linger; with
// a plain res.end() (the control removed) Node keeps the connection and reads and discards the
// body for as long as the client sends.
const PIECE = new Uint8Array(64 * 1024).fill(0x20)
const FRAMED = chunk(PIECE)
const CAP = 64 * 1024 * 1024
// Past anything the kernel buffers of one loopback connection can absorb (a few MiB), so
// bytes accepted beyond it were read by the server.
const AFTER = 64 * 1024 * 1024

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

/** Serves `handler`, recording each request socket's bytesRead when it closes. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const state = { handled: 0, bytesRead: [] as number[] }
  running = await listen((req, res) => {
    state.handled++
    req.socket.once('close', () => state.bytesRead.push(req.socket.bytesRead))
    handler(req, res)
  })
  return { state, port: running.port }
}

async function stream(port: number) {
  const client = new RawClient(port)
  await client.write(
    head([
      'POST /x HTTP/1.1',
      'Host: 127.0.0.1',
      'Transfer-Encoding: chunked',
      'Content-Type: application/json',
    ]),
  )
  const sent = await sendUntilAnswered(client, PIECE, CAP, true)
  const answer = await client.response()
  // Keep sending (well-framed chunks) after the answer: a closed connection refuses more
  // within a bounded number of writes, a drained one takes them all.
  let after = 0
  while (after < AFTER && (await client.write(FRAMED))) after += PIECE.byteLength
  const closedByServer = client.isClosed || !client.socket.writable
  client.destroy()
  return { answer, sent, after, closedByServer }
}

describe('refuseUnread', () => {
  it('answers the status with Connection: close and closes the socket without reading the body', async () => {
    const { state, port } = await serve((_req, res) => {
      refuseUnread(res, 401, '{"error":"unauthorized"}', {
        'content-type': 'application/json',
        'www-authenticate': 'Bearer',
      })
    })
    const { answer, sent, after, closedByServer } = await stream(port)
    expect(answer.status).toBe(401)
    expect(answer.headers.connection).toBe('close')
    expect(answer.headers['www-authenticate']).toBe('Bearer')
    expect(answer.body).toBe('{"error":"unauthorized"}')
    expect(closedByServer).toBe(true)
    expect(after).toBeLessThan(16 * 1024 * 1024)
    // The server read what arrived before its answer plus at most the linger's discard (and
    // one socket read of slack), not the endless rest.
    await until(() => state.bytesRead.length === 1)
    expect(state.bytesRead[0]).toBeLessThan(sent + LINGER_LIMITS.lingerBytes + 1024 * 1024)
  })

  it('control: a plain res.end() lets Node keep reading the endless body', async () => {
    const { state, port } = await serve((_req, res: ServerResponse) => {
      res.statusCode = 401
      res.end('{"error":"unauthorized"}')
    })
    const { answer, after, closedByServer } = await stream(port)
    expect(answer.status).toBe(401)
    expect(answer.headers.connection).not.toBe('close')
    // 64 MiB more taken after the answer: far past the kernel buffers, so the server read it.
    expect(after).toBe(AFTER)
    expect(closedByServer).toBe(false)
    await until(() => state.bytesRead.length === 1)
    expect(state.bytesRead[0]).toBeGreaterThan(AFTER - 8 * 1024 * 1024)
  })

  it('lets a client that sends its whole body before reading receive the answer', async () => {
    // The client writes 256 KiB of body and only then reads: the response must still be there
    // (no reset drops it), and the handler's answer came from the head alone.
    const { port } = await serve((_req, res) => refuseUnread(res, 404, 'not found'))
    const client = new RawClient(port)
    const body = Buffer.alloc(256 * 1024, 0x20)
    await client.write(
      head(['POST /missing HTTP/1.1', 'Host: 127.0.0.1', `Content-Length: ${body.length}`]),
    )
    await client.write(body)
    const answer = await client.response()
    expect(answer.status).toBe(404)
    expect(answer.body).toBe('not found')
    await client.closed
  })

  it('answers and closes when a small body ends while the answer is being written', async () => {
    const { state, port } = await serve((_req, res) => refuseUnread(res, 401, 'no'))
    for (let i = 0; i < 20; i++) {
      const client = new RawClient(port)
      await client.write(
        `${head(['POST /a HTTP/1.1', 'Host: 127.0.0.1', 'Content-Length: 10'])}0123456789`,
      )
      const answer = await client.response()
      expect(answer.status).toBe(401)
      expect(answer.body).toBe('no')
      await client.closed
    }
    expect(state.handled).toBe(20)
  })

  it('destroys the socket when headers were already sent', async () => {
    running = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.write('partial')
      refuseUnread(res, 500)
    })
    const client = new RawClient(running.port)
    await client.write(head(['GET / HTTP/1.1', 'Host: 127.0.0.1']))
    await client.closed
    expect(client.isClosed).toBe(true)
  })
})
