// admission() with body-parser's option names (strict, reviver, verify, type, limit), through a
// real http.Server on 127.0.0.1. Each refusal asserts the route's sentinel stayed empty, and
// strict has a test with the control removed showing what it prevents.

import { chunk, head, RawClient, sendUntilAnswered } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import express, { type NextFunction, type Request, type Response } from 'express'
import request from 'supertest'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type AdmissionHostOptions,
  admission,
  type BodyAdmissionOptions,
  bodyAdmission,
  createInFlightBudget,
} from '../src/index.js'
import { admitStream } from './helpers/admit-stream.js'

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

function appWith(options: BodyAdmissionOptions = {}, host: AdmissionHostOptions = {}) {
  const reached: unknown[] = []
  const errors: Record<string, unknown>[] = []
  const app = express()
  app.post('/', admission(bodyAdmission(options), host), (req: Request, res: Response) => {
    reached.push(req.body)
    // What a handler written for express.json() does with its body.
    res.json({ user: (req.body as { user?: unknown }).user ?? null })
  })
  app.use((err: Record<string, unknown>, _req: Request, res: Response, _next: NextFunction) => {
    errors.push(err)
    res.status(typeof err.status === 'number' ? err.status : 500).json({
      code: err.code ?? null,
      type: err.type ?? null,
    })
  })
  return { app, reached, errors }
}

async function* chunks(...parts: (string | Buffer)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield Buffer.from(part)
}

describe('admission(): strict', () => {
  it('refuses a top-level null, number, string or boolean with 422 ERR_JSON_NOT_OBJECT_OR_ARRAY by default, and the handler does not run', async () => {
    const { app, reached } = appWith()
    for (const body of ['null', ' 1', '"s"', '\nfalse']) {
      const res = await request(app).post('/').type('application/json').send(body)
      expect(res.status, body).toBe(422)
      expect(res.body).toMatchObject({ code: 'ERR_JSON_NOT_OBJECT_OR_ARRAY', status: 422 })
    }
    expect(reached).toEqual([])
  })

  it('lets null reach the handler, which then throws on req.body.user, with strict: false (the control is load-bearing)', async () => {
    const { app, reached, errors } = appWith({ strict: false })
    const res = await request(app).post('/').type('application/json').send('null')
    expect(reached).toEqual([null])
    expect(res.status).toBe(500)
    expect(errors[0]).toBeInstanceOf(TypeError)
  })

  it('refuses a top-level string at its first byte while the client is still sending', async () => {
    const { app, reached } = appWith({
      maxBytes: 16 * 1024 * 1024,
      budget: createInFlightBudget(1 << 25),
    })
    running = await listen(app)
    const client = new RawClient(running.port)
    await client.write(
      head([
        'POST / HTTP/1.1',
        'Host: x',
        'Content-Type: application/json',
        'Transfer-Encoding: chunked',
      ]),
    )
    await client.write(chunk('  "'))
    const planned = 16 * 1024 * 1024
    const sent = await sendUntilAnswered(client, Buffer.alloc(8192, 0x61), planned, true)
    const response = await client.response()
    expect(response.status).toBe(422)
    expect(JSON.parse(response.body)).toMatchObject({ code: 'ERR_JSON_NOT_OBJECT_OR_ARRAY' })
    expect(sent).toBeLessThan(planned)
    await client.closed
    expect(reached).toEqual([])
  })

  it('reports a syntax error as ERR_JSON_SYNTAX before strictness, and looks past a stripped BOM', async () => {
    const syntax = await admitStream(chunks('x'), {})
    expect(syntax.ok ? undefined : syntax.error.code).toBe('ERR_JSON_SYNTAX')
    const options = bodyAdmission({ bom: 'strip' })
    const bom = Buffer.from([0xef, 0xbb, 0xbf])
    const object = await admitStream(
      chunks(bom.subarray(0, 1), bom.subarray(1), '{"a":1}'),
      options,
    )
    expect(object).toMatchObject({ ok: true, value: { a: 1 } })
    const scalar = await admitStream(chunks(bom, ' 7'), options)
    expect(scalar.ok ? undefined : scalar.error).toMatchObject({
      code: 'ERR_JSON_NOT_OBJECT_OR_ARRAY',
      offset: 4,
    })
  })

  it('admits an empty body as undefined whatever strict says', async () => {
    expect(await admitStream(chunks(), {})).toMatchObject({ ok: true, value: undefined })
  })
})

