// A refusal whose response is queued behind a pipelined request, on a real http.Server on
// 127.0.0.1. Node gives a queued response no socket (`res.socket` is null) until the responses
// before it have finished; the lingering close must still be set up then, or Node's own close
// of a last response (FIN, then destroy) resets the client still sending the refused body, and
// the client loses every answer it had not read yet.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { connect, type Socket } from 'node:net'
import { parseResponse, type RawResponse } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import { admission, bodyAdmission } from '../src/index.js'
import { LINGER_LIMITS } from '../src/respond.js'
import { until } from './helpers/wait.js'

const LIMIT = 1024
// The rest of the refused body the client sends once the answers are out: within the
// lingering close's 1 MiB, so all of it is read and none of it meets a closed socket.
const BODY = 256 * 1024

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

type Refuse = (req: IncomingMessage, res: ServerResponse, reached: () => void) => void

/**
 * Serves `GET /first`, answered only once the refusal of the pipelined `POST /second` was
 * given (so the refusal is queued behind it), and `POST /second` through `refuse`. Records
 * whether `/second`'s response had a socket when its handler ran, and the handler's sentinel.
 */
async function serve(refuse: Refuse) {
  const state = {
    reached: 0,
    queued: [] as boolean[],
    second: undefined as { req: IncomingMessage; res: ServerResponse } | undefined,
  }
  let refused: () => void = () => {}
  const refusalGiven = new Promise<void>((resolve) => {
    refused = resolve
  })
  running = await listen((req, res) => {
    if (req.url === '/first') {
      refusalGiven.then(() => res.end('first'))
      return
    }
    state.second = { req, res }
    state.queued.push(res.socket === null)
    refuse(req, res, () => state.reached++)
    until(() => res.writableEnded).then(refused)
  })
  return { state, port: running.port }
}

/** What the client read before its connection ended, and the error it saw, if any. */
interface Outcome {
  readonly responses: RawResponse[]
  readonly received: string
  readonly error: string | undefined
}

/**
 * Pipelines `GET /first` and `POST /second` (declaring `BODY` bytes) on one connection
 * without reading, waits until the server has sent `/second`'s answer and its FIN, then
 * uploads the body, as a client that writes its whole request before reading does, and only
 * then reads what arrived.
 */
async function pipeline(port: number, serverSocket: () => Socket | undefined): Promise<Outcome> {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true })
  socket.pause()
  let data = Buffer.alloc(0)
  let error: string | undefined
  socket.on('data', (chunk: Buffer) => {
    data = Buffer.concat([data, chunk])
  })
  socket.on('error', (e: NodeJS.ErrnoException) => {
    error = e.code ?? e.message
  })
  const ended = new Promise<void>((resolve) => {
    socket.once('end', resolve)
    socket.once('close', resolve)
  })
  socket.write(
    'GET /first HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' +
      'POST /second HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${BODY}\r\n\r\n`,
  )
  await until(() => serverSocket()?.writableFinished === true)
  const piece = Buffer.alloc(16 * 1024, 0x20)
  for (let sent = 0; sent < BODY; sent += piece.byteLength) {
    const ok = await new Promise<boolean>((resolve) => socket.write(piece, (e) => resolve(!e)))
    if (!ok) break
  }
  socket.resume()
  await ended
  socket.destroy()
  return { responses: splitResponses(data), received: data.toString('latin1'), error }
}

/** The complete responses in `data`, in order. */
function splitResponses(data: Buffer): RawResponse[] {
  const out: RawResponse[] = []
  let rest = data
  for (;;) {
    const parsed = parseResponse(rest)
    if (parsed === undefined) return out
    out.push(parsed)
    const headEnd = rest.indexOf('\r\n\r\n') + 4
    rest = rest.subarray(headEnd + Number(parsed.headers['content-length'] ?? 0))
  }
}

describe('a refusal queued behind a pipelined request', () => {
  it('reaches a client still uploading the refused body: 413 with its code and limit, after the first answer', async () => {
    expect(BODY).toBeLessThan(LINGER_LIMITS.lingerBytes)
    const middleware = admission(bodyAdmission({ maxBytes: LIMIT }))
    const { state, port } = await serve((req, res, reached) => {
      middleware(req, res, () => {
        reached()
        res.end('handled')
      })
    })
    const outcome = await pipeline(port, () => state.second?.req.socket)
    // The refusal was queued: its response had no socket when it was given.
    expect(state.queued).toEqual([true])
    expect(outcome.error).toBeUndefined()
    expect(outcome.responses).toHaveLength(2)
    const [first, second] = outcome.responses
    expect(first?.status).toBe(200)
    expect(first?.body).toBe('first')
    expect(second?.status).toBe(413)
    expect(second?.headers.connection).toBe('close')
    const problem = JSON.parse(second?.body ?? '{}') as { code?: string; limit?: number }
    expect(problem.code).toBe('ERR_BODY_TOO_LARGE')
    expect(problem.limit).toBe(LIMIT)
    expect(state.reached).toBe(0)
  })

  it('control: the same refusal closed the plain way (Connection: close, no lingering close) is lost to a reset', async () => {
    // What closeAfterResponse did for a queued response before: the header, and Node's close.
    const { state, port } = await serve((_req, res) => {
      res.statusCode = 413
      res.setHeader('Connection', 'close')
      res.setHeader('Content-Type', 'application/problem+json')
      res.end(JSON.stringify({ code: 'ERR_BODY_TOO_LARGE', limit: LIMIT }))
    })
    const outcome = await pipeline(port, () => state.second?.req.socket)
    expect(state.queued).toEqual([true])
    expect(['EPIPE', 'ECONNRESET']).toContain(outcome.error)
    expect(outcome.received).not.toContain('ERR_BODY_TOO_LARGE')
  })
})
