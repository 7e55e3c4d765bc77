// connectRedis on a real redis-server that is killed and started again on the same port: the
// start-up failure names the option, never the URL; an outage is told once at each edge, however
// many reconnection attempts it takes; a command while Redis is away fails at once.

import { eventually } from '@tollgate/test-kit/eventually'
import {
  freePort,
  hasRedisServer,
  type RestartableRedis,
  startRestartableRedis,
} from '@tollgate/test-kit/redis-server'
import { createClient } from 'redis'
import { afterAll, describe, expect, it } from 'vitest'
import { connectRedis, type RedisOutage } from '../src/redis.js'

if (!hasRedisServer) {
  console.warn('\n\n*** SKIPPING the connectRedis tests: no redis-server on PATH ***\n\n')
}

const cleanup: (() => unknown)[] = []
afterAll(async () => {
  for (const step of cleanup.reverse()) await step()
})

describe('connectRedis', () => {
  it('refuses a bad option before any client is made', async () => {
    let made = 0
    const counting = (settings: Parameters<typeof createClient>[0]) => {
      made++
      return createClient(settings)
    }
    await expect(
      connectRedis(counting, 'redis://127.0.0.1:1', { startAttempts: 1001 }),
    ).rejects.toThrow(TypeError)
    await expect(connectRedis(counting, 'redis://127.0.0.1:1', { name: '' })).rejects.toThrow(
      /name/,
    )
    expect(made).toBe(0)
  })

  it.skipIf(!hasRedisServer)(
    'fails start-up with "<name>: Redis cannot be reached", naming no URL, when nothing listens',
    async () => {
      const port = await freePort()
      const url = `redis://secret-user:secret-pass@127.0.0.1:${port}`
      const failure = await connectRedis(createClient, url, {
        name: '--redis-url',
        startAttempts: 2,
      }).then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(failure).toBeInstanceOf(TypeError)
      expect((failure as Error).message).toBe('--redis-url: Redis cannot be reached')
      expect((failure as Error).message).not.toContain('secret')
      expect((failure as Error).message).not.toContain(String(port))
    },
  )

  it.skipIf(!hasRedisServer)(
    'tells an outage once when Redis goes, once when it is back, and fails commands at once meanwhile',
    async () => {
      const redis: RestartableRedis = await startRestartableRedis()
      cleanup.push(() => redis.stop())
      const outages: RedisOutage[] = []
      const client = await connectRedis(createClient, redis.url, {
        onOutage: (outage) => outages.push(outage),
      })
      cleanup.push(() => client.destroy())
      let reconnections = 0
      client.on('reconnecting', () => reconnections++)
      expect(await client.ping()).toBe('PONG')
      expect(outages).toEqual([])

      await redis.kill()
      // No offline queue: the command is refused, not held until Redis returns.
      await expect(client.ping()).rejects.toThrow()
      // Several reconnection attempts fail while Redis is away; the outage is told once.
      expect(await eventually(() => outages.length > 0, 20_000)).toBe(true)
      expect(await eventually(() => reconnections >= 3, 20_000)).toBe(true)
      await expect(client.ping()).rejects.toThrow()
      expect(outages).toEqual([{ state: 'started', errorName: expect.any(String) }])

      await redis.start()
      expect(await eventually(() => outages.length > 1, 20_000)).toBe(true)
      expect(await client.ping()).toBe('PONG')
      expect(outages).toEqual([
        { state: 'started', errorName: expect.any(String) },
        { state: 'ended' },
      ])
    },
  )
})