describe('admission(): reviver', () => {
  it('passes the reviver to JSON.parse', async () => {
    const result = await admitStream(chunks('{"d":"2020-01-02"}'), {
      reviver: (key, value) => (key === 'd' ? `day ${String(value)}` : value),
    })
    expect(result).toMatchObject({ ok: true, value: { d: 'day 2020-01-02' } })
  })

  it('never calls the reviver on a body the preflight refuses (depth 65)', async () => {
    let calls = 0
    const result = await admitStream(chunks(`${'['.repeat(65)}${']'.repeat(65)}`), {
      reviver: (_key, value) => {
        calls++
        return value
      },
    })
    expect(result.ok ? undefined : result.error.code).toBe('ERR_JSON_TOO_DEEP')
    expect(calls).toBe(0)
  })

  it("hands a reviver's exception to the app's error handler", async () => {
    const thrown = new Error('reviver says no')
    const { app, reached, errors } = appWith({
      reviver: () => {
        throw thrown
      },
    })
    const res = await request(app).post('/').type('application/json').send('{"a":1}')
    expect(res.status).toBe(500)
    expect(errors).toEqual([thrown])
    expect(reached).toEqual([])
  })
})

describe('admission(): verify', () => {
  const signed = (_req: unknown, _res: unknown, buf: Buffer) => {
    if (!buf.toString('utf8').includes('"sig"')) {
      throw Object.assign(new Error('unsigned'), buf.includes('"401"') ? { status: 401 } : {})
    }
  }

  it('answers 403 ERR_BODY_VERIFY_FAILED when verify throws, honours a thrown 4xx status, and the handler does not run', async () => {
    const { app, reached } = appWith({}, { verify: signed })
    const refused = await request(app).post('/').type('application/json').send('{"user":"u"}')
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ code: 'ERR_BODY_VERIFY_FAILED', status: 403 })
    expect(refused.text).not.toContain('unsigned')
    const custom = await request(app).post('/').type('application/json').send('{"401":1}')
    expect(custom.status).toBe(401)
    const ok = await request(app).post('/').type('application/json').send('{"sig":1,"user":"u"}')
    expect(ok.body).toEqual({ user: 'u' })
    expect(reached).toEqual([{ sig: 1, user: 'u' }])
  })

  it('hands verify req, res, the bytes and utf-8, and sets req.rawBody only with keepRaw', async () => {
    const seen: unknown[] = []
    const raws: unknown[] = []
    for (const keepRaw of [false, true]) {
      const app = express()
      app.post(
        '/',
        admission(bodyAdmission({ keepRaw }), {
          verify: (req, res, buf, encoding) => {
            seen.push([typeof req.headers, typeof res.setHeader, buf.toString('utf8'), encoding])
          },
        }),
        (req, res) => {
          raws.push((req as { rawBody?: Buffer }).rawBody?.toString('utf8'))
          res.end()
        },
      )
      await request(app).post('/').type('application/json').send('{"a":1}').expect(200)
    }
    expect(seen).toEqual([
      ['object', 'function', '{"a":1}', 'utf-8'],
      ['object', 'function', '{"a":1}', 'utf-8'],
    ])
    expect(raws).toEqual([undefined, '{"a":1}'])
  })

  it("routes a verify refusal to next(err) with refusals: 'next', the thrown error as its cause", async () => {
    const { app, errors } = appWith({}, { verify: signed, refusals: 'next' })
    const res = await request(app).post('/').type('application/json').send('{"user":"u"}')
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ code: 'ERR_BODY_VERIFY_FAILED', type: 'entity.verify.failed' })
    expect(errors[0]?.cause).toMatchObject({ message: 'unsigned' })
  })
})

