// Redis stores for a test file: TOLLGATE_REDIS_URL when CI sets it, else a private redis-server
// the file starts; each `make()` gets a fresh key prefix, removed after the file. Skips (loudly)
// only when no redis-server binary exists. Helper for tests; not a test.

import { hasRedisServer, type RedisProcess, startRedis } from '@tollgate/test-kit/redis-server'
import { createClient } from 'redis'
import { afterAll, beforeAll } from 'vitest'
import { createRedisStore } from '../../src/redis.js'
import type { StoreUnderTest } from './store-contract.js'

export interface RedisStores {
  readonly available: boolean
  /** Valid inside tests (after beforeAll). */
  readonly sut: StoreUnderTest
  /** The key prefix every store of this file lives under (removed after the file). */
  readonly prefix: string
  /** The connected client, for tests that read Redis directly. Valid after beforeAll. */
  client(): ReturnType<typeof createClient>
}

export function useRedisStores(): RedisStores {
  const envUrl = process.env.TOLLGATE_REDIS_URL
  const available = envUrl !== undefined || hasRedisServer
  if (!available) {
    console.warn(
      '\n\n*** SKIPPING Redis store tests: no TOLLGATE_REDIS_URL and no redis-server ***\n\n',
    )
  }
  const prefix = `tollgate:test:${process.pid}:${Date.now()}:`
  let server: RedisProcess | undefined
  let client: ReturnType<typeof createClient> | undefined
  let made = 0
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
    if (client !== undefined) {
      const keys = await client.keys(`${prefix}*`)
      if (keys.length > 0) await client.del(keys)
      client.destroy()
    }
    await server?.stop()
  })
  const sut: StoreUnderTest = {
    make: (options = {}) =>
      createRedisStore({
        client: client!,
        prefix: `${prefix}${String(++made).padStart(4, '0')}:`,
        ...options,
      }),
    overhead: Buffer.byteLength(prefix) + 5,
  }
  return {
    available,
    sut,
    prefix,
    client: () => {
      if (client === undefined) throw new Error('the Redis client is not connected yet')
      return client
    },
  }
}
