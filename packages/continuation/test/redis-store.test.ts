// The store contract against a real redis-server: TOLLGATE_REDIS_URL when CI sets it, else a
// private server this file starts. Skips (loudly) only when no redis-server binary exists.
import { createClient } from 'redis'
import { beforeAll, describe, expect, it } from 'vitest'
import { createContinuations, hashToken } from '../src/index.js'
import { createRedisStore, REDIS_STORE_OPTIONS } from '../src/redis.js'
import { group, heavyPayload, target, team } from './fixtures/routes.js'
import { useRedisStores } from './helpers/redis-stores.js'
import { storeContract } from './helpers/store-contract.js'

type Client = ReturnType<typeof createClient>
const redis = useRedisStores()
const available = redis.available
const prefix = redis.prefix
let client: Client
// Registered after the helper's own beforeAll, so the client is connected by now.
beforeAll(() => {
  if (available) client = redis.client()
})

/** Everything a key holds, whatever its type (entries are strings, owner indexes a zset and a hash). */
async function readAny(key: string): Promise<string> {
  const type = await client.type(key)
  if (type === 'zset') return JSON.stringify(await client.zRange(key, 0, -1))
  if (type === 'hash') return JSON.stringify(await client.hGetAll(key))
  return String(await client.get(key))
}

describe.runIf(available)('createRedisStore', () => {
  // A prefix per store: each contract test starts from an empty key space.
  storeContract('redis', () => redis.sut)

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
    expect(keys.length).toBeGreaterThan(0)
    for (const k of keys) {
      expect(k).not.toContain(m.token)
      expect(await readAny(k)).not.toContain(m.token)
    }
  })

  it('holds one owner’s quota when two instances (two clients) write for it at once', async () => {
    const second: Client = createClient({ url: client.options?.url, disableOfflineQueue: true })
    second.on('error', () => {})
    await second.connect()
    try {
      const shared = `${prefix}two-instances:`
      const one = createRedisStore({ client, prefix: shared, maxEntriesPerOwner: 4 })
      const two = createRedisStore({ client: second, prefix: shared, maxEntriesPerOwner: 4 })
      await one.set('victim', 'kept', 60_000, 'owner-a')
      const written = Array.from({ length: 60 }, (_, i) => `k${i}`)
      await Promise.all(
        written.map((k, i) => (i % 2 === 0 ? one : two).set(k, k, 60_000, 'owner-b')),
      )
      const live = (await Promise.all(written.map((k) => two.get(k)))).filter(Boolean)
      expect(live).toHaveLength(4)
      expect(await two.get('victim')).toBe('kept')
      // The owner's index expires with its entries: nothing outlives the owner's last TTL.
      const index = await client.keys(`${shared}owner:*`)
      expect(index).toHaveLength(4) // order + bytes, for each of the two owners
      for (const key of index) {
        const ttl = await client.pTTL(key)
        expect(ttl).toBeGreaterThan(0)
        expect(ttl).toBeLessThanOrEqual(60_000)
      }
    } finally {
      second.destroy()
    }
  })

  it('needs eval only while a per-owner quota is on, and then writes a plain SET with no index', async () => {
    const { eval: _eval, ...plain } = {
      get: client.get.bind(client),
      set: client.set.bind(client),
      del: client.del.bind(client),
      eval: client.eval.bind(client),
    }
    expect(() => createRedisStore({ client: plain })).toThrow(TypeError)
    const p = `${prefix}plain:`
    const store = createRedisStore({
      client: plain,
      prefix: p,
      maxEntriesPerOwner: false,
      maxBytesPerOwner: false,
    })
    await store.set('k', 'v', 60_000, 'owner')
    expect(await store.get('k')).toBe('v')
    expect(await client.keys(`${p}*`)).toEqual([`${p}k`])
  })

  it('throws a TypeError at construction without a client or with a bad limit', () => {
    expect(() => createRedisStore({} as never)).toThrow(TypeError)
    expect(() => createRedisStore({ client, maxRecordBytes: 0 })).toThrow(TypeError)
    expect(() => createRedisStore({ client, commandTimeoutMs: -1 })).toThrow(TypeError)
    expect(() => createRedisStore({ client, maxEntriesPerOwner: 0 })).toThrow(TypeError)
    expect(() => createRedisStore({ client, maxBytesPerOwner: 100, maxRecordBytes: 101 })).toThrow(
      TypeError,
    )
    expect({ ...REDIS_STORE_OPTIONS.defaults, client: null, onError: null }).toEqual({
      client: null,
      onError: null,
      prefix: 'tollgate:continuation:',
      maxRecordBytes: 67_112_960,
      commandTimeoutMs: 1000,
      maxEntriesPerOwner: 100,
      maxBytesPerOwner: 67_112_960,
      poolMemberShare: 0.25,
    })
  })
})
