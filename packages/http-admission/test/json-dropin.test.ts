// json() as a drop-in for express.json(): each behaviour body-parser's own json suite checks
// is held here, through a real http.Server on 127.0.0.1 (supertest listens on port 0). The
// server answers `[type] message` for an error and the JSON of req.body otherwise, the shape
// an app's error handler and route see; `reached` is the sentinel of the route.
import { AsyncLocalStorage } from 'node:async_hooks'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { type AdmissionMiddleware, type JsonOptions, json } from '../src/index.js'

interface Served {
  readonly server: ReturnType<typeof createServer>
  readonly reached: unknown[]
  readonly errors: Record<string, unknown>[]
}

function serve(parser: AdmissionMiddleware | JsonOptions = {}): Served {
  const handle = typeof parser === 'function' ? parser : json(parser)
  const reached: unknown[] = []
  const errors: Record<string, unknown>[] = []
  const server = createServer((req, res) => {
    handle(req, res, (err?: unknown) => {
      if (err) {
        const e = err as Record<string, unknown>
        errors.push(e)
        res.statusCode = typeof e.status === 'number' ? e.status : 500
        res.end(`[${String(e.type)}] ${String(e.message)}`)
        return
      }
      const body = (req as { body?: unknown }).body
      reached.push(body)
      res.end(JSON.stringify(body) ?? typeof body)
    })
  })
  return { server, reached, errors }
}

/** A POST of exact bytes (supertest's send() would serialize a Buffer as JSON). */
function post(server: Served['server'], headers: Record<string, string>, body: Buffer | string) {
  const test = request(server).post('/').set(headers)
  test.write(body)
  return test
}

const NAME = '{"name":"论"}'
const NAME_UTF8 = Buffer.from(NAME, 'utf8')
const JSON_TYPE = 'application/json'

describe('json(): what it parses', () => {
  it('parses an object and an array sent as application/json', async () => {
    const { server } = serve()
    await request(server).post('/').type(JSON_TYPE).send('{"k":"v"}').expect(200, '{"k":"v"}')
    await request(server)
      .post('/')
      .type(JSON_TYPE)
      .send('[1,{"a":null}]')
      .expect(200, '[1,{"a":null}]')
  })

  it('gives {} for an empty body, whether declared with Content-Length: 0 or sent chunked, on any method', async () => {
    const { server } = serve()
    await request(server)
      .get('/')
      .set('Content-Type', JSON_TYPE)
      .set('Content-Length', '0')
      .expect(200, '{}')
    await request(server)
      .delete('/')
      .set('Content-Type', JSON_TYPE)
      .set('Transfer-Encoding', 'chunked')
      .expect(200, '{}')
  })

  it('leaves req.body undefined when the request has no body at all, and keeps a body set earlier', async () => {
    const { server } = serve()
    await request(server).get('/').set('Content-Type', JSON_TYPE).expect(200, 'undefined')
    const parser = json()
    const preset = createServer((req, res) => {
      ;(req as { body?: unknown }).body = 'set before'
      parser(req, res, () => res.end(JSON.stringify((req as { body?: unknown }).body)))
    })
    await request(preset).get('/').expect(200, '"set before"')
  })

  it('skips a request whose body was already read, and parses once when mounted twice', async () => {
    const parser = json()
    const consumed = serve((req, res, next) => {
      req.on('end', () => parser(req, res, next))
      req.resume()
    })
    await request(consumed.server)
      .post('/')
      .type(JSON_TYPE)
      .send('{"k":1}')
      .expect(200, 'undefined')
    const twice = serve((req, res, next) =>
      parser(req, res, (err) => (err ? next(err) : parser(req, res, next))),
    )
    await request(twice.server).post('/').type(JSON_TYPE).send('{"k":1}').expect(200, '{"k":1}')
  })

  it('takes the configuration at construction: changing the options object later changes nothing', async () => {
    const options: { limit: string } = { limit: '1kb' }
    const { server } = serve(options)
    options.limit = '1mb'
    await request(server)
      .post('/')
      .type(JSON_TYPE)
      .send(`{"s":"${'x'.repeat(1100)}"}`)
      .expect(413)
  })
})

