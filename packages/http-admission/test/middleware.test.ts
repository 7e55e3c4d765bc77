import { chunk, head, httpPost, RawClient, sendUntilAnswered } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import express, { type NextFunction, type Request, type Response } from 'express'
import request from 'supertest'
import { afterEach, describe, expect, it } from 'vitest'
import {
  admission,
  bodyAdmission,
  createInFlightBudget,
  type HttpAdmissionError,
} from '../src/index.js'

const MARKER = 'MARKER-5c1e-secret-token'
const DEPTH_65 = `${'['.repeat(65)}${']'.repeat(65)}`
const INVALID_UTF8 = Buffer.concat([
  Buffer.from(`{"k":"${MARKER}`),
  Buffer.from([0xff, 0xfe]),
  Buffer.from('"}'),
])

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

/** An app whose JSON route records every body that reaches the handler (the sentinel). */
function appWith(parser: express.RequestHandler, errorHandler = false) {
  const reached: unknown[] = []
  const app = express()
  app.post('/echo', parser, (req: Request, res: Response) => {
    reached.push(req.body)
    res.json({ body: req.body ?? null })
  })
  app.get('/events', parser, (_req: Request, res: Response) => {
    res.setHeader('content-type', 'text/event-stream')
    res.write('data: one\n\n')
    res.end('data: two\n\n')
  })
  if (errorHandler) {
    app.use((err: HttpAdmissionError, _req: Request, res: Response, _next: NextFunction) => {
      res.status(err.status).json({
        handledBy: 'app',
        status: err.status,
        statusCode: err.statusCode,
        type: err.type,
        expose: err.expose,
        code: err.code,
      })
    })
  }
  return { app, reached }
}

