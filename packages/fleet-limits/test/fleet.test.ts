// Three instances on one Redis: three clients, three stores, three limit objects with the same
// name, as three server processes would build them. Together they admit what one would; with
// the control removed (a memory store per instance, as before this package) they admit three
// times as much.

import { describe, expect, it } from 'vitest'
import {
  type ConcurrencyLimit,
  createConcurrencyLimit,
  createRateLimit,
  type LimitStore,
  memoryLimitStore,
  type RateLimit,
} from '../src/index.js'
import { redisLimitStore } from '../src/redis.js'
import { fresh } from './helpers/limit-contract.js'
import { useRedis } from './helpers/redis.js'

const redis = useRedis()
const CALLS = 300

async function redisStores(): Promise<LimitStore[]> {
  const stores: LimitStore[] = []
  for (let i = 0; i < 3; i++) {
    stores.push(redisLimitStore({ client: await redis.client(), prefix: redis.prefix }))
  }
  return stores
}
const memoryStores = (): LimitStore[] => [
  memoryLimitStore(),
  memoryLimitStore(),
  memoryLimitStore(),
]

/**
 * `CALLS` acquires, round-robin over the instances, all in flight at once: for one key, or for
 * `members` keys of `pool`.
 */
async function leasesAdmitted(
  limits: ConcurrencyLimit[],
  pool?: string,
  members = 1,
): Promise<number> {
  const answers = await Promise.all(
    Array.from({ length: CALLS }, (_, i) =>
      limits[i % limits.length]!.acquire(pool === undefined ? 'alice' : `ip:${i % members}`, pool),
    ),
  )
  return answers.filter((a) => a.ok).length
}

async function tokensAdmitted(limits: RateLimit[]): Promise<number> {
  const answers = await Promise.all(
    Array.from({ length: CALLS }, (_, i) => limits[i % limits.length]!.take('alice')),
  )
  return answers.filter((a) => a.ok).length
}

describe.skipIf(!redis.available)('createConcurrencyLimit across three instances', () => {
  it('admits at most limit leases for one key together', async () => {
    const name = fresh('fleet-c')
    const limits = (await redisStores()).map((store) =>
      createConcurrencyLimit({ store, name, limit: 10 }),
    )
    const admitted = await leasesAdmitted(limits)
    expect(admitted).toBeLessThanOrEqual(10 * 1.05)
    expect(admitted).toBe(10)
  })

  it('holds the anonymous pool to the limit and each member to its share together', async () => {
    const name = fresh('fleet-p')
    const limits = (await redisStores()).map((store) =>
      createConcurrencyLimit({ store, name, limit: 8, poolMemberShare: 0.25 }),
    )
    // Two members, each held to 2: four leases, not 8, not 3 × 4.
    expect(await leasesAdmitted(limits, 'anonymous', 2)).toBe(4)
    // Ten more members, each could hold 2: the pool as a whole stops at 8.
    const other = fresh('fleet-p')
    const more = (await redisStores()).map((store) =>
      createConcurrencyLimit({ store, name: other, limit: 8, poolMemberShare: 0.25 }),
    )
    expect(await leasesAdmitted(more, 'anonymous', 10)).toBe(8)
  })

  it('admits three times the limit with a memory store per instance (the control removed)', async () => {
    const name = fresh('fleet-c')
    const limits = memoryStores().map((store) => createConcurrencyLimit({ store, name, limit: 10 }))
    expect(await leasesAdmitted(limits)).toBe(30)
  })
})

describe.skipIf(!redis.available)('createRateLimit across three instances', () => {
  it('admits at most burst calls for one key together over a burst of 300', async () => {
    const name = fresh('fleet-r')
    // One token a minute: the refill during the burst is negligible.
    const limits = (await redisStores()).map((store) =>
      createRateLimit({ store, name, perMinute: 1, burst: 100 }),
    )
    const admitted = await tokensAdmitted(limits)
    expect(admitted).toBeLessThanOrEqual(100 * 1.05)
    expect(admitted).toBeGreaterThanOrEqual(100)
  })

  it('admits three times the burst with a memory store per instance (the control removed)', async () => {
    const name = fresh('fleet-r')
    const limits = memoryStores().map((store) =>
      createRateLimit({ store, name, perMinute: 1, burst: 100 }),
    )
    expect(await tokensAdmitted(limits)).toBe(300)
  })
})
