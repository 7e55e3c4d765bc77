// The `fleetBodies` seat through a real http.Server, with a counting fleet object of the
// structural shape the option takes (a fleet-limits concurrency limit on Redis is shown in
// packages/fleet-limits/test/http-bodies.test.ts). What is pinned here: the fleet is asked
// before the body is read, with the call's principal and pool; its refusal is the 503 the
// per-principal count answers; its lease is released exactly once however the body ends.

import { createServer } from 'node:http'
import { rawPost } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import {
  admitNodeRequest,
  bodyAdmission,
  createInFlightBudget,
  type FleetBodies,
  type FleetBodyAnswer,
  sendRefusal,
} from '../src/index.js'

const open: Running[] = []
afterEach(async () => {
  for (const r of open.splice(0)) await r.close()
})

function countingFleet(answer: () => FleetBodyAnswer | Promise<never>) {
  const seen = { asked: [] as [string, string | undefined][], released: 0 }
  const fleet: FleetBodies = {
    async acquire(key, pool) {
      seen.asked.push([key, pool])
      const a = await answer()
      return a.ok ? { ok: true, release: () => seen.released++ } : a
    },
  }
  return { fleet, seen }
}

async function serve(fleet: FleetBodies, maxBytes = 1024) {
  const control = bodyAdmission({
    budget: createInFlightBudget(1 << 20),
    fleetBodies: fleet,
    maxBytes,
  })
  const state = { handled: 0 }
  const running = await listen(
    createServer(async (req, res) => {
      const principal = req.headers['x-principal'] as string | undefined
      const pool = req.headers['x-pool'] as string | undefined
      const result = await admitNodeRequest(req, control, { principal, pool })
      if (!result.ok) return sendRefusal(res, result.error)
      state.handled++
      res.end('{}')
    }),
  )
  open.push(running)
  return { port: running.port, state }
}

const json = { 'content-type': 'application/json' }
const post = (port: number, headers: Record<string, string>, body: string, chunked = false) =>
  rawPost(port, { ...json, ...headers }, Buffer.from(body), { path: '/', chunked })

describe('bodyAdmission fleetBodies', () => {
  it('refuses a fleetBodies without acquire at construction', () => {
    expect(() => bodyAdmission({ fleetBodies: {} as FleetBodies })).toThrow(/fleetBodies/)
  })

  it("answers the fleet's concurrency refusal with 503 ERR_ADMISSION_PRINCIPAL_BUSY, its limit and Retry-After, before the handler", async () => {
    const { fleet, seen } = countingFleet(() => ({
      ok: false,
      code: 'ERR_LIMIT_CONCURRENT',
      limit: 3,
    }))
    const { port, state } = await serve(fleet)
    const r = await post(port, { 'x-principal': 'alice', 'x-pool': 'anonymous' }, '{"a":1}')
    expect(r.status).toBe(503)
    expect(r.headers['retry-after']).toBe('1')
    expect(JSON.parse(r.body)).toMatchObject({ code: 'ERR_ADMISSION_PRINCIPAL_BUSY', limit: 3 })
    expect(seen.asked).toEqual([['alice', 'anonymous']])
    expect(state.handled).toBe(0)
  })

  it('answers 503 ERR_ADMISSION_BUSY when the fleet reports its store unavailable or rejects', async () => {
    for (const answer of [
      () => ({ ok: false as const, code: 'ERR_LIMIT_UNAVAILABLE', limit: 3 }),
      () => Promise.reject(new Error('store down')),
    ]) {
      const { fleet } = countingFleet(answer)
      const { port, state } = await serve(fleet)
      const r = await post(port, { 'x-principal': 'alice' }, '{"a":1}')
      expect(r.status).toBe(503)
      expect(JSON.parse(r.body)).toMatchObject({ code: 'ERR_ADMISSION_BUSY' })
      expect(state.handled).toBe(0)
    }
  })

  it('releases the lease once when the body is admitted, and once when it is refused mid-read', async () => {
    const { fleet, seen } = countingFleet(() => ({ ok: true, release: () => {} }))
    const { port, state } = await serve(fleet, 16)
    expect((await post(port, { 'x-principal': 'alice' }, '{"a":1}')).status).toBe(200)
    expect(state.handled).toBe(1)
    expect(seen.released).toBe(1)
    const big = await post(port, { 'x-principal': 'alice' }, `{"a":"${'x'.repeat(64)}"}`, true)
    // Chunked, so no declared length: refused while reading, after the lease was taken.
    expect(big.status).toBe(413)
    expect(seen.asked).toHaveLength(2)
    expect(seen.released).toBe(2)
    expect(state.handled).toBe(1)
  })

  it('does not ask the fleet for a request without a principal', async () => {
    const { fleet, seen } = countingFleet(() => ({
      ok: false,
      code: 'ERR_LIMIT_CONCURRENT',
      limit: 1,
    }))
    const { port, state } = await serve(fleet)
    expect((await post(port, {}, '{"a":1}')).status).toBe(200)
    expect(seen.asked).toEqual([])
    expect(state.handled).toBe(1)
  })
})