describe('json(): refusals as body-parser raises them', () => {
  it('answers 400 entity.parse.failed to a bad token, a truncated text and whitespace alone, and the route never runs', async () => {
    const { server, reached } = serve()
    for (const body of ['{:', '{"k"', '  \n', ' \t\r\n']) {
      const res = await request(server).post('/').type(JSON_TYPE).send(body).expect(400)
      expect(res.text.startsWith('[entity.parse.failed] ')).toBe(true)
    }
    expect(reached).toEqual([])
  })

  it('never puts the caller bytes on the error: no err.body, and the message and stack do not quote them', async () => {
    const marker = 'MARKER-d41c'
    const { server, errors } = serve()
    await request(server).post('/').type(JSON_TYPE).send(`{"${marker}"`).expect(400)
    await request(server).post('/').type(JSON_TYPE).send(`"${marker}"`).expect(400)
    expect(errors).toHaveLength(2)
    for (const error of errors) {
      expect(error.body).toBeUndefined()
      expect(String(error.message)).not.toContain(marker)
      expect(String(error.stack)).not.toContain(marker)
      expect(error).toMatchObject({ status: 400, statusCode: 400, expose: true })
    }
  })

  it('answers 400 request.size.invalid when the body ends before the declared length', async () => {
    const parser = json()
    const { server, reached } = serve((req, res, next) => {
      // Node has read the real length; the parser is told more bytes are coming.
      req.headers['content-length'] = '20'
      parser(req, res, next)
    })
    const res = await request(server).post('/').type(JSON_TYPE).send('{"k":').expect(400)
    expect(res.text).toBe('[request.size.invalid] request size did not match content length')
    expect(reached).toEqual([])
  })

  it('passes errors and successes to next inside the caller async context', async () => {
    const parser = json()
    const store = new AsyncLocalStorage<string>()
    const { server } = serve((req, res, next) =>
      store.run('ctx', () =>
        parser(req, res, (err) => {
          res.setHeader('x-store', String(store.getStore()))
          next(err)
        }),
      ),
    )
    const corrupt = gzipSync('{"k":1}').subarray(0, 12)
    const cases: [Record<string, string>, string | Buffer, number][] = [
      [{ 'Content-Type': JSON_TYPE }, '{"k":1}', 200],
      [{ 'Content-Type': 'application/fizzbuzz' }, 'buzz', 200],
      [{ 'Content-Type': JSON_TYPE, 'Content-Encoding': 'gzip' }, gzipSync(NAME_UTF8), 200],
      [{ 'Content-Type': JSON_TYPE, 'Content-Encoding': 'gzip' }, corrupt, 400],
      [{ 'Content-Type': JSON_TYPE }, '{"k":', 400],
      [{ 'Content-Type': JSON_TYPE }, `{"k":"${'.'.repeat(102_400)}"}`, 413],
    ]
    for (const [headers, body, status] of cases) {
      const res = await post(server, headers, body).expect(status)
      expect(res.headers['x-store']).toBe('ctx')
    }
  })
})

