// Redis stops mid-run: redemption fails closed with the one outcome, mint reports a code the
// server can map, nothing throws and nothing is left as an unhandled rejection. Always uses a
// private redis-server (it is killed), never the one CI shares through TOLLGATE_REDIS_URL.

import { hasRedisServer, startRedis } from '@tollgate/test-kit/redis-server'
import { createClient } from 'redis'
import { afterAll, describe, expect, it } from 'vitest'
import {
  CONTINUATION_REFUSED,
  type ContinuationAuditEvent,
  createContinuations,
} from '../src/index.js'
import { createRedisStore } from '../src/redis.js'
import { ALL, group, heavyPayload, target, team } from './fixtures/routes.js'

if (!hasRedisServer) {
  console.warn('\n\n*** SKIPPING the Redis fault test: no redis-server on PATH ***\n\n')
}

const clients: { destroy(): void }[] = []
afterAll(() => {
  for (const c of clients) c.destroy()
})

async function scenario(offlineQueue: boolean) {
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => unhandled.push(reason)
  process.on('unhandledRejection', onUnhandled)
  const server = await startRedis()
  try {
    const client = createClient({
      url: server.url,
      disableOfflineQueue: !offlineQueue,
      socket: { reconnectStrategy: () => 50 },
    })
    clients.push(client)
    await client.connect()
    const clientErrors: unknown[] = []
    const store = createRedisStore({
      client,
      commandTimeoutMs: 300,
      onError: (e) => clientErrors.push(e),
    })
    const events: ContinuationAuditEvent[] = []
    const service = createContinuations({ store, audit: { record: (e) => events.push(e) } })
    // The token is minted and first served while Redis is up through a second store on the same
    // client with a generous deadline: on a loaded machine a healthy command can take longer
    // than the 300 ms that keeps the outage half of this test short (with the offline queue on,
    // only the deadline ends a queued command).
    const healthy = createContinuations({
      store: createRedisStore({ client, commandTimeoutMs: 10_000 }),
    })
    const t = target(team, group('documents', 'get'))
    const m = await healthy.mint({ ownerKey: 'o', target: t, payload: heavyPayload() })
    if (!m.ok) throw new Error('mint failed')
    const ctx = { ownerKey: 'o', route: team, permissions: ALL }
    expect((await healthy.redeem(m.token, ctx)).ok).toBe(true)

    await server.stop()

    expect(await service.redeem(m.token, ctx)).toBe(CONTINUATION_REFUSED)
    expect(events.at(-1)).toMatchObject({ reason: 'continuation_store_unavailable' })
    expect(await service.mint({ ownerKey: 'o', target: t, payload: heavyPayload() })).toEqual({
      ok: false,
      error: { code: 'ERR_CONTINUATION_STORE_UNAVAILABLE' },
    })
    await new Promise((r) => setTimeout(r, 100))
    expect(unhandled).toEqual([])
  } finally {
    process.off('unhandledRejection', onUnhandled)
    await server.stop()
  }
}

describe.runIf(hasRedisServer)('createRedisStore when Redis stops', () => {
  it('fails closed on redeem and reports ERR_CONTINUATION_STORE_UNAVAILABLE on mint (offline queue off)', () =>
    scenario(false))
  it('fails closed on redeem and reports ERR_CONTINUATION_STORE_UNAVAILABLE on mint (offline queue on)', () =>
    scenario(true))
})

describe.runIf(hasRedisServer)('createRedisStore with a closed client', () => {
  it('reports the store unavailable for a client that was destroyed, leaving no unhandled rejection', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    const server = await startRedis()
    try {
      const client = createClient({ url: server.url })
      await client.connect()
      client.destroy()
      const events: ContinuationAuditEvent[] = []
      const service = createContinuations({
        store: createRedisStore({ client, commandTimeoutMs: 100 }),
        audit: { record: (e) => events.push(e) },
      })
      const t = target(team, group('documents', 'get'))
      expect(await service.mint({ ownerKey: 'o', target: t, payload: 'p' })).toEqual({
        ok: false,
        error: { code: 'ERR_CONTINUATION_STORE_UNAVAILABLE' },
      })
      const { createToken } = await import('../src/index.js')
      expect(
        await service.redeem(createToken(), { ownerKey: 'o', route: team, permissions: ALL }),
      ).toBe(CONTINUATION_REFUSED)
      expect(events.at(-1)).toMatchObject({ reason: 'continuation_store_unavailable' })
      await new Promise((r) => setTimeout(r, 200))
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
      await server.stop()
    }
  })
})
