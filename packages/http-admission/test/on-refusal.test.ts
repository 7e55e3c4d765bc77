// The `onRefusal` hook of a body control, on every HTTP path over a real socket on 127.0.0.1:
// the Express middleware (`admission()`), `json()`, node:http (`admitNodeRequest`), a web
// `Request` (`admitWebRequest` behind @hono/node-server), and the Fastify, Hono and Koa
// adapters. Each refusal reaches the hook once, with its code and the status answered; a
// throwing hook leaves the answer as it was; without the hook nothing is counted. Sentinel:
// `reached`, the bodies the handler saw.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve as serveHono } from '@hono/node-server'
import type { RefusalEvent, RefusalHook } from '@tollgate/json-budget'
import { rawPost } from '@tollgate/test-kit/http-client'
import express from 'express'
import Fastify from 'fastify'
import { Hono } from 'hono'
import Koa from 'koa'
import { afterEach, describe, expect, it } from 'vitest'
import { fastifyAdmission } from '../src/fastify.js'
import { honoAdmission } from '../src/hono.js'
import {
  admission,
  admitNodeRequest,
  admitWebRequest,
  type BodyAdmission,
  bodyAdmission,
  createInFlightBudget,
  json,
  sendRefusal,
} from '../src/index.js'
import { type KoaAdmittedRequest, koaAdmission } from '../src/koa.js'
import { BAD_INPUTS, CAP, DEADLINE_MS } from './helpers/bad-inputs.js'
import { until } from './helpers/wait.js'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

function control(onRefusal: RefusalHook | undefined): BodyAdmission {
  return bodyAdmission({
    maxBytes: CAP,
    timeoutMs: DEADLINE_MS,
    idleTimeoutMs: DEADLINE_MS,
    budget: createInFlightBudget(16 * 1024 * 1024),
    onRefusal,
  })
}

function closeNode(server: Server): () => Promise<void> {
  return () => new Promise<void>((resolve) => server.close(() => resolve()))
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(closeNode(server))
  return (server.address() as AddressInfo).port
}

interface Served {
  readonly port: number
  readonly reached: unknown[]
}

type Serve = (onRefusal: RefusalHook | undefined) => Promise<Served>

function expressApp(middleware: express.RequestHandler): Promise<Served> {
  const app = express()
  const reached: unknown[] = []
  app.post('/', middleware, (req, res) => {
    reached.push(req.body)
    res.json({ ok: true })
  })
  // The answer of a refusal handed to next(err): its status and code, nothing else.
  app.use(
    (
      error: { status?: number; code?: string },
      _req: express.Request,
      res: express.Response,
      _next: express.NextFunction,
    ) => {
      res.status(error.status ?? 500).json({ code: error.code })
    },
  )
  return listen(createServer(app)).then((port) => ({ port, reached }))
}