describe('json(): limit', () => {
  it('defaults to 100 KiB: a body of 102,400 bytes is parsed and one byte more is 413 entity.too.large', async () => {
    const { server, reached } = serve()
    const at = `["${'a'.repeat(102_400 - 4)}"]`
    await request(server).post('/').type(JSON_TYPE).send(at).expect(200)
    const res = await request(server)
      .post('/')
      .type(JSON_TYPE)
      .send(`["${'a'.repeat(102_400 - 3)}"]`)
    expect(res.status).toBe(413)
    expect(res.text).toBe('[entity.too.large] request entity too large')
    expect(reached).toHaveLength(1)
  })

  it("takes '1kb' and 1024 alike, refusing past it with a declared length and with chunked encoding", async () => {
    const over = `{"s":"${'.'.repeat(1024)}"}`
    for (const limit of ['1kb', 1024] as const) {
      const { server, reached } = serve({ limit })
      await request(server).post('/').type(JSON_TYPE).send(over).expect(413)
      const test = request(server).post('/').type(JSON_TYPE).set('Transfer-Encoding', 'chunked')
      test.write('{"s":')
      test.write(`"${'.'.repeat(1024)}"}`)
      await test.expect(413)
      expect(reached).toEqual([])
    }
  })

  it('answers 413 while the client is still sending rather than hanging', async () => {
    const { server } = serve({ limit: '8kb' })
    const test = request(server).post('/').type(JSON_TYPE)
    const piece = Buffer.alloc(10_240, '.')
    test.write(Buffer.concat([Buffer.from('["'), piece]))
    test.write(piece)
    test.write(piece)
    await test.expect(413)
  })

  it('counts inflated bytes: a small gzip body that inflates past the limit is 413, truncated or whole', async () => {
    const { server, reached } = serve({ limit: '1kb' })
    const big = gzipSync(`{"s":"${'0'.repeat(4096)}"}`)
    for (const body of [big, big.subarray(0, big.length - 6)]) {
      const res = await post(
        server,
        { 'Content-Type': JSON_TYPE, 'Content-Encoding': 'gzip' },
        body,
      )
      expect(res.status).toBe(413)
      expect(res.text.startsWith('[entity.too.large] ')).toBe(true)
    }
    expect(reached).toEqual([])
  })
})

describe('json(): inflate and Content-Encoding', () => {
  const encoded: [string, Buffer][] = [
    ['gzip', gzipSync(NAME_UTF8)],
    ['GZIP', gzipSync(NAME_UTF8)],
    ['deflate', deflateSync(NAME_UTF8)],
    ['br', brotliCompressSync(NAME_UTF8)],
    ['identity', NAME_UTF8],
  ]

  it('inflates gzip, deflate and br (any case), and takes identity', async () => {
    const { server } = serve({ limit: '1kb' })
    for (const [encoding, body] of encoded) {
      await post(server, { 'Content-Type': JSON_TYPE, 'Content-Encoding': encoding }, body).expect(
        200,
        NAME,
      )
    }
    await post(server, { 'Content-Type': JSON_TYPE }, NAME_UTF8).expect(200, NAME)
  })

  it('answers 415 encoding.unsupported to any encoding with inflate: false, and to an unknown or zstd one', async () => {
    const off = serve({ inflate: false })
    const res = await post(
      off.server,
      { 'Content-Type': JSON_TYPE, 'Content-Encoding': 'gzip' },
      gzipSync(NAME_UTF8),
    ).expect(415)
    expect(res.text).toBe('[encoding.unsupported] content encoding unsupported')
    const on = serve({ experimentalZstd: true })
    for (const encoding of ['nulls', 'zstd']) {
      const r = await post(
        on.server,
        { 'Content-Type': JSON_TYPE, 'Content-Encoding': encoding },
        Buffer.alloc(6),
      ).expect(415)
      expect(r.text.startsWith('[encoding.unsupported] ')).toBe(true)
      expect(r.text).not.toContain(encoding)
    }
    expect([...off.reached, ...on.reached]).toEqual([])
  })

  it('answers 400 to corrupt compressed bytes', async () => {
    const { server, reached } = serve()
    const corrupt = Buffer.from(gzipSync(NAME_UTF8))
    corrupt.fill(0x55, 10, 16)
    await post(server, { 'Content-Type': JSON_TYPE, 'Content-Encoding': 'gzip' }, corrupt).expect(
      400,
    )
    expect(reached).toEqual([])
  })
})

