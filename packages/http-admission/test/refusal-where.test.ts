// The route and principal of a body control's refusal events, over a real socket on 127.0.0.1:
// `admission()` with its `route` and `principal` options, `admitNodeRequest` and
// `admitWebRequest` with the call's `route`, `principal` and `pool`. The route is the name the
// host configured (the request's own path never appears); an anonymous caller keyed by its
// address is reported as its pool and a keyed hash, never the address. Sentinel: `reached`.
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { RefusalEvent } from '@tollgate/json-budget'
import { rawPost } from '@tollgate/test-kit/http-client'
import express from 'express'
import { afterEach, describe, expect, it } from 'vitest'
import {
  ANONYMOUS_POOL,
  admission,
  admitNodeRequest,
  admitWebRequest,
  bodyAdmission,
  callerKeys,
  createInFlightBudget,
  json,
  refusalPrincipal,
  sendRefusal,
} from '../src/index.js'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return (server.address() as AddressInfo).port
}

function recorder() {
  const events: RefusalEvent[] = []
  const body = bodyAdmission({
    maxBytes: 64,
    budget: createInFlightBudget(1024 * 1024),
    onRefusal: (event) => events.push(event),
  })
  return { events, body }
}

const JSON_HEAD = { 'content-type': 'application/json' }
const OVERSIZED = Buffer.from(`{"a":"${'x'.repeat(200)}"}`)
// The request's own path: caller bytes, which no event may carry.
const PATH = '/notes/CALLER_PATH_9c2e'

async function expressWith(middleware: express.RequestHandler) {
  const app = express()
  const reached: unknown[] = []
  app.post('/notes/:id', middleware, (req, res) => {
    reached.push(req.body)
    res.json({ ok: true })
  })
  app.use(
    (
      error: { status?: number },
      _req: express.Request,
      res: express.Response,
      _next: express.NextFunction,
    ) => {
      res.status(error.status ?? 500).end()
    },
  )
  return { port: await listen(createServer(app)), reached }
}

describe('admission (refusal events)', () => {
  it('reports the configured route and the named principal, never the request path', async () => {
    const { events, body } = recorder()
    const { port, reached } = await expressWith(
      admission(body, { route: 'notes', principal: () => 'cred:ada' }) as express.RequestHandler,
    )
    const answer = await rawPost(port, JSON_HEAD, OVERSIZED, { path: PATH })
    expect(answer.status).toBe(413)
    expect(reached).toEqual([])
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      code: 'ERR_BODY_TOO_LARGE',
      status: 413,
      route: 'notes',
      principal: 'cred:ada',
    })
    expect(JSON.stringify(events)).not.toContain('CALLER_PATH')
  })

  it('reports the principal of a refusal decided from the head (media type), before any read', async () => {
    const { events, body } = recorder()
    const { port, reached } = await expressWith(
      admission(body, { route: 'notes', principal: () => 'cred:ada' }) as express.RequestHandler,
    )
    const answer = await rawPost(port, { 'content-type': 'text/plain' }, Buffer.from('{}'), {
      path: PATH,
    })
    expect(answer.status).toBe(415)
    expect(reached).toEqual([])
    expect(events[0]).toMatchObject({ code: 'ERR_BODY_MEDIA_TYPE', principal: 'cred:ada' })
  })

  it('hashes an address key of callerKeys(), so the caller’s address never reaches the event', async () => {
    const { events, body } = recorder()
    const keys = callerKeys()
    const { port } = await expressWith(
      admission(body, {
        principal: (req) => keys.keyOf(req as IncomingMessage),
      }) as express.RequestHandler,
    )
    await rawPost(port, JSON_HEAD, OVERSIZED, { path: PATH })
    await rawPost(port, JSON_HEAD, OVERSIZED, { path: PATH })
    expect(events).toHaveLength(2)
    expect(events[0]?.principal).toMatch(/^ip#[0-9a-f]{16}$/)
    // One caller, one key: the hash still tells callers apart.
    expect(events[1]?.principal).toBe(events[0]?.principal)
    expect(JSON.stringify(events)).not.toContain('127.0.0.1')
    expect(events[0]).not.toHaveProperty('route')
  })

  it('takes the route as an option of json() too', async () => {
    const { events } = recorder()
    const seen: RefusalEvent[] = events
    const { port } = await expressWith(
      json({ limit: 64, route: 'notes', onRefusal: (e) => seen.push(e) }) as express.RequestHandler,
    )
    const answer = await rawPost(port, JSON_HEAD, OVERSIZED, { path: PATH })
    expect(answer.status).toBe(413)
    expect(seen[0]).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', route: 'notes' })
  })

  it('refuses a route that is not 1–200 printable characters at construction', () => {
    const { body } = recorder()
    for (const route of ['', 'a\nb', 'r'.repeat(201), 7]) {
      expect(() => admission(body, { route } as never)).toThrow(/route/)
    }
  })
})

