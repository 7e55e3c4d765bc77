// A Redis for a test file: TOLLGATE_REDIS_URL when CI sets it, else a private redis-server the
// file starts. Clients are made per "instance"; every key lives under a prefix removed after
// the file. Skips (loudly) only when neither exists. Helper for tests; not a test.

import { hasRedisServer, type RedisProcess, startRedis } from '@tollgate/test-kit/redis-server'
import { createClient } from 'redis'
import { afterAll, beforeAll } from 'vitest'

function newClient(url: string) {
  const c = createClient({ url, disableOfflineQueue: true })
  c.on('error', () => {})
  return c
}

export type Client = ReturnType<typeof newClient>

export interface TestRedis {
  readonly available: boolean
  /** A key prefix unique to this file. */
  readonly prefix: string
  /** The URL, valid after beforeAll. */
  url(): string
  /** A new connected client (closed after the file), as a separate instance would have. */
  client(): Promise<Client>
}

export function useRedis(): TestRedis {
  const envUrl = process.env.TOLLGATE_REDIS_URL
  const available = envUrl !== undefined || hasRedisServer
  if (!available) {
    console.warn(
      '\n\n*** SKIPPING fleet-limits Redis tests: no TOLLGATE_REDIS_URL and no redis-server ***\n\n',
    )
  }
  const prefix = `tollgate:test:limits:${process.pid}:${Date.now()}:`
  let server: RedisProcess | undefined
  let url: string | undefined
  const clients: Client[] = []
  beforeAll(async () => {
    if (!available) return
    url = envUrl
    if (url === undefined) {
      server = await startRedis()
      url = server.url
    }
  })
  afterAll(async () => {
    const first = clients.find((c) => c.isReady)
    if (first !== undefined) {
      const keys = await first.keys(`${prefix}*`)
      if (keys.length > 0) await first.del(keys)
    }
    for (const c of clients) c.destroy()
    await server?.stop()
  })
  return {
    available,
    prefix,
    url: () => {
      if (url === undefined) throw new Error('Redis is not started yet')
      return url
    },
    async client() {
      if (url === undefined) throw new Error('Redis is not started yet')
      const c = newClient(url)
      clients.push(c)
      await c.connect()
      return c
    },
  }
}
