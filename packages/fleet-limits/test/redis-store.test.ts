import { beforeAll, describe, expect, it } from 'vitest'
import { createConcurrencyLimit, createRateLimit, type LimitStore } from '../src/index.js'
import { redisLimitStore } from '../src/redis.js'
import { fresh, limitStoreContract } from './helpers/limit-contract.js'
import { type Client, useRedis } from './helpers/redis.js'

const redis = useRedis()
let client: Client | undefined
const store = (): LimitStore => {
  if (client === undefined) throw new Error('no client')
  return redisLimitStore({ client, prefix: redis.prefix })
}

beforeAll(async () => {
  if (redis.available) client = await redis.client()
})

describe.skipIf(!redis.available)('redisLimitStore', () => {
  limitStoreContract('redisLimitStore', store)

  it('leaves no key without an expiry, and an idle key disappears', async () => {
    const c = client!
    const name = fresh('ttl')
    const lease = createConcurrencyLimit({ store: store(), name, limit: 2, leaseMs: 300 })
    const rate = createRateLimit({ store: store(), name, perMinute: 60_000, burst: 5 })
    const held = await lease.acquire('k', 'pool')
    await rate.take('k', 'pool')
    const keys = await c.keys(`${redis.prefix}{${name}}*`)
    expect(keys).toHaveLength(4)
    for (const k of keys) expect(await c.pTTL(k)).toBeGreaterThan(0)
    if (held.ok) await held.release()
    // The bucket refills in ms and the lease set is empty: Redis expires all four.
    const deadline = Date.now() + 10_000
    while (Date.now() < deadline && (await c.keys(`${redis.prefix}{${name}}*`)).length > 0) {
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(await c.keys(`${redis.prefix}{${name}}*`)).toEqual([])
  })

  it('never writes the key into a refusal', async () => {
    const secret = 'principal-with-a-secret-token-1234'
    const limit = createConcurrencyLimit({ store: store(), name: fresh('c'), limit: 1 })
    await limit.acquire(secret)
    const refused = await limit.acquire(secret)
    expect(refused.ok).toBe(false)
    expect(JSON.stringify(refused)).not.toContain('secret')
  })

  it('refuses a client without eval and a prefix with a hash tag at construction', () => {
    expect(() => redisLimitStore({ client: {} as never })).toThrow(/client/)
    expect(() => redisLimitStore({ client: client!, prefix: 'a{b}' })).toThrow(/prefix/)
  })
})
