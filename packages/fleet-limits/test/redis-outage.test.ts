// Redis stops mid-run and comes back on the same port: each limit applies its stated rule
// ('closed' → 503, local → limit ÷ instances), reports the outage once at each edge, and is
// served by Redis again with no restart. Always a private redis-server (it is killed), never
// the one CI shares through TOLLGATE_REDIS_URL.

import { eventually } from '@tollgate/test-kit/eventually'
import { hasRedisServer, startRestartableRedis } from '@tollgate/test-kit/redis-server'
import { createClient } from 'redis'
import { afterAll, describe, expect, it } from 'vitest'
import {
  createConcurrencyLimit,
  createRateLimit,
  type LimitLease,
  type LimitRefusal,
  type OutageEvent,
} from '../src/index.js'
import { redisLimitStore } from '../src/redis.js'

if (!hasRedisServer) {
  console.warn(
    '\n\n*** SKIPPING the fleet-limits Redis outage test: no redis-server on PATH ***\n\n',
  )
}

const cleanup: (() => unknown)[] = []
afterAll(async () => {
  for (const step of cleanup.reverse()) await step()
})

const ok = (answers: (LimitLease | LimitRefusal | { ok: boolean })[]) => answers.map((a) => a.ok)

describe.skipIf(!hasRedisServer)('a limit whose Redis stops and comes back', () => {
  it("applies each limit's rule during the outage, reports it once, and recovers without restart", async () => {
    const redis = await startRestartableRedis()
    cleanup.push(() => redis.stop())
    const client = createClient({
      url: redis.url,
      disableOfflineQueue: true,
      socket: { reconnectStrategy: () => 100 },
    })
    client.on('error', () => {})
    cleanup.push(() => client.destroy())
    await client.connect()
    const store = redisLimitStore({ client, prefix: 'outage:', commandTimeoutMs: 5000 })
    const events: OutageEvent[] = []
    const onOutage = (e: OutageEvent) => events.push(e)
    const closedLeases = createConcurrencyLimit({
      store,
      name: 'c-closed',
      limit: 9,
      onUnavailable: 'closed',
      onOutage,
    })
    const localLeases = createConcurrencyLimit({
      store,
      name: 'c-local',
      limit: 9,
      onUnavailable: { local: { instances: 3 } },
      onOutage,
    })
    const closedRate = createRateLimit({
      store,
      name: 'r-closed',
      perMinute: 1,
      burst: 9,
      onOutage,
    })
    const localRate = createRateLimit({
      store,
      name: 'r-local',
      perMinute: 1,
      burst: 9,
      onUnavailable: { local: { instances: 3 } },
      onOutage,
    })
    // Up: each is decided on Redis.
    expect((await closedLeases.acquire('k')).ok).toBe(true)
    expect((await closedRate.take('k')).ok).toBe(true)
    expect(events).toEqual([])

    await redis.kill()
    const calls = async () => ({
      closedLeases: await Promise.all([1, 2].map(() => closedLeases.acquire('k'))),
      localLeases: await Promise.all([1, 2, 3, 4, 5].map(() => localLeases.acquire('k'))),
      closedRate: await Promise.all([1, 2].map(() => closedRate.take('k'))),
      localRate: await Promise.all([1, 2, 3, 4, 5].map(() => localRate.take('k'))),
    })
    const down = await calls()
    for (const a of [...down.closedLeases, ...down.closedRate]) {
      expect(a).toMatchObject({ ok: false, code: 'ERR_LIMIT_UNAVAILABLE', status: 503 })
    }
    expect(ok(down.localLeases)).toEqual([true, true, true, false, false])
    expect(down.localLeases[3]).toMatchObject({ code: 'ERR_LIMIT_CONCURRENT', limit: 3 })
    expect(ok(down.localRate)).toEqual([true, true, true, false, false])
    expect(down.localRate[3]).toMatchObject({ code: 'ERR_LIMIT_RATE' })
    // More calls during the same outage report nothing more.
    await calls()
    const started = events.filter((e) => e.state === 'started').map((e) => e.name)
    expect(started.sort()).toEqual(['c-closed', 'c-local', 'r-closed', 'r-local'])
    expect(events).toHaveLength(4)

    await redis.start()
    // Back: the closed limits serve again (a fresh Redis: empty counts) and each limit reports
    // the end of its outage once.
    expect(await eventually(async () => (await closedLeases.acquire('k2')).ok, 20_000)).toBe(true)
    expect(await eventually(async () => (await closedRate.take('k2')).ok, 20_000)).toBe(true)
    expect(await eventually(async () => (await localLeases.acquire('k2')).ok, 20_000)).toBe(true)
    expect(await eventually(async () => (await localRate.take('k2')).ok, 20_000)).toBe(true)
    const ended = events.filter((e) => e.state === 'ended').map((e) => e.name)
    expect(ended.sort()).toEqual(['c-closed', 'c-local', 'r-closed', 'r-local'])
    // Decided on Redis again: the full limit of 9, not the local 3.
    const again = await Promise.all(Array.from({ length: 10 }, () => localLeases.acquire('k3')))
    expect(again.filter((a) => a.ok)).toHaveLength(9)
    expect(await client.exists('outage:{c-local}:l:k3')).toBe(1)
  })
})
