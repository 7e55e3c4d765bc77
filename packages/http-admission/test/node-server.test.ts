import type { IncomingMessage, ServerResponse } from 'node:http'
import { gzipSync } from 'node:zlib'
import { chunk, head, RawClient, sendUntilAnswered } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type AdmitResult,
  admitNodeRequest,
  type BodyAdmissionOptions,
  bodyAdmission,
  createInFlightBudget,
  sendRefusal,
} from '../src/index.js'
import { sleep, until } from './helpers/wait.js'

const MARKER = 'MARKER-7f3a-secret-token'
let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

/** A server whose handler runs only for admitted bodies (the sentinel), recording every result. */
async function serve(options: BodyAdmissionOptions) {
  const body = bodyAdmission(options)
  const state = { handled: 0, results: [] as AdmitResult[], bytesRead: [] as number[] }
  running = await listen(async (req: IncomingMessage, res: ServerResponse) => {
    const result = await admitNodeRequest(req, body)
    state.results.push(result)
    req.socket.once('close', () => state.bytesRead.push(req.socket.bytesRead))
    if (!result.ok) {
      sendRefusal(res, result.error)
      return
    }
    state.handled++
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ value: result.value ?? null, skipped: result.skipped ?? null }))
  })
  return { ...state, state, port: running.port }
}

