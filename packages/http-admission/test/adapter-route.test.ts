// The route and principal of the framework adapters' refusal events, on each framework's own
// server on 127.0.0.1 (Fastify 5, Hono on @hono/node-server, Koa): the adapter's `route` option
// is the route's name in the event (the request's own path never appears), the principal an
// earlier hook set is reported as its key (an address key of `callerKeys()` as a keyed hash,
// never the address), and no body byte reaches the event. Sentinel: `reached`, the bodies the
// handler saw.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve as serveHono } from '@hono/node-server'
import type { RefusalEvent } from '@tollgate/json-budget'
import { rawPost } from '@tollgate/test-kit/http-client'
import Fastify from 'fastify'
import { Hono } from 'hono'
import Koa from 'koa'
import { afterEach, describe, expect, it } from 'vitest'
import type { FrameworkAdmissionOptions } from '../src/adapter-options.js'
import { fastifyAdmission } from '../src/fastify.js'
import { honoAdmission } from '../src/hono.js'
import { type BodyAdmission, bodyAdmission, createInFlightBudget } from '../src/index.js'
import { type KoaAdmittedRequest, koaAdmission } from '../src/koa.js'
import { until } from './helpers/wait.js'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

function closeNode(server: Server): () => Promise<void> {
  return () => new Promise<void>((resolve) => server.close(() => resolve()))
}

interface Served {
  readonly port: number
  readonly reached: unknown[]
}

type Serve = (
  body: BodyAdmission,
  options: FrameworkAdmissionOptions | undefined,
  principal: string,
) => Promise<Served>

const ADAPTERS: readonly { name: string; serve: Serve }[] = [
  {
    name: 'fastifyAdmission (Fastify 5)',
    serve: async (body, options, principal) => {
      const app = Fastify()
      app.addHook('onRequest', async (request) => {
        ;(request as { principal?: string }).principal = principal
      })
      await app.register(fastifyAdmission(body, options))
      const reached: unknown[] = []
      app.post('/notes/:id', async (request) => {
        reached.push(request.body)
        return { ok: true }
      })
      await app.listen({ port: 0, host: '127.0.0.1' })
      closers.push(() => app.close())
      return { port: (app.server.address() as AddressInfo).port, reached }
    },
  },
  {
    name: 'honoAdmission (Hono on Node)',
    serve: async (body, options, principal) => {
      const app = new Hono<{ Variables: { principal: string } }>()
      const reached: unknown[] = []
      app.use('*', async (c, next) => {
        c.set('principal', principal)
        await next()
      })
      app.post('/notes/:id', honoAdmission(body, options), async (c) => {
        reached.push(await c.req.json())
        return c.json({ ok: true })
      })
      const server = serveHono({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server
      await new Promise<void>((resolve) => server.once('listening', resolve))
      closers.push(closeNode(server))
      return { port: (server.address() as AddressInfo).port, reached }
    },
  },
  {
    name: 'koaAdmission (Koa)',
    serve: async (body, options, principal) => {
      const app = new Koa()
      const reached: unknown[] = []
      app.use(async (ctx, next) => {
        ctx.state.principal = principal
        await next()
      })
      app.use(koaAdmission(body, options))
      app.use((ctx) => {
        reached.push((ctx.request as KoaAdmittedRequest).body)
        ctx.body = { ok: true }
      })
      const server = createServer(app.callback())
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      closers.push(closeNode(server))
      return { port: (server.address() as AddressInfo).port, reached }
    },
  },
]

function recorder() {
  const events: RefusalEvent[] = []
  const body = bodyAdmission({
    maxBytes: 4096,
    maxDepth: 4,
    budget: createInFlightBudget(1024 * 1024),
    onRefusal: (event) => events.push(event),
  })
  return { events, body }
}

const JSON_HEAD = { 'content-type': 'application/json' }
// Read in full before it is refused (depth 5 past a limit of 4), so the bytes were in hand.
const BODY_MARK = 'BODY_BYTES_5e81'
const TOO_DEEP = Buffer.from(`{"mark":"${BODY_MARK}","d":[[[[["${BODY_MARK}"]]]]]}`)
// The request's own path: caller bytes, which no event may carry.
const PATH = '/notes/CALLER_PATH_9c2e'

describe.each(ADAPTERS)('$name refusal events', ({ serve }) => {
  it('carry the configured route and the named principal, and no body byte or request path', async () => {
    const { events, body } = recorder()
    const { port, reached } = await serve(body, { route: 'notes' }, 'cred:ada')
    const answer = await rawPost(port, JSON_HEAD, TOO_DEEP, { path: PATH })
    expect(answer.status).toBe(422)
    await until(() => events.length >= 1)
    expect(reached).toEqual([])
    expect(events).toEqual([
      {
        code: 'ERR_JSON_TOO_DEEP',
        status: 422,
        limit: 4,
        option: 'maxDepth',
        control: 'body-admission',
        route: 'notes',
        principal: 'cred:ada',
      },
    ])
    const text = JSON.stringify(events)
    expect(text).not.toContain(BODY_MARK)
    expect(text).not.toContain('CALLER_PATH')
  })

  it('report an address key as its keyed hash, never the address', async () => {
    const { events, body } = recorder()
    const { port, reached } = await serve(body, { route: 'notes' }, 'ip:127.0.0.1')
    expect((await rawPost(port, JSON_HEAD, TOO_DEEP, { path: PATH })).status).toBe(422)
    expect((await rawPost(port, JSON_HEAD, TOO_DEEP, { path: PATH })).status).toBe(422)
    await until(() => events.length >= 2)
    expect(reached).toEqual([])
    expect(events[0]?.principal).toMatch(/^ip#[0-9a-f]{16}$/)
    expect(events[1]?.principal).toBe(events[0]?.principal)
    expect(JSON.stringify(events)).not.toContain('127.0.0.1')
  })

  it('control: without the route option the same refusal carries no route', async () => {
    const { events, body } = recorder()
    const { port } = await serve(body, undefined, 'cred:ada')
    expect((await rawPost(port, JSON_HEAD, TOO_DEEP, { path: PATH })).status).toBe(422)
    await until(() => events.length >= 1)
    expect(events[0]).toMatchObject({ code: 'ERR_JSON_TOO_DEEP', principal: 'cred:ada' })
    expect(events[0]).not.toHaveProperty('route')
  })

  it('admits a body within the limits and reports nothing', async () => {
    const { events, body } = recorder()
    const { port, reached } = await serve(body, { route: 'notes' }, 'cred:ada')
    const answer = await rawPost(port, JSON_HEAD, Buffer.from('{"a":[[1]]}'), { path: PATH })
    expect(answer.status).toBe(200)
    expect(reached).toEqual([{ a: [[1]] }])
    expect(events).toEqual([])
  })
})

describe.each([
  ['fastifyAdmission', fastifyAdmission],
  ['honoAdmission', honoAdmission],
  ['koaAdmission', koaAdmission],
] as const)('%s options', (name, adapter) => {
  const body = bodyAdmission()

  it('refuses a route that is not 1–200 printable characters when it is built', () => {
    for (const route of ['', 'x'.repeat(201), 'notes\nforged', 42]) {
      expect(() => adapter(body, { route } as never), String(route)).toThrow(TypeError)
    }
    expect(() => adapter(body, { route: '/notes/:id' })).not.toThrow()
  })

  it('refuses an unknown option, naming the adapter', () => {
    expect(() => adapter(body, { maxBytes: 10 } as never)).toThrow(
      new RegExp(`^${name}: unknown option maxBytes$`),
    )
  })
})
