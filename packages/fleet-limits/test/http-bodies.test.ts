// http-admission's `fleetBodies` through real `http.Server`s: two servers (two "instances",
// each with its own in-flight budget, Redis client and limit object) share one principal's
// body count on Redis. Slow bodies hold their place; the refused ones are answered 503 before
// a byte of their body is read, and their handler never runs. With the control removed (each
// server counting alone) the principal holds twice its bodies.

import { createServer } from 'node:http'
import {
  admitNodeRequest,
  type BodyAdmission,
  bodyAdmission,
  createInFlightBudget,
  type InFlightBudget,
  principalUsage,
  sendRefusal,
} from '@tollgate/http-admission'
import { eventually } from '@tollgate/test-kit/eventually'
import { head, RawClient, type RawResponse } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { freePort } from '@tollgate/test-kit/redis-server'
import { createClient } from 'redis'
import { afterEach, describe, expect, it } from 'vitest'
import { createConcurrencyLimit } from '../src/index.js'
import { redisLimitStore } from '../src/redis.js'
import { fresh } from './helpers/limit-contract.js'
import { useRedis } from './helpers/redis.js'

const redis = useRedis()
const BODY = '{"a":1234}'

interface Instance {
  readonly running: Running
  readonly budget: InFlightBudget
  handled: number
}

const open: Running[] = []
const clients: RawClient[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy()
  for (const r of open.splice(0)) await r.close()
})

async function instance(body: (budget: InFlightBudget) => BodyAdmission): Promise<Instance> {
  const budget = createInFlightBudget(64 * 1024 * 1024)
  const control = body(budget)
  const self: { running?: Running; handled: number } = { handled: 0 }
  const running = await listen(
    createServer(async (req, res) => {
      const principal = req.headers['x-principal'] as string | undefined
      const result = await admitNodeRequest(req, control, { principal })
      if (!result.ok) return sendRefusal(res, result.error)
      self.handled++ // the handler's sentinel: only admitted bodies reach it
      res.end('{"ok":true}')
    }),
  )
  open.push(running)
  return Object.assign(self, { running, budget }) as Instance
}

/** Starts a POST for `principal` and sends half its body; the rest waits for `finish`. */
async function slowPost(port: number, principal: string): Promise<RawClient> {
  const c = new RawClient(port)
  clients.push(c)
  await c.write(
    head([
      'POST / HTTP/1.1',
      'host: 127.0.0.1',
      'content-type: application/json',
      `content-length: ${BODY.length}`,
      `x-principal: ${principal}`,
    ]) + BODY.slice(0, 5),
  )
  return c
}

/** Six slow bodies of one principal, three to each instance; waits until `refused` answered. */
async function sixBodies(a: Instance, b: Instance, refused: number, held: number) {
  const posts: RawClient[] = []
  for (let i = 0; i < 6; i++)
    posts.push(await slowPost((i % 2 === 0 ? a : b).running.port, 'alice'))
  const inFlight = () =>
    principalUsage(a.budget, 'alice').bodies + principalUsage(b.budget, 'alice').bodies
  const settled = await eventually(
    () => posts.filter((p) => p.hasResponse()).length === refused && inFlight() === held,
    20_000,
  )
  expect(settled).toBe(true)
  // Answered now: refused before their bodies were complete. The rest hold their place.
  const refusedPosts = posts.filter((p) => p.hasResponse())
  const heldPosts = posts.filter((p) => !p.hasResponse())
  const early: RawResponse[] = []
  for (const p of refusedPosts) early.push(await p.response())
  for (const p of heldPosts) await p.write(BODY.slice(5))
  const late: RawResponse[] = []
  for (const p of heldPosts) late.push(await p.response())
  return { early, late }
}

describe.skipIf(!redis.available)('bodyAdmission fleetBodies', () => {
  it('holds one principal to the limit across two servers on one Redis, refusing the rest with 503 unread', async () => {
    const name = fresh('bodies')
    const servers = []
    for (let i = 0; i < 2; i++) {
      const fleet = createConcurrencyLimit({
        store: redisLimitStore({ client: await redis.client(), prefix: redis.prefix }),
        name,
        limit: 2,
      })
      servers.push(
        await instance((budget) =>
          bodyAdmission({
            budget,
            fleetBodies: fleet,
            maxBodiesPerPrincipal: 2,
            minBytesPerSecond: false,
          }),
        ),
      )
    }
    const [a, b] = servers as [Instance, Instance]
    const { early, late } = await sixBodies(a, b, 4, 2)
    expect(early).toHaveLength(4)
    for (const r of early) {
      expect(r.status).toBe(503)
      expect(r.headers['retry-after']).toBe('1')
      expect(JSON.parse(r.body)).toMatchObject({ code: 'ERR_ADMISSION_PRINCIPAL_BUSY', limit: 2 })
      expect(r.body).not.toContain('alice')
    }
    expect(late.map((r) => r.status)).toEqual([200, 200])
    expect(a.handled + b.handled).toBe(2)
    // Every lease was given back when its body ended: the principal is served again.
    const again = await slowPost(a.running.port, 'alice')
    await again.write(BODY.slice(5))
    expect((await again.response()).status).toBe(200)
  })

  it('control: without fleetBodies each server counts alone and the principal holds twice its bodies', async () => {
    const servers = []
    for (let i = 0; i < 2; i++) {
      servers.push(
        await instance((budget) =>
          bodyAdmission({ budget, maxBodiesPerPrincipal: 2, minBytesPerSecond: false }),
        ),
      )
    }
    const [a, b] = servers as [Instance, Instance]
    const { early, late } = await sixBodies(a, b, 2, 4)
    expect(early.map((r) => r.status)).toEqual([503, 503])
    expect(late.map((r) => r.status)).toEqual([200, 200, 200, 200])
    expect(a.handled + b.handled).toBe(4)
  })

  it("answers 503 ERR_ADMISSION_BUSY with Retry-After, unread, while the fleet's Redis is unreachable under 'closed'", async () => {
    // A client for a port nothing listens on, never connected: every command fails at once.
    const dead = createClient({
      url: `redis://127.0.0.1:${await freePort()}`,
      disableOfflineQueue: true,
    })
    const fleet = createConcurrencyLimit({
      store: redisLimitStore({ client: dead, prefix: redis.prefix }),
      name: fresh('bodies'),
      limit: 2,
      onUnavailable: 'closed',
    })
    const a = await instance((budget) => bodyAdmission({ budget, fleetBodies: fleet }))
    const post = await slowPost(a.running.port, 'alice')
    const r = await post.response()
    expect(r.status).toBe(503)
    expect(r.headers['retry-after']).toBe('1')
    expect(JSON.parse(r.body)).toMatchObject({ code: 'ERR_ADMISSION_BUSY' })
    expect(a.handled).toBe(0)
  })
})
