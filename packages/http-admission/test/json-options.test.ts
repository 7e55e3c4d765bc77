// json()'s own configuration and its reviver, beyond json-dropin.test.ts: the UTF-8 spellings
// defaultCharset takes, the admission()-only options named in the TypeError, maxBytes in
// place of limit, and a reviver's exception answered as body-parser answers it (400
// entity.parse.failed), through a real http.Server on 127.0.0.1 (supertest, port 0).
import { createServer } from 'node:http'
import express, { type NextFunction, type Request, type Response } from 'express'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import {
  admission,
  type BodyAdmissionOptions,
  bodyAdmission,
  type JsonOptions,
  json,
  resolveJsonOptions,
} from '../src/index.js'

describe('json(): configuration', () => {
  it('takes defaultCharset utf-8 and utf8 in any case, and refuses anything else naming the option', () => {
    for (const charset of ['utf-8', 'utf8', 'UTF-8', 'Utf8']) {
      expect(json({ defaultCharset: charset }), charset).toBeTypeOf('function')
    }
    for (const charset of ['xutf-8', 'utf-8x', 'utf-16', 'utf 8', '']) {
      expect(() => json({ defaultCharset: charset }), charset).toThrow(/defaultCharset/)
    }
  })

  it('names each admission()-only option in the TypeError, even one set to undefined', () => {
    for (const key of ['types', 'otherTypes', 'passMethods', 'renderRefusal']) {
      expect(() => json({ [key]: undefined } as JsonOptions), key).toThrow(new RegExp(key))
    }
  })

  it('takes maxBytes in place of limit and answers 413 one byte past it', async () => {
    expect(resolveJsonOptions({ maxBytes: 10 }).body.policy.maxBytes).toBe(10)
    const parser = json({ maxBytes: 10 })
    const reached: unknown[] = []
    const server = createServer((req, res) => {
      parser(req, res, (err?: unknown) => {
        if (err) {
          const e = err as { status?: number; type?: string }
          res.statusCode = e.status ?? 500
          res.end(String(e.type))
          return
        }
        reached.push((req as { body?: unknown }).body)
        res.end('ok')
      })
    })
    await request(server).post('/').type('application/json').send('[1,2,3,4]').expect(200)
    await request(server)
      .post('/')
      .type('application/json')
      .send('[1,2,3,4,5]')
      .expect(413, 'entity.too.large')
    expect(reached).toEqual([[1, 2, 3, 4]])
  })
})

function appWith(parser: ReturnType<typeof json>) {
  const reached: unknown[] = []
  const errors: unknown[] = []
  const app = express()
  app.post('/', parser, (req: Request, res: Response) => {
    reached.push(req.body)
    res.json(req.body)
  })
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    errors.push(err)
    const e = (typeof err === 'object' && err !== null ? err : {}) as Record<string, unknown>
    res.status(typeof e.status === 'number' ? e.status : 500).json({ type: e.type ?? null })
  })
  return { app, reached, errors }
}

describe('a reviver that throws', () => {
  it("answers json()'s reviver exception 400 entity.parse.failed, as body-parser does, and the route never runs", async () => {
    const thrown = new Error('reviver says no')
    const { app, reached, errors } = appWith(
      json({
        reviver: () => {
          throw thrown
        },
      }),
    )
    const res = await request(app).post('/').type('application/json').send('{"a":1}')
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ type: 'entity.parse.failed' })
    expect(errors).toEqual([thrown])
    expect(reached).toEqual([])
  })

  // Express reads next(null), next(undefined), next(0), next('') and next(false) as "no error"
  // and next('route') as "skip to the next route": a reviver's thrown primitive handed on as it
  // is would run the route with no parsed body. decodeBody wraps it in an Error.
  const primitives: [string, unknown][] = [
    ['null', null],
    ['undefined', undefined],
    ['0', 0],
    ["''", ''],
    ['false', false],
    ["'route'", 'route'],
    ['a string', 'reviver says no'],
  ]

  it.each(primitives)(
    "answers json()'s reviver throwing %s 400 entity.parse.failed, and the route never runs",
    async (_name, value) => {
      const { app, reached, errors } = appWith(
        json({
          reviver: () => {
            throw value
          },
        }),
      )
      const res = await request(app).post('/').type('application/json').send('{"a":1}')
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ type: 'entity.parse.failed' })
      expect(reached).toEqual([])
      expect(errors).toHaveLength(1)
      expect(errors[0]).toBeInstanceOf(Error)
      expect((errors[0] as Error).cause).toBe(value)
    },
  )

  it.each(primitives)(
    "hands admission()'s reviver throwing %s to the error handler as an Error with that cause, and the route never runs",
    async (_name, value) => {
      const options: BodyAdmissionOptions = {
        reviver: () => {
          throw value
        },
      }
      const { app, reached, errors } = appWith(admission(bodyAdmission(options)))
      const res = await request(app).post('/').type('application/json').send('{"a":1}')
      expect(res.status).toBe(500)
      expect(reached).toEqual([])
      expect(errors).toHaveLength(1)
      expect(errors[0]).toBeInstanceOf(Error)
      expect((errors[0] as Error).cause).toBe(value)
    },
  )

  it('runs the route when a middleware hands Express next(null): the failure the wrapping prevents', async () => {
    const handOnNull = (_req: Request, _res: Response, next: NextFunction) => next(null)
    const { app, reached, errors } = appWith(handOnNull as unknown as ReturnType<typeof json>)
    const res = await request(app).post('/').type('application/json').send('{"a":1}')
    expect(res.status).toBe(200)
    expect(reached).toEqual([undefined])
    expect(errors).toEqual([])
  })

  it('hands an exception of the principal function to the error handler as it is, not as a parse failure', async () => {
    const thrown = new Error('no principal')
    const { app, reached, errors } = appWith(
      json({
        principal: () => {
          throw thrown
        },
      }),
    )
    const res = await request(app).post('/').type('application/json').send('{"a":1}')
    expect(res.status).toBe(500)
    expect(res.body).toEqual({ type: null })
    expect(errors).toEqual([thrown])
    expect(reached).toEqual([])
  })
})
