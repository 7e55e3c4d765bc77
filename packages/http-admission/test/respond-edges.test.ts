// sendRefusal, refuseUnread and closeAfterResponse at their edges, on a real http.Server on
// 127.0.0.1: a client abort has no one to answer, a response already under way is cut rather
// than answered twice, a finished response is left alone (no throw from a late call), and the
// lingering close reads the rest of a body up to its bound so the answer is not lost to a reset.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { connect } from 'node:net'
import { AdmissionError } from '@tollgate/json-budget'
import { head, parseResponse, RawClient } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import { closeAfterResponse, refuseUnread, sendRefusal } from '../src/index.js'
import { LINGER_LIMITS } from '../src/respond.js'
import { until } from './helpers/wait.js'

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

/** Serves `handler`; records every exception it throws and each socket's bytesRead at close. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const state = { thrown: [] as unknown[], bytesRead: [] as number[] }
  running = await listen((req, res) => {
    req.socket.once('close', () => state.bytesRead.push(req.socket.bytesRead))
    try {
      handler(req, res)
    } catch (error) {
      state.thrown.push(error)
    }
  })
  return { state, port: running.port }
}

/** Sends a GET and collects everything the server sent until it closed the connection. */
async function getAll(port: number): Promise<string> {
  const client = new RawClient(port)
  let received = ''
  client.socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1')
  })
  await client.write(head(['GET / HTTP/1.1', 'Host: 127.0.0.1']))
  await client.closed
  return received
}

/**
 * A raw client that keeps its half of the connection open after the server's FIN (it never
 * answers it), collecting what it receives.
 */
function halfOpenClient(port: number) {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true })
  socket.on('error', () => {})
  const chunks: Buffer[] = []
  let ended = false
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  socket.once('end', () => {
    ended = true
  })
  return { socket, received: () => Buffer.concat(chunks), ended: () => ended }
}

/**
 * Sends a next request on the half-open client's connection and holds that it was never served:
 * either the server's socket is gone (its bytesRead recorded at close) or the request reached a
 * handler, which must not happen.
 */
async function servesNothingMore(
  client: ReturnType<typeof halfOpenClient>,
  state: { bytesRead: number[] },
  handled: string[],
  first: string,
) {
  client.socket.write(head(['GET /second HTTP/1.1', 'Host: 127.0.0.1']))
  await until(() => state.bytesRead.length === 1 || handled.length > 1)
  client.socket.destroy()
  expect(handled).toEqual([first])
  expect(state.bytesRead).toHaveLength(1)
}

describe('sendRefusal', () => {
  it('answers nothing to a client abort (ERR_BODY_ABORTED): the socket is destroyed', async () => {
    const { state, port } = await serve((_req, res) => {
      sendRefusal(res, new AdmissionError('ERR_BODY_ABORTED'))
    })
    expect(await getAll(port)).toBe('')
    expect(state.thrown).toEqual([])
  })

  it('cuts a response whose headers were already sent, writing no second status, and does not throw', async () => {
    const { state, port } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' })
      res.write('partial')
      sendRefusal(res, new AdmissionError('ERR_BODY_TOO_LARGE', { limit: 4 }))
    })
    // Whatever of the 200 was flushed before the cut, no refusal follows it.
    const received = await getAll(port)
    expect(received).not.toContain('413')
    expect(received).not.toContain('ERR_BODY_TOO_LARGE')
    expect(state.thrown).toEqual([])
  })

  it('does nothing, and throws nothing, on a response that already finished (sendRefusal and refuseUnread)', async () => {
    const late: unknown[] = []
    const { state, port } = await serve((_req, res) => {
      res.once('finish', () => {
        try {
          sendRefusal(res, new AdmissionError('ERR_BODY_TOO_LARGE', { limit: 4 }))
          refuseUnread(res, 401)
        } catch (error) {
          late.push(error)
        }
      })
      res.end('done')
    })
    const client = new RawClient(port)
    await client.write(head(['GET / HTTP/1.1', 'Host: 127.0.0.1']))
    const answer = await client.response()
    expect(answer.status).toBe(200)
    expect(answer.body).toBe('done')
    client.destroy()
    await until(() => state.bytesRead.length === 1)
    expect(late).toEqual([])
    expect(state.thrown).toEqual([])
  })
})