const PATHS: readonly { name: string; depthStatus: number; serve: Serve }[] = [
  {
    name: 'admission() (Express 5)',
    depthStatus: 422,
    serve: (onRefusal) => expressApp(admission(control(onRefusal)) as express.RequestHandler),
  },
  {
    name: "admission() with refusals: 'next' (Express 5)",
    depthStatus: 422,
    serve: (onRefusal) =>
      expressApp(admission(control(onRefusal), { refusals: 'next' }) as express.RequestHandler),
  },
  {
    name: 'json() (Express 5)',
    // body-parser's status for a body it cannot parse.
    depthStatus: 400,
    serve: (onRefusal) => expressApp(json({ limit: CAP, onRefusal }) as express.RequestHandler),
  },
  {
    name: 'admitNodeRequest (node:http)',
    depthStatus: 422,
    serve: async (onRefusal) => {
      const body = control(onRefusal)
      const reached: unknown[] = []
      const server = createServer(async (req, res) => {
        const result = await admitNodeRequest(req, body)
        if (!result.ok) return sendRefusal(res, result.error)
        reached.push(result.value)
        res.end('{"ok":true}')
      })
      return { port: await listen(server), reached }
    },
  },
  {
    name: 'admitWebRequest (web Request)',
    depthStatus: 422,
    serve: async (onRefusal) => {
      const body = control(onRefusal)
      const reached: unknown[] = []
      const server = serveHono({
        port: 0,
        hostname: '127.0.0.1',
        fetch: async (request: Request) => {
          const result = await admitWebRequest(request, body)
          if (!result.ok) return result.response
          reached.push(result.value)
          return Response.json({ ok: true })
        },
      }) as Server
      await new Promise<void>((resolve) => server.once('listening', resolve))
      closers.push(closeNode(server))
      return { port: (server.address() as AddressInfo).port, reached }
    },
  },
  {
    name: 'fastifyAdmission (Fastify 5)',
    depthStatus: 422,
    serve: async (onRefusal) => {
      const app = Fastify({ bodyLimit: 1024 * 1024 })
      await app.register(fastifyAdmission(control(onRefusal)))
      const reached: unknown[] = []
      app.post('/', async (request) => {
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
    depthStatus: 422,
    serve: async (onRefusal) => {
      const app = new Hono()
      const reached: unknown[] = []
      app.use('*', honoAdmission(control(onRefusal)))
      app.post('/', async (c) => {
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
    depthStatus: 422,
    serve: async (onRefusal) => {
      const app = new Koa()
      const reached: unknown[] = []
      app.use(koaAdmission(control(onRefusal)))
      app.use((ctx) => {
        reached.push((ctx.request as KoaAdmittedRequest).body)
        ctx.body = { ok: true }
      })
      return { port: await listen(createServer(app.callback())), reached }
    },
  },
]

const OVER_CAP = BAD_INPUTS.find((row) => row.name === 'a declared body over the cap')
const TOO_DEEP = BAD_INPUTS.find((row) => row.name === 'depth 65')
if (OVER_CAP === undefined || TOO_DEEP === undefined) throw new Error('bad-input rows renamed')

async function admitted(port: number): Promise<number> {
  const response = await rawPost(
    port,
    { 'content-type': 'application/json' },
    Buffer.from('{"a":1}'),
    { path: '/' },
  )
  return response.status
}

describe('bodyAdmission onRefusal', () => {
  it.each(PATHS)(
    '$name: calls the hook once per refusal with its code and status; the handler does not run',
    async (path) => {
      const events: RefusalEvent[] = []
      const { port, reached } = await path.serve((event) => {
        events.push(event)
      })
      expect((await OVER_CAP.send(port))?.status).toBe(413)
      expect((await TOO_DEEP.send(port))?.status).toBe(path.depthStatus)
      await until(() => events.length >= 2)
      // An admitted body after them: no event of its own, and none late for the refusals.
      expect(await admitted(port)).toBe(200)
      expect(reached).toEqual([{ a: 1 }])
      expect(events).toEqual([
        {
          code: 'ERR_BODY_TOO_LARGE',
          status: 413,
          limit: CAP,
          option: 'maxBytes',
          control: 'body-admission',
        },
        expect.objectContaining({
          code: 'ERR_JSON_TOO_DEEP',
          status: path.depthStatus,
          limit: 64,
          option: 'maxDepth',
          control: 'body-admission',
        }),
      ])
      for (const event of events) expect(Object.isFrozen(event)).toBe(true)
    },
  )

  it.each(PATHS)('$name: a hook that throws (or rejects) leaves the 413 intact', async (path) => {
    let calls = 0
    const { port, reached } = await path.serve(() => {
      calls++
      if (calls === 1) throw new Error('metrics backend down')
      return Promise.reject(new Error('late failure')) as unknown as undefined
    })
    const first = await OVER_CAP.send(port)
    const second = await OVER_CAP.send(port)
    expect([first?.status, second?.status]).toEqual([413, 413])
    await until(() => calls >= 2)
    expect(await admitted(port)).toBe(200)
    expect(reached).toEqual([{ a: 1 }])
  })

  it.each(PATHS)(
    '$name: with the hook removed the same refusals are answered and nothing is counted',
    async (path) => {
      // One counter; only the control that holds it as its hook reports to it.
      let counted = 0
      const count: RefusalHook = () => {
        counted++
      }
      const withHook = await path.serve(count)
      const without = await path.serve(undefined)
      for (const { port } of [withHook, without]) {
        expect((await OVER_CAP.send(port))?.status).toBe(413)
        expect((await TOO_DEEP.send(port))?.status).toBe(path.depthStatus)
        expect(await admitted(port)).toBe(200)
      }
      expect(withHook.reached).toEqual([{ a: 1 }])
      expect(without.reached).toEqual([{ a: 1 }])
      expect(counted).toBe(2)
    },
  )

  it('refuses a hook that is not a function when the control is built', () => {
    expect(() => bodyAdmission({ onRefusal: 'log' as never })).toThrow(
      /onRefusal must be a function/,
    )
    expect(() => json({ onRefusal: 'next' as never })).toThrow(/onRefusal must be a function/)
  })
})
