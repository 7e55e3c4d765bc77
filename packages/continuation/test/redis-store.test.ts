// The store contract against a real redis-server: TOLLGATE_REDIS_URL when CI sets it, else a
// private server this file starts. Skips (loudly) only when no redis-server binary exists.
import { createClient } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createContinuations, hashToken } from '../src/index.js'
import { createRedisStore, REDIS_STORE_DEFAULTS } from '../src/redis.js'
import { group, heavyPayload, target, team } from './fixtures.js'
import { hasRedisServer, type RedisProcess, startRedis } from './redis-server.js'
import { storeContract } from './store-contract.js'

const envUrl = process.env.TOLLGATE_REDIS_URL
const available = envUrl !== undefined || hasRedisServer
if (!available) {
  console.warn(
    '\n\n*** SKIPPING the Redis store suite: no TOLLGATE_REDIS_URL and no redis-server on PATH ***\n\n',
  )
}

type Client = ReturnType<typeof createClient>
let server: RedisProcess | undefined
let client: Client
const prefix = `tollgate:test:${process.pid}:${Date.now()}:`

beforeAll(async () => {
  if (!available) return
  let url = envUrl
  if (url === undefined) {
    server = await startRedis()
    url = server.url
  }
  client = createClient({ url, disableOfflineQueue: true })
  client.on('error', () => {})
  await client.connect()
})

afterAll(async () => {
  if (!available) return
  const keys = await client.keys(`${prefix}*`)
  if (keys.length > 0) await client.del(keys)
  client.destroy()
  await server?.stop()
})

describe.runIf(available)('createRedisStore', () => {
  storeContract('redis', () => ({
    make: (maxRecordBytes?: number) =>
      createRedisStore({ client, prefix, ...(maxRecordBytes ? { maxRecordBytes } : {}) }),
    overhead: Buffer.byteLength(prefix),
  }))

  it('writes the value and its TTL in one SET, under the prefix and the token hash', async () => {
    const service = createContinuations({
      store: createRedisStore({ client, prefix }),
      ttlMs: 30_000,
    })
    const m = await service.mint({
      ownerKey: 'o',
      target: target(team, group('documents', 'get')),
      payload: heavyPayload(),
    })
    if (!m.ok) throw new Error('mint failed')
    const key = `${prefix}${hashToken(m.token)}`
    const ttl = await client.pTTL(key)
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(30_000)
    // A dump of the store holds nothing redeemable: no key or value contains the token.
    const keys = await client.keys(`${prefix}*`)
    for (const k of keys) {
      expect(k).not.toContain(m.token)
      expect(String(await client.get(k))).not.toContain(m.token)
    }
  })

  it('throws a TypeError at construction without a client or with a bad limit', () => {
    expect(() => createRedisStore({} as never)).toThrow(TypeError)
    expect(() => createRedisStore({ client, maxRecordBytes: 0 })).toThrow(TypeError)
    expect(() => createRedisStore({ client, commandTimeoutMs: -1 })).toThrow(TypeError)
    expect(REDIS_STORE_DEFAULTS).toEqual({
      prefix: 'tollgate:continuation:',
      maxRecordBytes: 67_112_960,
      commandTimeoutMs: 1000,
    })
  })
})