describe('admission', () => {
  it('sets req.body and req._body like express.json()', async () => {
    const seen: unknown[] = []
    const app = express()
    app.post('/', admission(bodyAdmission()), (req, res) => {
      seen.push((req as { _body?: boolean })._body)
      res.json(req.body)
    })
    const response = await request(app)
      .post('/')
      .set('content-type', 'application/json')
      .send('{"a":[1,2]}')
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ a: [1, 2] })
    expect(seen).toEqual([true])
  })

  it('leaves a body alone for a later parser when req._body is already set', async () => {
    const app = express()
    app.post('/', express.json(), admission(bodyAdmission({ maxBytes: 1 })), (req, res) =>
      res.json(req.body),
    )
    const response = await request(app).post('/').send({ a: 1 })
    expect(response.body).toEqual({ a: 1 })
  })

  it('answers 413 problem+json and the handler does not run', async () => {
    const { app, reached } = appWith(admission(bodyAdmission({ maxBytes: 100 })))
    const response = await request(app)
      .post('/echo')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ k: MARKER.repeat(10) }))
    expect(response.status).toBe(413)
    expect(response.headers['content-type']).toBe('application/problem+json')
    expect(response.headers.connection).toBe('close')
    expect(JSON.parse(response.text)).toEqual({
      type: 'urn:tollgate:error:ERR_BODY_TOO_LARGE',
      title: 'Payload Too Large',
      status: 413,
      code: 'ERR_BODY_TOO_LARGE',
      detail: expect.any(String),
      limit: 100,
    })
    expect(response.text).not.toContain(MARKER)
    expect(reached).toEqual([])
  })

  it('answers 422 to depth 65 and invalid UTF-8 and the handler does not run', async () => {
    const { app, reached } = appWith(admission(bodyAdmission()))
    const deep = await request(app)
      .post('/echo')
      .set('content-type', 'application/json')
      .send(DEPTH_65)
    expect(deep.status).toBe(422)
    expect(JSON.parse(deep.text)).toMatchObject({ code: 'ERR_JSON_TOO_DEEP', limit: 64 })
    running = await listen(app)
    const utf8 = await httpPost(running.port, '/echo', INVALID_UTF8)
    expect(utf8.status).toBe(422)
    expect(JSON.parse(utf8.body)).toMatchObject({ code: 'ERR_JSON_INVALID_UTF8' })
    expect(utf8.body).not.toContain(MARKER)
    expect(reached).toEqual([])
  })

  it('lets depth 65 and invalid UTF-8 reach the handler when swapped for express.json() (the control is load-bearing)', async () => {
    const { app, reached } = appWith(express.json({ limit: '64mb' }))
    const deep = await request(app)
      .post('/echo')
      .set('content-type', 'application/json')
      .send(DEPTH_65)
    expect(deep.status).toBe(200)
    running = await listen(app)
    const utf8 = await httpPost(running.port, '/echo', INVALID_UTF8)
    expect(utf8.status).toBe(200)
    expect(reached).toHaveLength(2)
    // express.json() silently replaced the invalid bytes with U+FFFD.
    expect((reached[1] as { k: string }).k).toContain('\ufffd')
  })

  it('routes a refusal to the app error handler with status, statusCode, type and expose when onRefusal is next', async () => {
    const { app, reached } = appWith(
      admission(bodyAdmission({ maxBytes: 50 }), { refusals: 'next' }),
      true,
    )
    const large = await request(app)
      .post('/echo')
      .set('content-type', 'application/json')
      .send(`"${'a'.repeat(60)}"`)
    expect(large.status).toBe(413)
    expect(large.body).toEqual({
      handledBy: 'app',
      status: 413,
      statusCode: 413,
      type: 'entity.too.large',
      expose: true,
      code: 'ERR_BODY_TOO_LARGE',
    })
    expect(large.headers.connection).toBe('close')
    const deep = await request(app)
      .post('/echo')
      .set('content-type', 'application/json')
      .send('[[[[[[]]]]]]'.padEnd(20, ' '))
    expect(deep.status).toBe(200)
    const bad = await request(app)
      .post('/echo')
      .set('content-type', 'application/json')
      .send('{"a":}')
    expect(bad.body).toMatchObject({
      status: 422,
      type: 'entity.parse.failed',
      code: 'ERR_JSON_SYNTAX',
    })
    expect(reached).toHaveLength(1)
  })

  it("sets Connection: close on Express's default error handler too", async () => {
    const app = express()
    app.post('/', admission(bodyAdmission({ maxBytes: 10 }), { refusals: 'next' }), (_req, res) =>
      res.end(),
    )
    const response = await request(app)
      .post('/')
      .set('content-type', 'application/json')
      .send('"01234567890"')
    expect(response.status).toBe(413)
    expect(response.headers.connection).toBe('close')
    expect(response.text).not.toContain('01234567890')
  })

  it('passes a GET and an SSE stream through untouched', async () => {
    const { app } = appWith(admission(bodyAdmission()))
    const response = await request(app).get('/events').set('accept', 'text/event-stream')
    expect(response.status).toBe(200)
    expect(response.text).toBe('data: one\n\ndata: two\n\n')
  })

  it('gives each mounted route its own limits', async () => {
    const app = express()
    app.post('/small', admission(bodyAdmission({ maxBytes: 16 })), (req, res) => res.json(req.body))
    app.post('/large', admission(bodyAdmission()), (req, res) => res.json(req.body))
    const body = JSON.stringify({ text: 'x'.repeat(32) })
    expect(
      (await request(app).post('/small').set('content-type', 'application/json').send(body)).status,
    ).toBe(413)
    expect(
      (await request(app).post('/large').set('content-type', 'application/json').send(body)).status,
    ).toBe(200)
  })

  it('answers 413 over a raw socket and stops reading while the client is still sending', async () => {
    const { app, reached } = appWith(
      admission(bodyAdmission({ maxBytes: 32 * 1024, budget: createInFlightBudget(1 << 24) })),
    )
    running = await listen(app)
    const client = new RawClient(running.port)
    await client.write(
      head([
        'POST /echo HTTP/1.1',
        'Host: x',
        'Content-Type: application/json',
        'Transfer-Encoding: chunked',
      ]),
    )
    await client.write(chunk('["'))
    const planned = 32 * 1024 * 1024
    const sent = await sendUntilAnswered(client, Buffer.alloc(8192, 0x61), planned, true)
    const response = await client.response()
    expect(response.status).toBe(413)
    expect(sent).toBeLessThan(planned)
    await client.closed
    expect(reached).toEqual([])
  })

  // 64 MiB sent, scanned and parsed: past the 30 s default on a loaded 2-core CI machine.
  it('admits a body of exactly the default 64 MiB cap and refuses one byte more', {
    timeout: 180_000,
  }, async () => {
    const { app, reached } = appWith(
      admission(bodyAdmission({ budget: createInFlightBudget(1 << 28) })),
    )
    const cap = 64 * 1024 * 1024
    const at = Buffer.alloc(cap, 0x61)
    at.write('["', 0)
    at.write('"]', cap - 2)
    running = await listen(app)
    const ok = await httpPost(running.port, '/echo', at)
    expect(ok.status).toBe(200)
    expect((reached[0] as string[])[0]?.length).toBe(cap - 4)
    // One byte more, declared: refused from the head, before a byte of body is read.
    const client = new RawClient(running.port)
    await client.write(
      head([
        'POST /echo HTTP/1.1',
        'Host: x',
        'Content-Type: application/json',
        `Content-Length: ${cap + 1}`,
      ]),
    )
    await client.write('["aaaa')
    const refused = await client.response()
    expect(refused.status).toBe(413)
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', limit: cap })
    await client.closed
    expect(reached).toHaveLength(1)
  })

  it('keeps headers set by earlier middleware (CORS) on a refusal', async () => {
    const app = express()
    app.use((_req, res, next) => {
      res.setHeader('access-control-allow-origin', 'https://app.example')
      next()
    })
    app.post('/', admission(bodyAdmission({ maxBytes: 4 })), (_req, res) => res.end())
    const response = await request(app)
      .post('/')
      .set('content-type', 'application/json')
      .send('[1,2,3]')
    expect(response.status).toBe(413)
    expect(response.headers['access-control-allow-origin']).toBe('https://app.example')
  })

  it('hands the admitted bytes on as req.rawBody with keepRaw', async () => {
    const app = express()
    app.post('/', admission(bodyAdmission({ keepRaw: true })), (req, res) => {
      res.json({
        raw: (req as { rawBody?: Buffer }).rawBody?.toString('utf8') ?? null,
        body: req.body,
      })
    })
    const response = await request(app)
      .post('/')
      .set('content-type', 'application/json')
      .send('{"a": 1}')
    expect(response.body).toEqual({ raw: '{"a": 1}', body: { a: 1 } })
  })
})
