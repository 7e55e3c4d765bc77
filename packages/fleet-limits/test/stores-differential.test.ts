// The two stores are two implementations of one contract (TypeScript in memory, Lua on Redis):
// the same random sequence of acquires, releases and takes, with pools and costs, gets the same
// answers from both. Leases live a minute and buckets refill one token a minute, so the
// milliseconds the sequence takes cannot change an answer.

import { describe, expect, it } from 'vitest'
import { type LimitStore, memoryLimitStore } from '../src/index.js'
import { redisLimitStore } from '../src/redis.js'
import { fresh } from './helpers/limit-contract.js'
import { useRedis } from './helpers/redis.js'

const redis = useRedis()

/** A small seeded generator (mulberry32), so a failing sequence can be replayed by its seed. */
function random(seed: number) {
  let a = seed >>> 0
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (((t ^ (t >>> 14)) >>> 0) % n) as number
  }
}

async function play(store: LimitStore, name: string, seed: number): Promise<string[]> {
  const pick = random(seed)
  const held: { key: string; pool: string | undefined; id: string }[] = []
  const log: string[] = []
  for (let step = 0; step < 300; step++) {
    const key = `k${pick(5)}`
    const pool = pick(2) === 0 ? undefined : 'anonymous'
    const op = pick(3)
    if (op === 0) {
      const id = `l${step}`
      const answer = await store.acquire({
        name,
        key,
        id,
        leaseMs: 60_000,
        limit: pool === undefined ? 3 : 2,
        pool: pool === undefined ? undefined : { key: pool, limit: 2 },
      })
      if (answer.ok) held.push({ key, pool, id })
      log.push(`acquire ${key} ${pool} ${JSON.stringify(answer)}`)
    } else if (op === 1 && held.length > 0) {
      const lease = held.splice(pick(held.length), 1)[0]!
      await store.release({ name, key: lease.key, id: lease.id, leaseMs: 60_000, pool: lease.pool })
      log.push(`release ${lease.id}`)
    } else {
      const cost = 1 + pick(3)
      const answer = await store.take({
        name,
        key,
        cost,
        perMinute: 1,
        burst: 6,
        pool: pool === undefined ? undefined : { key: pool, perMinute: 1, burst: 10 },
      })
      // The wait depends on the fraction of a token refilled so far: only whether it is a
      // whole minute's order is compared, not the milliseconds.
      const shown = answer.ok
        ? answer
        : { ...answer, retryAfterMs: Math.round(answer.retryAfterMs / 60_000) }
      log.push(`take ${key} ${pool} ${cost} ${JSON.stringify(shown)}`)
    }
  }
  return log
}

describe.skipIf(!redis.available)('memoryLimitStore and redisLimitStore', () => {
  it('answer the same random sequences of acquires, releases and takes alike', async () => {
    const client = await redis.client()
    for (const seed of [1, 2, 3, 4, 5]) {
      const name = fresh('diff')
      const memory = await play(memoryLimitStore(), name, seed)
      const shared = await play(redisLimitStore({ client, prefix: redis.prefix }), name, seed)
      expect(shared, `seed ${seed}`).toEqual(memory)
      expect(memory.some((line) => line.includes('"ok":false'))).toBe(true)
    }
  })
})
