// The failure rule through the public limits, over a store that can be switched off: a
// memory store wrapped so every call rejects while `down` (what a Redis client does with its
// offline queue disabled). The Redis suite shows the same with a real server stopped.

import { eventually } from '@tollgate/test-kit/eventually'
import { describe, expect, it } from 'vitest'
import {
  createConcurrencyLimit,
  createRateLimit,
  type LimitStore,
  LimitStoreUnavailableError,
  memoryLimitStore,
  type OutageEvent,
} from '../src/index.js'

function switchable() {
  const inner = memoryLimitStore()
  const state = { down: false, calls: 0 }
  const gate =
    <A, R>(f: (a: A) => Promise<R>) =>
    async (a: A) => {
      state.calls++
      if (state.down) throw new LimitStoreUnavailableError()
      return f(a)
    }
  const store: LimitStore = {
    kind: 'switchable',
    acquire: gate(inner.acquire),
    renew: gate(inner.renew),
    release: gate(inner.release),
    take: gate(inner.take),
  }
  return { store, state }
}

describe('createConcurrencyLimit onUnavailable', () => {
  it("refuses with ERR_LIMIT_UNAVAILABLE (503) under 'closed', reports the outage once, and recovers", async () => {
    const { store, state } = switchable()
    const events: OutageEvent[] = []
    const limit = createConcurrencyLimit({
      store,
      name: 'bodies',
      limit: 4,
      onUnavailable: 'closed',
      onOutage: (e) => events.push(e),
    })
    state.down = true
    const answers = await Promise.all([1, 2, 3].map(() => limit.acquire('k')))
    for (const a of answers) {
      expect(a).toEqual({
        ok: false,
        code: 'ERR_LIMIT_UNAVAILABLE',
        limit: 4,
        status: 503,
        retryAfterSeconds: 1,
        option: 'onUnavailable',
      })
    }
    expect(events).toEqual([{ name: 'bodies', state: 'started' }])
    state.down = false
    expect(await eventually(async () => (await limit.acquire('k')).ok, 10_000)).toBe(true)
    expect(events).toEqual([
      { name: 'bodies', state: 'started' },
      { name: 'bodies', state: 'ended' },
    ])
  })

  it('falls back to floor(limit ÷ instances) in this process under local, never unlimited', async () => {
    const { store, state } = switchable()
    const events: OutageEvent[] = []
    const limit = createConcurrencyLimit({
      store,
      name: 'bodies',
      limit: 9,
      onUnavailable: { local: { instances: 3 } },
      onOutage: (e) => events.push(e),
    })
    state.down = true
    const answers = []
    for (let i = 0; i < 5; i++) answers.push(await limit.acquire('k'))
    expect(answers.map((a) => a.ok)).toEqual([true, true, true, false, false])
    expect(answers[3]).toMatchObject({
      code: 'ERR_LIMIT_CONCURRENT',
      limit: 3,
      option: 'onUnavailable',
    })
    expect(events).toHaveLength(1)
    state.down = false
    // Back on the shared store: the full limit (the local leases live in the local store).
    expect(await eventually(async () => (await limit.acquire('k')).ok, 10_000)).toBe(true)
    expect(events.map((e) => e.state)).toEqual(['started', 'ended'])
  })

  it('asks a down store at most about once a second, not once per call', async () => {
    const { store, state } = switchable()
    const limit = createConcurrencyLimit({ store, name: 'b', limit: 1, onUnavailable: 'closed' })
    state.down = true
    for (let i = 0; i < 50; i++) await limit.acquire('k')
    // A slow machine may cross a probe boundary once or twice; 50 calls must not mean 50 asks.
    expect(state.calls).toBeLessThan(10)
  })
})

describe('createRateLimit onUnavailable', () => {
  it("defaults to 'closed': a down store refuses with 503", async () => {
    const { store, state } = switchable()
    const rate = createRateLimit({ store, name: 'r', perMinute: 100 })
    expect(rate.policy.onUnavailable).toBe('closed')
    state.down = true
    expect(await rate.take('k')).toMatchObject({ code: 'ERR_LIMIT_UNAVAILABLE', status: 503 })
  })

  it('falls back to perMinute ÷ instances and burst ÷ instances under local', async () => {
    const { store, state } = switchable()
    const rate = createRateLimit({
      store,
      name: 'r',
      perMinute: 1,
      burst: 10,
      onUnavailable: { local: { instances: 4 } },
    })
    state.down = true
    const answers = []
    for (let i = 0; i < 4; i++) answers.push(await rate.take('k'))
    expect(answers.map((a) => a.ok)).toEqual([true, true, false, false])
  })
})

describe('createConcurrencyLimit', () => {
  it('defaults to a local fallback of one instance', () => {
    const limit = createConcurrencyLimit({ store: memoryLimitStore(), name: 'c', limit: 1 })
    expect(limit.policy.onUnavailable).toEqual({ local: { instances: 1 } })
    expect(limit.policy.leaseMs).toBe(30_000)
    expect(Object.isFrozen(limit)).toBe(true)
    expect(Object.isFrozen(limit.policy)).toBe(true)
  })

  it('refuses bad options at construction, naming the option', () => {
    const store = memoryLimitStore()
    const bad: [object, RegExp][] = [
      [{ name: 'c', limit: 1 }, /store/],
      [{ store, limit: 1 }, /name/],
      [{ store, name: 'c' }, /limit/],
      [{ store, name: 'has space', limit: 1 }, /name/],
      [{ store, name: 'c', limit: 0 }, /limit/],
      [{ store, name: 'c', limit: 1, leaseMs: 5 }, /leaseMs/],
      [{ store, name: 'c', limit: 1, poolMemberShare: 0 }, /poolMemberShare/],
      [{ store, name: 'c', limit: 1, onUnavailable: 'open' }, /onUnavailable/],
      [{ store, name: 'c', limit: 1, onUnavailable: { local: { instances: 0 } } }, /onUnavailable/],
      [{ store, name: 'c', limit: 1, surprise: true }, /surprise/],
    ]
    for (const [options, message] of bad) {
      expect(() => createConcurrencyLimit(options as never)).toThrow(message)
    }
  })

  it('refuses a key longer than 1,024 characters without echoing it', async () => {
    const limit = createConcurrencyLimit({ store: memoryLimitStore(), name: 'c', limit: 1 })
    const key = 'x'.repeat(1025)
    await expect(limit.acquire(key)).rejects.toThrow(/at most 1024/)
    await expect(limit.acquire(key)).rejects.not.toThrow(/xxxx/)
  })
})