function post(port: number, extra: string[] = [], path = '/') {
  const client = new RawClient(port)
  return {
    client,
    start: (lines: string[]) =>
      client.write(head([`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...extra, ...lines])),
  }
}

describe('admitNodeRequest', () => {
  it('answers 413 to a chunked body over the cap before the client finishes sending, and closes', async () => {
    const { state, port } = await serve({
      maxBytes: 64 * 1024,
      budget: createInFlightBudget(1 << 24),
    })
    const { client, start } = post(port)
    await start(['Content-Type: application/json', 'Transfer-Encoding: chunked'])
    await client.write(chunk(`["${MARKER}`))
    const planned = 32 * 1024 * 1024
    const sent = await sendUntilAnswered(client, Buffer.alloc(16 * 1024, 0x61), planned, true)
    const response = await client.response()
    expect(response.status).toBe(413)
    expect(response.headers.connection).toBe('close')
    expect(JSON.parse(response.body)).toMatchObject({
      code: 'ERR_BODY_TOO_LARGE',
      limit: 64 * 1024,
      status: 413,
    })
    expect(response.body).not.toContain(MARKER)
    expect(sent).toBeLessThan(planned)
    await client.closed
    await until(() => state.bytesRead.length === 1)
    // The server stopped reading: far less than was planned ever left the kernel buffers.
    expect(state.bytesRead[0]).toBeLessThan(8 * 1024 * 1024)
    expect(state.handled).toBe(0)
  })

  it('answers 413 to a declared Content-Length over the cap without reading the body', async () => {
    const { state, port } = await serve({ maxBytes: 1000 })
    const { client, start } = post(port)
    await start(['Content-Type: application/json', 'Content-Length: 1001'])
    const response = await client.response()
    expect(response.status).toBe(413)
    expect(JSON.parse(response.body)).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', limit: 1000 })
    await client.closed
    expect(state.handled).toBe(0)
  })

  it('answers 408 to a body that stalls short of its declared length instead of hanging', async () => {
    const { state, port } = await serve({ idleTimeoutMs: 100 })
    const { client, start } = post(port)
    await start(['Content-Type: application/json', 'Content-Length: 100'])
    await client.write('[1,2,')
    const response = await client.response()
    expect(response.status).toBe(408)
    expect(JSON.parse(response.body)).toMatchObject({ code: 'ERR_BODY_TIMEOUT', limit: 100 })
    await client.closed
    expect(state.handled).toBe(0)
  })

  /** Sends `opening`, then keeps the chunked body open; returns the answer. */
  async function refusedWhileArriving(opening: Uint8Array) {
    const { state, port } = await serve({})
    const { client, start } = post(port)
    await start(['Content-Type: application/json', 'Transfer-Encoding: chunked'])
    await client.write(chunk(opening))
    // Keep the body open (more valid-looking bytes, never the terminating chunk).
    await sendUntilAnswered(client, Buffer.from('0,'), 1 << 20, true)
    const response = await client.response()
    await client.closed
    return { response, handled: state.handled }
  }

  it('answers 422 to invalid UTF-8 while the body is still arriving', async () => {
    const opening = Buffer.concat([Buffer.from(`["${MARKER}`), Buffer.from([0xc0, 0xaf])])
    const { response, handled } = await refusedWhileArriving(opening)
    expect(response.status).toBe(422)
    expect(JSON.parse(response.body)).toMatchObject({ code: 'ERR_JSON_INVALID_UTF8', status: 422 })
    expect(response.body).not.toContain(MARKER)
    expect(handled).toBe(0)
  })

  it('answers 422 to depth 65 while the body is still arriving', async () => {
    const { response, handled } = await refusedWhileArriving(
      Buffer.from(`["${MARKER}",${'['.repeat(64)}`),
    )
    expect(response.status).toBe(422)
    expect(JSON.parse(response.body)).toMatchObject({
      code: 'ERR_JSON_TOO_DEEP',
      status: 422,
      limit: 64,
    })
    expect(response.body).not.toContain(MARKER)
    expect(handled).toBe(0)
  })

  it('answers 422 to 100,001 nodes while the body is still arriving', async () => {
    const { response, handled } = await refusedWhileArriving(
      Buffer.from(`["${MARKER}",${'0,'.repeat(100_000)}`),
    )
    expect(response.status).toBe(422)
    expect(JSON.parse(response.body)).toMatchObject({
      code: 'ERR_JSON_TOO_MANY_NODES',
      status: 422,
      limit: 100_000,
    })
    expect(response.body).not.toContain(MARKER)
    expect(handled).toBe(0)
  })

  it('answers 413 to a gzip bomb, counting inflated bytes', async () => {
    const bomb = gzipSync(Buffer.from(`[${' '.repeat(50 * 1024 * 1024)}]`))
    for (const [options, code] of [
      [{ maxBytes: 16 * 1024 * 1024 }, 'ERR_BODY_INFLATION_RATIO'],
      [{ maxBytes: 1024 * 1024, maxInflationRatio: 1_000_000 }, 'ERR_BODY_TOO_LARGE'],
    ] as const) {
      const { state, port } = await serve(options)
      const { client, start } = post(port)
      await start([
        'Content-Type: application/json',
        'Content-Encoding: gzip',
        `Content-Length: ${bomb.length}`,
      ])
      await client.write(bomb)
      const response = await client.response()
      expect(response.status).toBe(413)
      expect(JSON.parse(response.body).code).toBe(code)
      expect(state.handled).toBe(0)
      await running?.close()
      running = undefined
    }
  })

  it('answers 408 to a slow sender past timeoutMs', async () => {
    const { state, port } = await serve({ timeoutMs: 150, idleTimeoutMs: 10_000 })
    const { client, start } = post(port)
    await start(['Content-Type: application/json', 'Transfer-Encoding: chunked'])
    await client.write(chunk('['))
    while (!client.hasResponse() && !client.isClosed) {
      await client.write(chunk('0,'))
      await sleep(10)
    }
    const response = await client.response()
    expect(response.status).toBe(408)
    expect(JSON.parse(response.body)).toMatchObject({ code: 'ERR_BODY_TIMEOUT', limit: 150 })
    expect(state.handled).toBe(0)
  })

  it('survives a client abort mid-body and releases the in-flight budget', async () => {
    const budget = createInFlightBudget(1 << 20)
    const { state, port } = await serve({ budget })
    const { client, start } = post(port)
    await start(['Content-Type: application/json', 'Content-Length: 5000'])
    await client.write(`[${'1,'.repeat(100)}`)
    // The budget holds the 201 bytes received, not the 5,000 declared.
    await until(() => budget.inFlight === 201)
    client.destroy()
    await until(() => state.results.length === 1)
    expect(state.results[0]).toMatchObject({ ok: false, error: { code: 'ERR_BODY_ABORTED' } })
    expect(budget.inFlight).toBe(0)
    const next = post(port)
    await next.start(['Content-Type: application/json', 'Content-Length: 7'])
    await next.client.write('{"a":1}')
    const response = await next.client.response()
    expect(response.status).toBe(200)
    expect(JSON.parse(response.body)).toEqual({ value: { a: 1 }, skipped: null })
    expect(budget.inFlight).toBe(0)
    next.client.destroy()
  })

  it('answers 503 with Retry-After when concurrent bodies pass the in-flight budget, and admits again once it is released', async () => {
    const budget = createInFlightBudget(100 * 1024)
    const { state, port } = await serve({ budget })
    const first = post(port)
    // The first body holds 80 KiB + 1 it actually sent (of 200 KiB declared: less than half,
    // so no buffer is pre-sized from the declared length).
    await first.start(['Content-Type: application/json', `Content-Length: ${200 * 1024}`])
    await first.client.write(`[${'1,'.repeat(40 * 1024)}`)
    await until(() => budget.inFlight === 80 * 1024 + 1)
    const second = post(port)
    await second.start(['Content-Type: application/json', 'Transfer-Encoding: chunked'])
    await second.client.write(chunk(`["${MARKER}`))
    await sendUntilAnswered(second.client, Buffer.alloc(4096, 0x61), 1 << 20, true)
    const busy = await second.client.response()
    expect(busy.status).toBe(503)
    expect(busy.headers['retry-after']).toBe('1')
    expect(JSON.parse(busy.body)).toMatchObject({ code: 'ERR_ADMISSION_BUSY', limit: 100 * 1024 })
    expect(busy.body).not.toContain(MARKER)
    first.client.destroy()
    await until(() => budget.inFlight === 0)
    const third = post(port)
    await third.start(['Content-Type: application/json', 'Content-Length: 2'])
    await third.client.write('[]')
    expect((await third.client.response()).status).toBe(200)
    third.client.destroy()
    expect(state.handled).toBe(1)
  })

  it('passes GET, DELETE and OPTIONS through with the body unread', async () => {
    const { state, port } = await serve({})
    for (const method of ['GET', 'DELETE', 'OPTIONS']) {
      const client = new RawClient(port)
      await client.write(
        head([`${method} / HTTP/1.1`, 'Host: x', 'Content-Type: text/plain', 'Content-Length: 3']),
      )
      await client.write('abc')
      const response = await client.response()
      expect(response.status).toBe(200)
      expect(JSON.parse(response.body)).toEqual({ value: null, skipped: 'method' })
      client.destroy()
    }
    expect(state.handled).toBe(3)
  })

  it('passes a POST without a body through', async () => {
    const { port } = await serve({})
    const { client, start } = post(port)
    await start([])
    const response = await client.response()
    expect(JSON.parse(response.body)).toEqual({ value: null, skipped: 'no-body' })
    client.destroy()
  })

  it('answers 415 to a non-JSON media type or a non-UTF-8 charset, and passes it with otherTypes: pass', async () => {
    const { state, port } = await serve({})
    for (const type of ['text/plain', 'application/json; charset=latin1']) {
      const { client, start } = post(port)
      await start([`Content-Type: ${type}`, 'Content-Length: 2'])
      await client.write('[]')
      const response = await client.response()
      expect(response.status).toBe(415)
      expect(JSON.parse(response.body).code).toBe('ERR_BODY_MEDIA_TYPE')
    }
    expect(state.handled).toBe(0)
    await running?.close()
    const passing = await serve({ otherTypes: 'pass' })
    const { client, start } = post(passing.port)
    await start(['Content-Type: text/plain', 'Content-Length: 2'])
    await client.write('[]')
    expect(JSON.parse((await client.response()).body)).toEqual({
      value: null,
      skipped: 'media-type',
    })
    client.destroy()
  })

  it('admits application/json and +json types', async () => {
    const { port } = await serve({})
    for (const type of ['application/json', 'application/merge-patch+json; charset=UTF-8']) {
      const { client, start } = post(port)
      await start([`Content-Type: ${type}`, 'Content-Length: 7'])
      await client.write('{"a":1}')
      expect(JSON.parse((await client.response()).body)).toEqual({ value: { a: 1 }, skipped: null })
      client.destroy()
    }
  })

  it('sends a refusal body from a custom renderer with the same status and connection closing', async () => {
    running = await listen(async (req, res) => {
      const result = await admitNodeRequest(req, bodyAdmission({ maxBytes: 8 }))
      if (!result.ok) {
        sendRefusal(res, result.error, {
          render: (error) => ({
            contentType: 'application/json',
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: null,
              error: { code: -32600, data: { code: error.code } },
            }),
          }),
        })
        return
      }
      res.end('handled')
    })
    const { client, start } = post(running.port)
    await start(['Content-Type: application/json', 'Transfer-Encoding: chunked'])
    await client.write(chunk(`"${MARKER}"`))
    const response = await client.response()
    expect(response.status).toBe(413)
    expect(response.headers['content-type']).toBe('application/json')
    expect(response.headers.connection).toBe('close')
    expect(JSON.parse(response.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, data: { code: 'ERR_BODY_TOO_LARGE' } },
    })
    await client.closed
  })

  it('never echoes a marker sent in the request in any refusal', async () => {
    const { port } = await serve({ maxBytes: 4096, idleTimeoutMs: 100, maxDepth: 2 })
    const cases: [string[], Uint8Array][] = [
      [['Content-Type: application/json', 'Content-Length: 5000'], Buffer.from(MARKER)],
      [['Content-Type: application/json', 'Content-Length: 100'], Buffer.from(`["${MARKER}`)],
      [
        ['Content-Type: application/json', `Content-Length: ${MARKER.length + 9}`],
        Buffer.from(`{"${MARKER}":[[[1]]]}`),
      ],
      [
        ['Content-Type: application/json', `Content-Length: ${MARKER.length + 4}`],
        Buffer.from(`{"${MARKER}"`),
      ],
      [[`Content-Type: text/${MARKER}`, 'Content-Length: 2'], Buffer.from('[]')],
      [
        ['Content-Type: application/json', `Content-Encoding: ${MARKER}`, 'Content-Length: 2'],
        Buffer.from('[]'),
      ],
      [['Content-Type: application/json', `Content-Length: ${MARKER}`], Buffer.from('[]')],
    ]
    const statuses: number[] = []
    for (const [headers, body] of cases) {
      const { client, start } = post(port)
      await start(headers)
      await client.write(body)
      const response = await client.response().catch(() => undefined)
      client.destroy()
      if (response === undefined) continue
      statuses.push(response.status)
      expect(response.body).not.toContain(MARKER)
      expect(JSON.stringify(response.headers)).not.toContain(MARKER)
    }
    expect(statuses).toEqual(expect.arrayContaining([413, 408, 422, 415]))
  })
})
