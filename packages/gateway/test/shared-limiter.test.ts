// sharedLimiter in one process (a helper test: real gateways on a real Redis are held by the
// fleet test): two gateways' limiters on one store hold a principal to one set of limits, with
// the gateway's own codes; the control, a store each, admits twice as much.
import { memoryLimitStore } from '@tollgate/fleet-limits'
import { describe, expect, it } from 'vitest'
import type { LimiterLease, LimiterRefusal } from '../src/limiter.js'
import { sharedLimiter } from '../src/shared-limiter.js'

const two = (shared: boolean, figures: { concurrentPerPrincipal: number; burst: number }) => {
  const store = memoryLimitStore()
  return [
    sharedLimiter({ store, ratePerMinute: 60, ...figures }),
    sharedLimiter({ store: shared ? store : memoryLimitStore(), ratePerMinute: 60, ...figures }),
  ] as const
}

describe('sharedLimiter', () => {
  it('holds a principal to its calls in flight across two gateways on one store: 429 ERR_CONCURRENCY_LIMIT', async () => {
    const [a, b] = two(true, { concurrentPerPrincipal: 2, burst: 100 })
    const held = [await a.acquire('p', 't'), await b.acquire('p', 't')]
    expect(held.every((x) => x.ok)).toBe(true)
    expect(await a.acquire('p', 'u')).toMatchObject({
      ok: false,
      code: 'ERR_CONCURRENCY_LIMIT',
      status: 429,
    })
    expect((await b.acquire('q', 't')).ok).toBe(true)
    ;(held[0] as LimiterLease).release()
    await new Promise((resolve) => setImmediate(resolve))
    expect((await b.acquire('p', 't')).ok).toBe(true)
  })

  it('holds a principal × tool to its burst across two gateways: 429 ERR_RATE_LIMITED with Retry-After ≥ 1, another tool untouched', async () => {
    const [a, b] = two(true, { concurrentPerPrincipal: 100, burst: 3 })
    const answers: (LimiterLease | LimiterRefusal)[] = []
    for (let i = 0; i < 6; i++) answers.push(await (i % 2 ? a : b).acquire('p', 't'))
    expect(answers.filter((x) => x.ok).length).toBe(3)
    const refused = answers.find((x): x is LimiterRefusal => !x.ok)
    expect(refused).toMatchObject({ code: 'ERR_RATE_LIMITED', status: 429 })
    expect(refused!.retryAfterSeconds).toBeGreaterThanOrEqual(1)
    expect((await a.acquire('p', 'other')).ok).toBe(true)
  })

  it('control: a store each, the two gateways admit twice the burst', async () => {
    const [a, b] = two(false, { concurrentPerPrincipal: 100, burst: 3 })
    const answers: (LimiterLease | LimiterRefusal)[] = []
    for (let i = 0; i < 6; i++) answers.push(await (i % 2 ? a : b).acquire('p', 't'))
    expect(answers.every((x) => x.ok)).toBe(true)
  })
})