describe('json(): strict', () => {
  it('refuses a top-level primitive with 400 entity.parse.failed by default and with strict: true, leading whitespace or not', async () => {
    for (const options of [{}, { strict: true }]) {
      const { server, reached } = serve(options)
      for (const body of ['true', '    true', '42', '"s"', 'null']) {
        const res = await request(server).post('/').type(JSON_TYPE).send(body).expect(400)
        expect(res.text.startsWith('[entity.parse.failed] ')).toBe(true)
      }
      expect(reached).toEqual([])
    }
  })

  it('admits an object after any RFC 8259 whitespace', async () => {
    const { server } = serve({ strict: true })
    await request(server).post('/').type(JSON_TYPE).send('   { "k": "v" }').expect(200, '{"k":"v"}')
    await request(server)
      .post('/')
      .type(JSON_TYPE)
      .send(' \t\n\r{ "k": "v" }')
      .expect(200, '{"k":"v"}')
  })

  it('parses primitives with strict: false', async () => {
    const { server } = serve({ strict: false })
    await request(server).post('/').type(JSON_TYPE).send('true').expect(200, 'true')
    await request(server).post('/').type(JSON_TYPE).send(' null').expect(200, 'null')
  })

  it('has a message on the strict error and its stack that names the rule, not the input', async () => {
    const { server, errors } = serve()
    await request(server).post('/').type(JSON_TYPE).send('true').expect(400)
    expect(errors[0]).toMatchObject({
      code: 'ERR_JSON_NOT_OBJECT_OR_ARRAY',
      type: 'entity.parse.failed',
    })
    expect(String(errors[0]?.stack)).toContain(String(errors[0]?.message))
  })
})

describe('json(): type', () => {
  it('parses only application/json by default and passes other types through unread', async () => {
    const { server } = serve()
    await request(server)
      .post('/')
      .type('application/vnd.api+json')
      .send('{"k":1}')
      .expect(200, 'undefined')
    await request(server).post('/').type('text/plain').send('{"k":1}').expect(200, 'undefined')
  })

  it('takes one custom type instead of application/json', async () => {
    const { server } = serve({ type: 'application/vnd.api+json' })
    await request(server)
      .post('/')
      .type('application/vnd.api+json')
      .send('{"k":1}')
      .expect(200, '{"k":1}')
    await request(server).post('/').type(JSON_TYPE).send('{"k":1}').expect(200, 'undefined')
  })

  it('takes a list of types and ignores one outside it', async () => {
    const { server } = serve({ type: [JSON_TYPE, 'application/vnd.api+json'] })
    await request(server).post('/').type(JSON_TYPE).send('{"k":1}').expect(200, '{"k":1}')
    await request(server)
      .post('/')
      .type('application/vnd.api+json')
      .send('{"k":2}')
      .expect(200, '{"k":2}')
    await request(server)
      .post('/')
      .type('application/x-json')
      .send('{"k":3}')
      .expect(200, 'undefined')
  })

  it('asks a type function per request, admits a body without Content-Type when it says so, and never asks without a body', async () => {
    const asked: unknown[] = []
    const { server } = serve({
      type: (req: IncomingMessage) => {
        asked.push(req.headers['content-type'])
        return req.headers['content-type'] !== 'text/plain'
      },
    })
    await request(server)
      .post('/')
      .type('application/vnd.api+json')
      .send('{"k":1}')
      .expect(200, '{"k":1}')
    const untyped = request(server).post('/')
    untyped.write('{"k":2}')
    await untyped.expect(200, '{"k":2}')
    await request(server).post('/').type('text/plain').send('{"k":3}').expect(200, 'undefined')
    const throwing = serve({
      type: () => {
        throw new Error('must not be called')
      },
    })
    await request(throwing.server).get('/').expect(200, 'undefined')
    expect(asked).toEqual(['application/vnd.api+json', undefined, 'text/plain'])
  })
})

