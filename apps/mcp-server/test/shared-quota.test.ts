// sharedLimits in one process (a helper test: the fleet of real processes on a real Redis is
// test/fleet.test.ts): two instances' limits built on one store hold one principal to one
// quota, refusals carry the app's codes, and the same two on two stores (each instance
// alone) admit twice as much.
import { memoryLimitStore } from '@tollgate/fleet-limits'
import { describe, expect, it } from 'vitest'
import type { QuotaAnswer } from '../src/principal-quota.js'
import { sharedLimits } from '../src/shared-quota.js'

const FIGURES = {
  maxConcurrent: 2,
  requestsPerMinute: 5,
  maxSessionsPerCredential: 3,
  instances: 2,
  leaseMs: 30_000,
  audit: () => {},
}

const twoInstances = (shared: boolean) => {
  const store = memoryLimitStore()
  return [
    sharedLimits({ ...FIGURES, store }),
    sharedLimits({ ...FIGURES, store: shared ? store : memoryLimitStore() }),
  ] as const
}

describe('sharedLimits', () => {
  it('holds one key to its requests in flight across two instances on one store, with 429 ERR_QUOTA_CONCURRENT', async () => {
    const [a, b] = twoInstances(true)
    const first = await a.quota.acquire('bob')
    const second = await b.quota.acquire('bob')
    const third: QuotaAnswer = await a.quota.acquire('bob')
    expect([first.ok, second.ok]).toEqual([true, true])
    expect(third).toMatchObject({
      ok: false,
      error: { code: 'ERR_QUOTA_CONCURRENT', status: 429, limit: 2 },
    })
    expect((await b.quota.acquire('alice')).ok).toBe(true)
    if (first.ok) first.lease.release()
    await new Promise((resolve) => setImmediate(resolve))
    expect((await b.quota.acquire('bob')).ok).toBe(true)
  })

  it('holds one key to its rate across two instances, with 429 ERR_QUOTA_RATE and a Retry-After of at least 1 s', async () => {
    const [a, b] = twoInstances(true)
    const answers: QuotaAnswer[] = []
    for (let i = 0; i < 10; i++) {
      const answer = await (i % 2 === 0 ? a : b).quota.acquire('bob')
      if (answer.ok) answer.lease.release()
      answers.push(answer)
    }
    expect(answers.filter((x) => x.ok).length).toBe(5)
    const refused = answers.find((x) => !x.ok)
    expect(refused).toMatchObject({ ok: false, error: { code: 'ERR_QUOTA_RATE', limit: 5 } })
    expect(refused?.ok === false && refused.error.retryAfterSeconds).toBeGreaterThanOrEqual(1)
  })

  it('holds one credential to its sessions across two instances (ERR_SESSION_QUOTA), and a released lease frees one', async () => {
    const [a, b] = twoInstances(true)
    const leases = [
      await a.reserveSession('bob'),
      await b.reserveSession('bob'),
      await a.reserveSession('bob'),
    ]
    expect(leases.every((l) => l.ok)).toBe(true)
    expect(await b.reserveSession('bob')).toMatchObject({
      ok: false,
      code: 'ERR_SESSION_QUOTA',
      status: 429,
      limit: 3,
    })
    const first = leases[0]!
    if (first.ok) await first.release()
    expect((await b.reserveSession('bob')).ok).toBe(true)
  })

  it('control: on a store each, the same two instances admit a key twice its quota', async () => {
    const [a, b] = twoInstances(false)
    const answers = await Promise.all([a, b, a, b].map((x) => x.quota.acquire('bob')))
    expect(answers.every((x) => x.ok)).toBe(true)
  })
})
