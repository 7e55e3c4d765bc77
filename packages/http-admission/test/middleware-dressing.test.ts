// What the middleware hands the app around the admission itself, through a real http.Server
// (supertest listens on 127.0.0.1, port 0): the status a throwing `verify` or reviver is
// dressed with, the empty body of `Content-Length: 0`, a request an earlier parser already
// read, a `type` function, and the refusal options (`renderRefusal`, `retryAfterSeconds`).
// The app's error handler records the error and answers 299, so a bad status the middleware
// might put on an error is asserted, never thrown by Node.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import {
  type AdmissionHostOptions,
  type AdmissionMiddleware,
  admission,
  bodyAdmission,
  createInFlightBudget,
  type JsonOptions,
  json,
} from '../src/index.js'

interface Served {
  readonly server: ReturnType<typeof createServer>
  readonly reached: unknown[]
  readonly errors: Record<string, unknown>[]
}

function serve(
  handle: AdmissionMiddleware,
  before?: (req: IncomingMessage, res: ServerResponse) => void,
): Served {
  const reached: unknown[] = []
  const errors: Record<string, unknown>[] = []
  const server = createServer((req, res) => {
    before?.(req, res)
    handle(req, res, (err?: unknown) => {
      if (err) {
        errors.push(err as Record<string, unknown>)
        res.statusCode = 299
        res.end('error')
        return
      }
      const body = (req as { body?: unknown }).body
      reached.push(body)
      res.end(JSON.stringify(body) ?? typeof body)
    })
  })
  return { server, reached, errors }
}

const post = (served: Served, body: string, type = 'application/json') =>
  request(served.server).post('/').timeout(5_000).set('content-type', type).send(body)

/** Every way a verify hook can throw, and the status it must be answered with. */
const THROWN: readonly (readonly [string, number, () => unknown])[] = [
  ['status 401', 401, () => Object.assign(new Error('no'), { status: 401 })],
  ['statusCode 409', 409, () => Object.assign(new Error('no'), { statusCode: 409 })],
  ['status 500', 500, () => Object.assign(new Error('no'), { status: 500 })],
  ['status 599', 599, () => Object.assign(new Error('no'), { status: 599 })],
  ['status 200', 403, () => Object.assign(new Error('no'), { status: 200 })],
  ['status 399', 403, () => Object.assign(new Error('no'), { status: 399 })],
  ['status 600', 403, () => Object.assign(new Error('no'), { status: 600 })],
  ['status 401.5', 403, () => Object.assign(new Error('no'), { status: 401.5 })],
  ['status "401"', 403, () => Object.assign(new Error('no'), { status: '401' })],
  ['null', 403, () => null],
  ['undefined', 403, () => undefined],
  ['a string', 403, () => 'no'],
]

const throwing = (make: () => unknown) => () => {
  throw make()
}

describe('json(): a throwing verify or reviver', () => {
  it.each(THROWN)(
    'dresses a verify that throws %s as status %i, exposed below 500',
    async (_name, status, make) => {
      const served = serve(json({ verify: throwing(make) } as JsonOptions))
      await post(served, '{"a":1}').expect(299)
      expect(served.reached).toEqual([])
      // An Error either way: the app's own error dressed, or ERR_BODY_VERIFY_FAILED for a throw
      // that is not an object.
      expect(served.errors[0]).toBeInstanceOf(Error)
      expect(served.errors[0]).toMatchObject({ status, statusCode: status, expose: status < 500 })
    },
  )

  it('answers 400 entity.parse.failed when the reviver throws, and the route does not run', async () => {
    const served = serve(
      json({
        reviver: () => {
          throw new Error('revived badly')
        },
      }),
    )
    await post(served, '{"a":1}').expect(299)
    expect(served.reached).toEqual([])
    expect(served.errors[0]).toMatchObject({
      status: 400,
      statusCode: 400,
      expose: true,
      type: 'entity.parse.failed',
    })
  })
})

describe('admission(): a throwing verify', () => {
  it.each(THROWN)(
    'answers a verify that throws %s with %i ERR_BODY_VERIFY_FAILED',
    async (_name, status, make) => {
      const served = serve(
        admission(bodyAdmission(), { verify: throwing(make) } as AdmissionHostOptions),
      )
      const response = await post(served, '{"a":1}')
      expect(response.status).toBe(status)
      expect(JSON.parse(response.text)).toMatchObject({ code: 'ERR_BODY_VERIFY_FAILED', status })
      expect(served.reached).toEqual([])
    },
  )
})