describe('refuseUnread', () => {
  it('answers an empty body with Content-Length: 0 when given none', async () => {
    const { port } = await serve((_req, res) => refuseUnread(res, 404))
    const client = new RawClient(port)
    await client.write(head(['GET /missing HTTP/1.1', 'Host: 127.0.0.1']))
    const answer = await client.response()
    expect(answer.status).toBe(404)
    expect(answer.headers['content-length']).toBe('0')
    expect(answer.body).toBe('')
    await client.closed
  })
})

describe('closeAfterResponse', () => {
  it('still answers and then closes the connection when the headers were already sent', async () => {
    const { state, port } = await serve((req, res) => {
      // Answered once the request is complete: the close is a plain one, not a linger.
      req.resume()
      req.once('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' })
        closeAfterResponse(res)
        res.end('ok')
      })
    })
    // The head went out as keep-alive: with Node's keep-alive timeout out of the way, only
    // closeAfterResponse can close this connection before the test's deadline.
    if (running) running.server.keepAliveTimeout = 120_000
    const client = new RawClient(port)
    await client.write(head(['GET / HTTP/1.1', 'Host: 127.0.0.1']))
    const answer = await client.response()
    expect(answer.status).toBe(200)
    expect(answer.body).toBe('ok')
    await client.closed
    expect(state.thrown).toEqual([])
  })

  it('reads and discards the rest of a body within lingerBytes after the answer, so the client gets it', async () => {
    // 768 KiB, under the 1 MiB bound: the lingering close reads all of it after the 401
    // rather than resetting the connection under a client still sending.
    const size = 768 * 1024
    expect(size).toBeLessThan(LINGER_LIMITS.lingerBytes)
    const { state, port } = await serve((_req, res) => refuseUnread(res, 401, 'no'))
    const client = new RawClient(port)
    await client.write(
      head(['POST /upload HTTP/1.1', 'Host: 127.0.0.1', `Content-Length: ${size}`]),
    )
    expect(await client.write(Buffer.alloc(size, 0x20))).toBe(true)
    const answer = await client.response()
    expect(answer.status).toBe(401)
    expect(answer.headers.connection).toBe('close')
    await client.closed
    await until(() => state.bytesRead.length === 1)
    expect(state.bytesRead[0]).toBeGreaterThanOrEqual(size)
  })

  it('never serves a request sent after the lingered body ended: the connection is gone', async () => {
    const handled: string[] = []
    const { port } = await serve((req, res) => {
      handled.push(req.url ?? '')
      refuseUnread(res, 401, 'no')
    })
    const client = new RawClient(port)
    await client.write(head(['POST /first HTTP/1.1', 'Host: 127.0.0.1', 'Content-Length: 10']))
    expect((await client.response()).status).toBe(401)
    // The body arrives after the answer (so the close lingers), then, once it had time to be
    // read, a second request on the same connection.
    await client.write('0123456789')
    await new Promise((resolve) => setTimeout(resolve, 300))
    await client.write(head(['GET /second HTTP/1.1', 'Host: 127.0.0.1']))
    await client.closed
    expect(handled).toEqual(['/first'])
  })

  it('never serves a request a half-open client sends once the lingered body ended', async () => {
    // The answer goes before the body; the client keeps its half open after the FIN, sends
    // the body, and once the server has read it to its end, another request: never served.
    const handled: string[] = []
    const progress = { bodyEnded: false }
    const { state, port } = await serve((req, res) => {
      handled.push(req.url ?? '')
      req.once('end', () => {
        progress.bodyEnded = true
      })
      refuseUnread(res, 401, 'no')
    })
    const client = halfOpenClient(port)
    client.socket.write(head(['POST /first HTTP/1.1', 'Host: 127.0.0.1', 'Content-Length: 10']))
    await until(client.ended)
    expect(parseResponse(client.received())?.status).toBe(401)
    client.socket.write('0123456789')
    await until(() => progress.bodyEnded)
    await servesNothingMore(client, state, handled, '/first')
  })

  it('never serves a request a half-open client sends after the FIN, when the head had gone out keep-alive', async () => {
    // Node closes the connection of a response whose head said Connection: close itself; after
    // a keep-alive head only closeAfterResponse does. A client that keeps its half of the
    // connection open (it never answers the FIN) and sends another request must not be served.
    const handled: string[] = []
    const { state, port } = await serve((req, res) => {
      handled.push(req.url ?? '')
      req.resume()
      req.once('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' })
        closeAfterResponse(res)
        res.end('ok')
      })
    })
    if (running) running.server.keepAliveTimeout = 120_000
    const client = halfOpenClient(port)
    client.socket.write(head(['GET /first HTTP/1.1', 'Host: 127.0.0.1']))
    await until(client.ended)
    expect(parseResponse(client.received())?.status).toBe(200)
    // The client's half is still open: it sends a next request on it.
    await servesNothingMore(client, state, handled, '/first')
  })

  it('delivers a large answer whole when the unread body ends while it is being written, then serves nothing more', async () => {
    // An answer larger than the loopback buffers, given before the body was read, to a client
    // that sends its short body before reading anything: the body ends while the answer is
    // still being written, and the lingering close must wait for the answer to be out. The
    // client keeps its half open after the FIN and sends another request: never served.
    const size = 16 * 1024 * 1024
    const answer = Buffer.alloc(size, 0x61)
    const handled: string[] = []
    const progress = { answered: false, ended: false, endedWhileWriting: false }
    const { state, port } = await serve((req, res) => {
      handled.push(req.url ?? '')
      req.once('end', () => {
        progress.ended = true
        progress.endedWhileWriting = !res.writableFinished
      })
      res.setHeader('content-type', 'application/octet-stream')
      closeAfterResponse(res)
      res.end(answer)
      progress.answered = true
    })
    const client = halfOpenClient(port)
    // Read nothing until the body has ended, so the answer is still being written then.
    client.socket.pause()
    client.socket.write(head(['POST /upload HTTP/1.1', 'Host: 127.0.0.1', 'Content-Length: 10']))
    await until(() => progress.answered)
    client.socket.write('0123456789')
    await until(() => progress.ended)
    expect(progress.endedWhileWriting).toBe(true)
    client.socket.resume()
    await until(client.ended)
    const response = parseResponse(client.received())
    expect(response?.status).toBe(200)
    expect(response?.headers.connection).toBe('close')
    expect(response?.body.length).toBe(size)
    await servesNothingMore(client, state, handled, '/upload')
  })

  it('delivers a large answer whole when the body passes lingerBytes, ending, while the answer is still being written', async () => {
    // The body (1 MiB and 1 byte) passes the linger's bound while a 16 MiB answer is still
    // being written to a client that reads nothing yet: reading stops there, but the socket
    // may go only once the answer is out, never before (the whole body was read, so nothing
    // is left to reset the connection).
    const size = 16 * 1024 * 1024
    const answer = Buffer.alloc(size, 0x61)
    const bodySize = LINGER_LIMITS.lingerBytes + 1
    const progress = { answered: false, seen: 0, passedWhileWriting: false }
    const { port } = await serve((req, res) => {
      req.on('data', (chunk: Buffer) => {
        progress.seen += chunk.byteLength
        if (progress.seen > LINGER_LIMITS.lingerBytes)
          progress.passedWhileWriting = !res.writableFinished
      })
      res.setHeader('content-type', 'application/octet-stream')
      closeAfterResponse(res)
      res.end(answer)
      progress.answered = true
    })
    const socket = connect({ port, host: '127.0.0.1' })
    socket.on('error', () => {})
    socket.pause()
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    const closed = new Promise((resolve) => socket.once('close', resolve))
    socket.write(head(['POST /upload HTTP/1.1', 'Host: 127.0.0.1', `Content-Length: ${bodySize}`]))
    await until(() => progress.answered)
    const piece = Buffer.alloc(64 * 1024, 0x20)
    for (let sent = 0; sent < bodySize - 1; sent += piece.byteLength) socket.write(piece)
    socket.write('x')
    await until(() => progress.seen > LINGER_LIMITS.lingerBytes)
    expect(progress.passedWhileWriting).toBe(true)
    socket.resume()
    await closed
    const response = parseResponse(Buffer.concat(chunks))
    expect(response?.status).toBe(200)
    expect(response?.body.length).toBe(size)
  })
})