describe('json(): verify', () => {
  const noArrays = (_req: IncomingMessage, _res: ServerResponse, buf: Buffer) => {
    if (buf[0] === 0x5b) throw new Error('arrays refused')
  }

  it('refuses a verify that is not a function at construction', () => {
    expect(() => json({ verify: 'yes' as never })).toThrow(/option verify must be function/)
  })

  it('answers 403 entity.verify.failed with the thrown message when verify throws, and passes what it accepts', async () => {
    const { server, reached, errors } = serve({ verify: noArrays })
    await request(server)
      .post('/')
      .type(JSON_TYPE)
      .send('["x"]')
      .expect(403, '[entity.verify.failed] arrays refused')
    await request(server).post('/').type(JSON_TYPE).send('{"k":1}').expect(200, '{"k":1}')
    expect(reached).toEqual([{ k: 1 }])
    expect(errors[0]?.body).toBeUndefined()
  })

  it("keeps the thrown error's own status and type", async () => {
    const { server } = serve({
      verify: (_req, _res, buf) => {
        if (buf[0] !== 0x5b) return
        throw Object.assign(
          new Error('arrays refused'),
          buf[1] === 0x31 ? { status: 400 } : { type: 'app.rule' },
        )
      },
    })
    await request(server)
      .post('/')
      .type(JSON_TYPE)
      .send('[1]')
      .expect(400, '[entity.verify.failed] arrays refused')
    await request(server)
      .post('/')
      .type(JSON_TYPE)
      .send('[2]')
      .expect(403, '[app.rule] arrays refused')
  })

  it('hands verify the admitted bytes after inflation and utf-8 as the encoding', async () => {
    const seen: [string, string][] = []
    const { server } = serve({
      verify: (_req, _res, buf, encoding) => {
        seen.push([buf.toString('utf8'), encoding])
      },
    })
    await post(
      server,
      { 'Content-Type': JSON_TYPE, 'Content-Encoding': 'gzip' },
      gzipSync(NAME_UTF8),
    ).expect(200, NAME)
    expect(seen).toEqual([[NAME, 'utf-8']])
  })

  it('answers 415 charset.unsupported to a charset other than UTF-8 before verify is called', async () => {
    const calls: unknown[] = []
    const { server } = serve({ verify: () => calls.push(1) })
    for (const charset of ['x-bogus', 'koi8-r', 'utf-16']) {
      const res = await post(
        server,
        { 'Content-Type': `application/json; charset=${charset}` },
        Buffer.from('{}'),
      ).expect(415)
      expect(res.text).toBe('[charset.unsupported] unsupported charset')
    }
    expect(calls).toEqual([])
  })
})

describe('json(): charset', () => {
  it('reads UTF-8 with the charset named or not, with a Content-Length in bytes', async () => {
    const { server } = serve()
    for (const type of ['application/json; charset=utf-8', JSON_TYPE]) {
      await post(server, { 'Content-Type': type }, NAME_UTF8).expect(200, NAME)
    }
    const accent = Buffer.from('{"t":"å"}', 'utf8')
    await post(
      server,
      {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': String(accent.length),
      },
      accent,
    ).expect(200, '{"t":"å"}')
  })

  it('refuses UTF-16 and UTF-32 bodies with 415 charset.unsupported (JSON is UTF-8)', async () => {
    const { server, reached } = serve()
    const utf16 = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(NAME, 'utf16le').swap16()])
    for (const [charset, body] of [
      ['utf-16', utf16],
      ['utf-32', Buffer.alloc(8)],
    ] as const) {
      const res = await post(
        server,
        { 'Content-Type': `application/json; charset=${charset}` },
        body,
      ).expect(415)
      expect(res.text.startsWith('[charset.unsupported] ')).toBe(true)
    }
    expect(reached).toEqual([])
  })
})

describe('json(): configuration', () => {
  it('refuses the admission()-only options, a non-UTF-8 defaultCharset and a bad limit at construction', () => {
    for (const key of ['types', 'otherTypes', 'passMethods', 'renderRefusal']) {
      expect(() => json({ [key]: undefined } as JsonOptions), key).toThrow(TypeError)
    }
    expect(() => json({ defaultCharset: 'latin1' })).toThrow(/defaultCharset/)
    expect(json({ defaultCharset: 'utf-8' })).toBeTypeOf('function')
    expect(() => json({ limit: 'lots' })).toThrow(/limit/)
    // Named as written: the caller wrote `limit`, not tollgate's `maxBytes`.
    expect(() => json({ limit: '65mb' })).toThrow(/^limit may not exceed 67108864/)
    expect(() => json({ limit: 67_108_865 })).toThrow(/^limit /)
    expect(() => json({ maxBytes: 67_108_865 })).toThrow(/^maxBytes may not exceed 67108864/)
  })
})