describe('admission(): type and limit', () => {
  it('admits a body without Content-Type when a type function accepts it, and refuses (or passes) what it rejects', async () => {
    const accept = (req: { headers: Record<string, unknown> }) => req.headers['x-json'] === '1'
    const { app, reached } = appWith({}, { accept })
    running = await listen(app)
    const untyped = new RawClient(running.port)
    await untyped.write(head(['POST / HTTP/1.1', 'Host: x', 'X-Json: 1', 'Content-Length: 12']))
    await untyped.write('{"user":"u"}')
    expect((await untyped.response()).status).toBe(200)
    untyped.destroy()
    const rejected = await request(app).post('/').type('application/json').send('{"user":"v"}')
    expect(rejected.status).toBe(415)
    expect(reached).toEqual([{ user: 'u' }])
    const passing = express()
    passing.post('/', admission(bodyAdmission({ otherTypes: 'pass' }), { accept }), (req, res) => {
      res.json({ parsed: req.body !== undefined, unread: !req.readableEnded })
    })
    const passed = await request(passing).post('/').type('application/json').send('{}')
    expect(passed.body).toEqual({ parsed: false, unread: true })
  })

  it("takes type as a string, an array, 'json' and '+json'", async () => {
    for (const [type, contentType] of [
      ['application/vnd.api+json', 'application/vnd.api+json'],
      [['text/x-a', 'application/json'], 'application/json'],
      ['json', 'application/json'],
      ['+json', 'application/ld+json'],
    ] as const) {
      const { app } = appWith({ type })
      const res = await request(app).post('/').set('Content-Type', contentType).send('{"user":1}')
      expect(res.body, String(type)).toEqual({ user: 1 })
      const other = await request(app).post('/').set('Content-Type', 'text/plain').send('{}')
      expect(other.status, String(type)).toBe(415)
    }
  })

  it("takes limit as '1kb': 1024 bytes admitted, 1025 refused with 413 and limit 1024", async () => {
    const { app, reached } = appWith({ limit: '1kb' })
    const at = `{"user":"${'a'.repeat(1024 - 11)}"}`
    expect((await request(app).post('/').type('application/json').send(at)).status).toBe(200)
    const past = await request(app).post('/').type('application/json').send(`${at} `)
    expect(past.status).toBe(413)
    expect(past.body).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', limit: 1024 })
    expect(reached).toHaveLength(1)
  })

  it('refuses both spellings of one option, and a bad type, at construction', () => {
    expect(() => admission(bodyAdmission({ limit: 10, maxBytes: 10 }))).toThrow(
      /limit and maxBytes/,
    )
    expect(() => admission(bodyAdmission({ type: 'json', types: ['application/json'] }))).toThrow(
      /type and types/,
    )
    expect(() => admission(bodyAdmission({ type: 'html' }))).toThrow(/type must/)
    expect(() => admission(bodyAdmission({ type: 5 as never }))).toThrow(/type must/)
    expect(() => admission(bodyAdmission({ strict: 'yes' as never }))).toThrow(/strict/)
    expect(() => admission(bodyAdmission({ reviver: {} as never }))).toThrow(/reviver/)
  })
})

describe("admission() in 'next' mode keeps tollgate's statuses", () => {
  it('hands a parse refusal to next(err) as 422 with type entity.parse.failed (json() gives 400)', async () => {
    const { app } = appWith({}, { refusals: 'next' })
    const res = await request(app).post('/').type('application/json').send('{"user"')
    expect(res.status).toBe(422)
    expect(res.body).toEqual({ code: 'ERR_JSON_SYNTAX', type: 'entity.parse.failed' })
  })
})
