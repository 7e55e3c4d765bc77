// How the Redis store treats its client, against a private real redis-server (paused or killed
// here, so never the one CI shares through TOLLGATE_REDIS_URL): the error listener it attaches,
// the command timeout, the timer it leaves behind, and construction with wrongly-typed options;
// and, on a stub client, what it makes of a quota script's answer.

import { hasRedisServer, startRedis } from '@tollgate/test-kit/redis-server'
import { createClient } from 'redis'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { createContinuations } from '../src/index.js'
import { createRedisStore } from '../src/redis.js'
import { group, target, team } from './fixtures/routes.js'

if (!hasRedisServer) {
  console.warn('\n\n*** SKIPPING the Redis client tests: no redis-server on PATH ***\n\n')
}

const clients: { destroy(): void }[] = []
afterAll(() => {
  for (const c of clients) c.destroy()
})

/** Waits (bounded) until `done()` holds; not a timing assertion, a wait for an event. */
async function until(done: () => boolean, limitMs = 10_000) {
  const start = Date.now()
  while (!done() && Date.now() - start < limitMs) await new Promise((r) => setTimeout(r, 20))
}

describe.runIf(hasRedisServer)('createRedisStore with a real client', () => {
  it('attaches one error listener to a client that has none and hands it the client errors', async () => {
    const server = await startRedis()
    try {
      const client = createClient({ url: server.url, socket: { reconnectStrategy: () => 50 } })
      clients.push(client)
      expect(client.listenerCount('error')).toBe(0)
      const errors: unknown[] = []
      createRedisStore({ client, onError: (e) => errors.push(e) })
      expect(client.listenerCount('error')).toBe(1)
      await client.connect()
      await server.stop()
      await until(() => errors.length > 0)
      expect(errors.length).toBeGreaterThan(0)
    } finally {
      await server.stop()
    }
  })

  it('leaves a client that already has an error listener with that listener alone', () => {
    const client = createClient({ url: 'redis://127.0.0.1:1' })
    const own = () => {}
    client.on('error', own)
    createRedisStore({ client, onError: () => {} })
    expect(client.listeners('error')).toEqual([own])
  })

  it('survives an onError callback that throws: the error is swallowed and the store fails closed', async () => {
    const server = await startRedis()
    try {
      const client = createClient({
        url: server.url,
        disableOfflineQueue: true,
        socket: { reconnectStrategy: () => 50 },
      })
      clients.push(client)
      let calls = 0
      const store = createRedisStore({
        client,
        commandTimeoutMs: 200,
        onError: () => {
          calls++
          throw new Error('logger down')
        },
      })
      await client.connect()
      await server.stop()
      await until(() => calls >= 2)
      expect(calls).toBeGreaterThanOrEqual(2)
      await expect(store.get('k')).rejects.toMatchObject({
        code: 'ERR_CONTINUATION_STORE_UNAVAILABLE',
      })
    } finally {
      await server.stop()
    }
  })

  it('reports a command the server does not answer within commandTimeoutMs as unavailable', async () => {
    const server = await startRedis()
    try {
      const client = createClient({ url: server.url })
      const admin = createClient({ url: server.url })
      clients.push(client, admin)
      client.on('error', () => {})
      admin.on('error', () => {})
      await client.connect()
      await admin.connect()
      const store = createRedisStore({ client, commandTimeoutMs: 100 })
      await store.set('k', 'v', 60_000)
      expect(await store.get('k')).toBe('v')
      // The server holds every client command for 2 s: a real unanswered command.
      await admin.sendCommand(['CLIENT', 'PAUSE', '2000', 'ALL'])
      await expect(store.get('k')).rejects.toMatchObject({
        code: 'ERR_CONTINUATION_STORE_UNAVAILABLE',
      })
    } finally {
      await server.stop()
    }
  })

  it('clears its timeout timer when a command answers, leaving no timer behind', async () => {
    const server = await startRedis()
    try {
      const client = createClient({ url: server.url })
      clients.push(client)
      client.on('error', () => {})
      await client.connect()
      const store = createRedisStore({ client, commandTimeoutMs: 600_000 })
      await store.set('k', 'v', 60_000)
      // Each command's own timer, told apart by its 600 s delay: a count of every Timeout in
      // the process would also see the client's and the runner's timers come and go.
      const armed = vi.spyOn(globalThis, 'setTimeout')
      const cleared = vi.spyOn(globalThis, 'clearTimeout')
      let commandTimers: unknown[]
      let clearedHandles: Set<unknown>
      try {
        for (let i = 0; i < 5; i++) expect(await store.get('k')).toBe('v')
        await store.delete('k')
        // Read before mockRestore, which also forgets the calls.
        commandTimers = armed.mock.calls.flatMap((call, i) =>
          call[1] === 600_000 ? [armed.mock.results[i]?.value] : [],
        )
        clearedHandles = new Set(cleared.mock.calls.map((call) => call[0]))
      } finally {
        armed.mockRestore()
        cleared.mockRestore()
      }
      // Five gets and a delete, each with its own timer, and every one of them cleared.
      expect(commandTimers).toHaveLength(6)
      for (const timer of commandTimers) expect(clearedHandles.has(timer)).toBe(true)
    } finally {
      await server.stop()
    }
  })

  it('throws a TypeError at construction for a bad prefix, onError or a client missing a method', () => {
    const client = createClient({ url: 'redis://127.0.0.1:1' })
    client.on('error', () => {})
    expect(createRedisStore({ client, prefix: 'p'.repeat(256) })).toBeDefined()
    expect(() => createRedisStore({ client, prefix: 'p'.repeat(257) })).toThrow(TypeError)
    expect(() => createRedisStore({ client, prefix: 42 as never })).toThrow(TypeError)
    expect(() => createRedisStore({ client, onError: 'log' as never })).toThrow(TypeError)
    for (const method of ['get', 'set', 'del', 'eval'] as const) {
      const partial = {
        get: client.get.bind(client),
        set: client.set.bind(client),
        del: client.del.bind(client),
        eval: client.eval.bind(client),
      } as Record<string, unknown>
      expect(createRedisStore({ client: { ...partial } as never })).toBeDefined()
      delete partial[method]
      expect(() => createRedisStore({ client: partial as never })).toThrow(TypeError)
    }
    expect(() => createRedisStore(undefined as never)).toThrow(TypeError)
  })

  it('reports a client that throws synchronously as unavailable, and attaches its listener without listenerCount', async () => {
    const listeners: unknown[] = []
    const closed = () => {
      throw new Error('The client is closed')
    }
    const store = createRedisStore({
      client: {
        get: closed,
        set: closed,
        del: closed,
        eval: closed,
        on: (_e, l) => listeners.push(l),
      },
    })
    expect(listeners).toHaveLength(1)
    for (const run of [
      () => store.get('k'),
      () => store.set('k', 'v', 5),
      () => store.delete('k'),
    ]) {
      await expect(run()).rejects.toMatchObject({ code: 'ERR_CONTINUATION_STORE_UNAVAILABLE' })
    }
  })

  it('throws a TypeError from set() for a ttlMs that is not a positive safe integer, sending nothing', async () => {
    const sent: unknown[] = []
    const client = createClient({ url: 'redis://127.0.0.1:1' })
    client.on('error', () => {})
    const store = createRedisStore({
      client: {
        get: client.get.bind(client),
        del: client.del.bind(client),
        set: (...args: unknown[]) => {
          sent.push(args)
          return Promise.resolve('OK')
        },
      },
      // Without a per-owner quota the store writes one plain SET, which this test records.
      maxEntriesPerOwner: false,
      maxBytesPerOwner: false,
    })
    for (const ttl of [0, -1, 1.5, Number.NaN]) {
      await expect(store.set('k', 'v', ttl)).rejects.toThrow(TypeError)
    }
    expect(sent).toEqual([])
    await store.set('k', 'v', 5)
    expect(sent).toEqual([
      ['tollgate:continuation:k', 'v', { expiration: { type: 'PX', value: 5 } }],
    ])
  })
})

describe('createRedisStore write under a per-owner quota', () => {
  it('reports a quota script that answers anything but OK as unavailable, and mint fails closed', async () => {
    // The script answers 'OK' only once the entry is written; a proxy or a replica answering
    // something else (nil, QUEUED) has not stored the token, so no token may be handed out.
    for (const answer of [null, 'QUEUED', 1]) {
      const store = createRedisStore({
        client: {
          get: async () => null,
          set: async () => 'OK',
          del: async () => 1,
          eval: async () => answer,
        },
      })
      await expect(store.set('k', 'v', 1000, 'o')).rejects.toMatchObject({
        code: 'ERR_CONTINUATION_STORE_UNAVAILABLE',
      })
      const minted = await createContinuations({ store }).mint({
        ownerKey: 'o',
        target: target(team, group('documents', 'get')),
        payload: 'p',
      })
      expect(minted).toStrictEqual({
        ok: false,
        error: { code: 'ERR_CONTINUATION_STORE_UNAVAILABLE' },
      })
    }
  })
})