describe('an empty body (Content-Length: 0)', () => {
  it('is {} for json() of the accepted type, req.body left unset for another type', async () => {
    const served = serve(json())
    await post(served, '').expect(200, '{}')
    await post(served, '', 'text/plain').expect(200, 'undefined')
    expect(served.reached).toEqual([{}, undefined])
  })

  it('is 415 charset.unsupported for json() with a charset other than UTF-8', async () => {
    const served = serve(json())
    await post(served, '', 'application/json; charset=latin1').expect(299)
    expect(served.reached).toEqual([])
    expect(served.errors[0]).toMatchObject({ status: 415, type: 'charset.unsupported' })
  })

  it('leaves req.body undefined for admission(), of the accepted type or not', async () => {
    const served = serve(admission(bodyAdmission()))
    await post(served, '').expect(200, 'undefined')
    await post(served, '', 'text/plain').expect(200, 'undefined')
    expect(served.reached).toEqual([undefined, undefined])
  })
})

describe('json() with a type function and a malformed Content-Type', () => {
  // `application/json; charset` (a parameter without a value) does not parse to RFC 9110.
  const MALFORMED = 'application/json; charset'

  it('is {} for an empty body the type function accepted, as express.json() gives', async () => {
    const served = serve(json({ type: () => true }))
    await post(served, '', MALFORMED).expect(200, '{}')
    expect(served.reached).toEqual([{}])
  })

  it('passes a body it cannot read as JSON through unread: req.body stays undefined, never {}', async () => {
    const served = serve(json({ type: () => true }))
    await post(served, '{"a":1}', MALFORMED).expect(200, 'undefined')
    expect(served.reached).toEqual([undefined])
  })
})

describe('admission(): what it leaves to others', () => {
  it('passes a request an earlier parser marked as read (req._body) through, its body kept', async () => {
    const served = serve(admission(bodyAdmission({ maxBytes: 4 })), (req) => {
      Object.assign(req, { _body: true, body: { parsed: 'earlier' } })
    })
    await post(served, '{"a":"far more than four bytes"}').expect(200, '{"parsed":"earlier"}')
    expect(served.reached).toEqual([{ parsed: 'earlier' }])
  })

  it('passes a GET with a body through unread without asking the type function', async () => {
    const asked: unknown[] = []
    const served = serve(
      admission(bodyAdmission(), {
        accept: (req: IncomingMessage) => {
          asked.push(req.method)
          return false
        },
      }),
    )
    await request(served.server)
      .get('/')
      .timeout(5_000)
      .set('content-type', 'application/json')
      .send('{"a":1}')
      .expect(200, 'undefined')
    expect(asked).toEqual([])
  })

  it("hands a type function's exception to next(err), and the route does not run", async () => {
    const boom = new Error('type function failed')
    const served = serve(
      admission(bodyAdmission(), {
        accept: () => {
          throw boom
        },
      }),
    )
    await post(served, '{"a":1}').expect(299)
    expect(served.errors).toEqual([boom])
    expect(served.reached).toEqual([])
  })
})

describe('admission(): the refusal options', () => {
  it('answers a refusal with its renderRefusal body and a 503 with its retryAfterSeconds', async () => {
    const served = serve(
      admission(bodyAdmission({ maxBytes: 4 }), {
        renderRefusal: (error) => ({ contentType: 'text/plain', body: `refused ${error.code}` }),
      }),
    )
    const large = await post(served, '[1,2,3]')
    expect(large.status).toBe(413)
    expect(large.headers['content-type']).toBe('text/plain')
    expect(large.text).toBe('refused ERR_BODY_TOO_LARGE')
    const busy = serve(
      admission(bodyAdmission({ budget: createInFlightBudget(4), retryAfterSeconds: 7 })),
    )
    const response = await post(busy, `"${'a'.repeat(20)}"`)
    expect(response.status).toBe(503)
    expect(response.headers['retry-after']).toBe('7')
    expect(JSON.parse(response.text)).toMatchObject({ code: 'ERR_ADMISSION_BUSY', limit: 4 })
    expect([...served.reached, ...busy.reached]).toEqual([])
  })
})