describe('admitNodeRequest (refusal events)', () => {
  it('reports an anonymous caller as its pool and a keyed hash, with the call’s route', async () => {
    const { events, body } = recorder()
    const keys = callerKeys()
    const reached: unknown[] = []
    const port = await listen(
      createServer(async (req, res) => {
        const result = await admitNodeRequest(req, body, {
          principal: keys.keyOf(req),
          pool: ANONYMOUS_POOL,
          route: 'notes',
        })
        if (!result.ok) return sendRefusal(res, result.error)
        reached.push(result.value)
        res.end()
      }),
    )
    const answer = await rawPost(port, JSON_HEAD, OVERSIZED, { path: PATH })
    expect(answer.status).toBe(413)
    expect(reached).toEqual([])
    expect(events[0]).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', route: 'notes' })
    expect(events[0]?.principal).toMatch(/^anonymous#[0-9a-f]{16}$/)
    expect(events[0]?.principal).toBe(refusalPrincipal('ip:127.0.0.1', ANONYMOUS_POOL))
    expect(JSON.stringify(events)).not.toContain('127.0.0.1')
  })
})

describe('admitWebRequest (refusal events)', () => {
  it('reports the call’s route and principal', async () => {
    const { events, body } = recorder()
    const request = new Request('http://127.0.0.1/notes/CALLER_PATH_9c2e', {
      method: 'POST',
      headers: JSON_HEAD,
      body: OVERSIZED,
    })
    const result = await admitWebRequest(request, body, { principal: 'tenant-7', route: 'notes' })
    expect(result.ok).toBe(false)
    expect(events[0]).toMatchObject({
      code: 'ERR_BODY_TOO_LARGE',
      route: 'notes',
      principal: 'tenant-7',
    })
    expect(JSON.stringify(events)).not.toContain('CALLER_PATH')
  })
})

describe('refusalPrincipal', () => {
  it('reports a named principal as it is, and nothing without one', () => {
    expect(refusalPrincipal('cred:ada')).toBe('cred:ada')
    expect(refusalPrincipal(undefined)).toBeUndefined()
    expect(refusalPrincipal('')).toBeUndefined()
  })

  it('hashes a key in a pool and an address key: the same key the same hash, two keys two', () => {
    const a = refusalPrincipal('ip:203.0.113.7', ANONYMOUS_POOL)
    expect(a).toMatch(/^anonymous#[0-9a-f]{16}$/)
    expect(refusalPrincipal('ip:203.0.113.7', ANONYMOUS_POOL)).toBe(a)
    expect(refusalPrincipal('ip:203.0.113.8', ANONYMOUS_POOL)).not.toBe(a)
    expect(refusalPrincipal('ip:203.0.113.7')).toMatch(/^ip#[0-9a-f]{16}$/)
    expect(`${a}${refusalPrincipal('ip:203.0.113.7')}`).not.toContain('203.0.113')
  })

  it('keeps a report within 128 characters: a long name is hashed, a long pool cut', () => {
    expect(refusalPrincipal('n'.repeat(129))).toMatch(/^#[0-9a-f]{16}$/)
    expect(refusalPrincipal('n'.repeat(128))).toHaveLength(128)
    expect(refusalPrincipal('k', 'p'.repeat(500))?.length).toBeLessThanOrEqual(128)
  })
})
