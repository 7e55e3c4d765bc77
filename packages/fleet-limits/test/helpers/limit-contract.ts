// The behaviour every limit store owes, run on each store (memory, Redis) through the public
// limits. Helper for tests; not a test.

import { eventually } from '@tollgate/test-kit/eventually'
import { describe, expect, it } from 'vitest'
import {
  createConcurrencyLimit,
  createRateLimit,
  type LimitLease,
  type LimitRefusal,
  type LimitStore,
} from '../../src/index.js'

let made = 0
/** A fresh limit name per test, so tests on one store never share counts. */
export const fresh = (what: string) => `${what}-${process.pid}-${++made}`

function leaseOf(answer: LimitLease | LimitRefusal): LimitLease {
  if (!answer.ok) throw new Error(`expected a lease, got ${answer.code}`)
  return answer
}

export function limitStoreContract(label: string, store: () => LimitStore): void {
  describe(`createConcurrencyLimit on ${label}`, () => {
    it('admits `limit` leases for a key and refuses the next with ERR_LIMIT_CONCURRENT', async () => {
      const limit = createConcurrencyLimit({ store: store(), name: fresh('c'), limit: 3 })
      const held = await Promise.all([1, 2, 3].map(() => limit.acquire('alice')))
      expect(held.every((a) => a.ok)).toBe(true)
      const refused = await limit.acquire('alice')
      expect(refused).toEqual({
        ok: false,
        code: 'ERR_LIMIT_CONCURRENT',
        limit: 3,
        status: 429,
        retryAfterSeconds: 1,
        option: 'limit',
      })
      expect((await limit.acquire('bob')).ok).toBe(true)
      for (const l of held) await leaseOf(l).release()
    })

    it('frees one place per release, and a second release frees nothing more', async () => {
      const limit = createConcurrencyLimit({ store: store(), name: fresh('c'), limit: 2 })
      const a = leaseOf(await limit.acquire('k'))
      const b = leaseOf(await limit.acquire('k'))
      await a.release()
      await a.release()
      const c = leaseOf(await limit.acquire('k'))
      expect((await limit.acquire('k')).ok).toBe(false)
      await b.release()
      await c.release()
    })

    it('holds a pool to `limit` and each member to its poolMemberShare, in one decision', async () => {
      const limit = createConcurrencyLimit({
        store: store(),
        name: fresh('c'),
        limit: 8,
        poolMemberShare: 0.25,
      })
      const member = await Promise.all([1, 2, 3].map(() => limit.acquire('ip:1', 'anonymous')))
      expect(member.map((a) => a.ok)).toEqual([true, true, false])
      expect(member[2]).toMatchObject({
        code: 'ERR_LIMIT_CONCURRENT',
        limit: 2,
        option: 'poolMemberShare',
      })
      const others = await Promise.all(
        ['ip:2', 'ip:2', 'ip:3', 'ip:3', 'ip:4', 'ip:4', 'ip:5'].map((k) =>
          limit.acquire(k, 'anonymous'),
        ),
      )
      expect(others.filter((a) => a.ok)).toHaveLength(6)
      expect(others[6]).toMatchObject({ code: 'ERR_LIMIT_CONCURRENT', limit: 8, option: 'limit' })
      // A refused member took no place in the pool: a release by one member admits another.
      await leaseOf(member[0]!).release()
      expect((await limit.acquire('ip:5', 'anonymous')).ok).toBe(true)
    })

    it('keeps limits with different names apart on one store', async () => {
      const s = store()
      const one = createConcurrencyLimit({ store: s, name: fresh('c'), limit: 1 })
      const two = createConcurrencyLimit({ store: s, name: fresh('c'), limit: 1 })
      expect((await one.acquire('k')).ok).toBe(true)
      expect((await two.acquire('k')).ok).toBe(true)
      expect((await one.acquire('k')).ok).toBe(false)
    })

    it('frees a lease nobody renews once leaseMs has passed, beside one that is held', async () => {
      const s = store()
      const name = fresh('c')
      const limit = createConcurrencyLimit({ store: s, name, limit: 2 })
      // A live lease keeps the key itself alive: the dead one must be swept from it.
      const live = leaseOf(await limit.acquire('k'))
      // Taken through the store, as a holder that died would have left it: never renewed.
      expect((await s.acquire({ name, key: 'k', id: 'dead', limit: 2, leaseMs: 200 })).ok).toBe(
        true,
      )
      expect((await limit.acquire('k')).ok).toBe(false)
      expect(await eventually(async () => (await limit.acquire('k')).ok, 10_000)).toBe(true)
      expect((await limit.acquire('k')).ok).toBe(false)
      await live.release()
    })

    it('keeps a held lease past leaseMs by renewing it', async () => {
      const limit = createConcurrencyLimit({
        store: store(),
        name: fresh('c'),
        limit: 1,
        leaseMs: 1000,
      })
      const held = leaseOf(await limit.acquire('k'))
      await new Promise((r) => setTimeout(r, 3500))
      expect((await limit.acquire('k')).ok).toBe(false)
      await held.release()
      expect((await limit.acquire('k')).ok).toBe(true)
    })
  })

  describe(`createRateLimit on ${label}`, () => {
    it('admits a burst and refuses the next call with ERR_LIMIT_RATE and a Retry-After', async () => {
      const rate = createRateLimit({ store: store(), name: fresh('r'), perMinute: 6, burst: 4 })
      const answers = []
      for (let i = 0; i < 5; i++) answers.push(await rate.take('alice'))
      expect(answers.map((a) => a.ok)).toEqual([true, true, true, true, false])
      expect(answers[4]).toMatchObject({
        code: 'ERR_LIMIT_RATE',
        limit: 6,
        status: 429,
        option: 'perMinute',
      })
      // 6 a minute: one token every 10 s.
      const wait = (answers[4] as LimitRefusal).retryAfterSeconds
      expect(wait).toBeGreaterThan(5)
      expect(wait).toBeLessThanOrEqual(10)
      expect((await rate.take('bob')).ok).toBe(true)
    })

    it('charges `cost` tokens and takes nothing on a refusal', async () => {
      const rate = createRateLimit({ store: store(), name: fresh('r'), perMinute: 60, burst: 5 })
      expect(await rate.take('k', undefined, 3)).toMatchObject({ ok: true, remaining: 2 })
      expect((await rate.take('k', undefined, 3)).ok).toBe(false)
      expect(await rate.take('k', undefined, 2)).toMatchObject({ ok: true })
    })

    it('holds a pool to the rate and each member to its poolMemberShare of it', async () => {
      const rate = createRateLimit({ store: store(), name: fresh('r'), perMinute: 1, burst: 8 })
      const first = []
      for (let i = 0; i < 3; i++) first.push(await rate.take('ip:1', 'anonymous'))
      expect(first.map((a) => a.ok)).toEqual([true, true, false])
      expect(first[2]).toMatchObject({ code: 'ERR_LIMIT_RATE', option: 'poolMemberShare' })
      let admitted = 2
      for (const k of ['ip:2', 'ip:3', 'ip:4', 'ip:5']) {
        for (let i = 0; i < 2; i++) if ((await rate.take(k, 'anonymous')).ok) admitted++
      }
      expect(admitted).toBe(8)
      expect(await rate.take('ip:6', 'anonymous')).toMatchObject({
        ok: false,
        option: 'perMinute',
        limit: 1,
      })
    })

    it('refills with time, a token at a time: a spent bucket admits again', async () => {
      // 60 a minute is one token a second; a full bucket of 100 is 100 s away.
      const rate = createRateLimit({ store: store(), name: fresh('r'), perMinute: 60, burst: 100 })
      expect(await rate.take('k', undefined, 100)).toMatchObject({ ok: true, remaining: 0 })
      let remaining = -1
      const refilled = await eventually(async () => {
        const grant = await rate.take('k')
        if (grant.ok) remaining = grant.remaining
        return grant.ok
      }, 20_000)
      expect(refilled).toBe(true)
      // Refilled, not reset to a full bucket (which an expired or forgotten key would give).
      expect(remaining).toBeGreaterThanOrEqual(0)
      expect(remaining).toBeLessThan(50)
    })
  })
}
