// Construction-time validation, one wrongly-typed value per guard, each asserted by its error
// type (never its message). Written for the survivors of the Stryker run recorded in the
// README: each case here is one a removed guard would let through.
import { describe, expect, it } from 'vitest'
import {
  authorizeOnRoute,
  type ContinuationStore,
  ContinuationStoreError,
  createContinuations,
  createMemoryStore,
  createRouteView,
  createToolRegistry,
  holdsAll,
  isContinuationStoreError,
  isRouteView,
  isTokenShape,
  pinoAuditSink,
  type RouteView,
  resolveScoped,
  TOOL_NOT_FOUND,
  type ToolDescriptor,
  type ToolRegistry,
} from '../src/index.js'
import { ALL, group, pub, registry, target, team } from './fixtures/routes.js'

const noop = () => {}

describe('createToolRegistry', () => {
  it('throws a TypeError for capabilities that are not an array, even a string of valid characters', () => {
    expect(() =>
      createToolRegistry([{ name: 'a', tier: 'read', capabilities: 'export' as never }]),
    ).toThrow(TypeError)
  })

  it('throws a TypeError for a capability with a character outside the grammar at either end', () => {
    for (const cap of [' export', 'export ', 'ex port', 'é']) {
      expect(() => createToolRegistry([{ name: 'a', tier: 'read', capabilities: [cap] }])).toThrow(
        TypeError,
      )
    }
    expect(() =>
      createToolRegistry([{ name: 'a', tier: 'read', capabilities: [42 as never] }]),
    ).toThrow(TypeError)
  })

  it('accepts a capability of 128 characters and refuses 129', () => {
    const ok = createToolRegistry([{ name: 'a', tier: 'read', capabilities: ['c'.repeat(128)] }])
    expect(ok.get('a')?.capabilities).toEqual(['c'.repeat(128)])
    expect(() =>
      createToolRegistry([{ name: 'a', tier: 'read', capabilities: ['c'.repeat(129)] }]),
    ).toThrow(TypeError)
  })

  it('throws a TypeError for an entry that is not an object', () => {
    for (const entry of [null, 'a', 42]) {
      expect(() => createToolRegistry([entry as never])).toThrow(TypeError)
    }
  })
})

describe('createRouteView', () => {
  const base = { name: 'r', registry, mount: ['**'], ceiling: 'read' as const }

  it('accepts a name of 256 characters and throws a TypeError for 257 or a non-string', () => {
    expect(createRouteView({ ...base, name: 'r'.repeat(256) }).name).toHaveLength(256)
    expect(() => createRouteView({ ...base, name: 'r'.repeat(257) })).toThrow(TypeError)
    expect(() => createRouteView({ ...base, name: 42 as never })).toThrow(TypeError)
  })

  it('throws a TypeError for a registry without a get function, whatever else it has', () => {
    const names = Object.freeze([]) as readonly string[]
    for (const bad of [
      { names },
      { names, get: 1 },
      Object.assign(() => undefined, { names, get: () => undefined }),
      null,
    ]) {
      expect(() => createRouteView({ ...base, registry: bad as unknown as ToolRegistry })).toThrow(
        TypeError,
      )
    }
  })

  it('throws a TypeError for options that are not an object', () => {
    for (const bad of [null, 'r', 42]) {
      expect(() => createRouteView(bad as never)).toThrow(TypeError)
    }
  })

  it('exposes the mount, allow and deny patterns as written, frozen', () => {
    expect(pub.mount).toEqual(['knowledge', 'knowledge.**', 'continuation.fetch'])
    expect(pub.deny).toEqual(['knowledge.notes.*'])
    expect(pub.allow).toEqual([])
    const view = createRouteView({ ...base, allow: ['admin.*'], deny: ['admin.export'] })
    expect(view.allow).toEqual(['admin.*'])
    expect(view.deny).toEqual(['admin.export'])
    expect(view.names).toEqual(['admin.stats'])
    expect(Object.isFrozen(view.allow)).toBe(true)
  })
})

describe('isRouteView', () => {
  it('is true for a view and false for a copy of one, an empty object or a primitive', () => {
    expect(isRouteView(team)).toBe(true)
    expect(isRouteView({ ...team })).toBe(false)
    expect(isRouteView({})).toBe(false)
    expect(isRouteView(null)).toBe(false)
    expect(isRouteView('team')).toBe(false)
  })
})

describe('authorizeOnRoute', () => {
  it('throws a TypeError for a look-alike view whose get() would authorize anything', () => {
    const forged = { ...team, get: () => registry.get('admin.reindex') } as RouteView
    expect(() => authorizeOnRoute(forged, 'admin.reindex', ALL)).toThrow(TypeError)
  })
})

describe('holdsAll', () => {
  const needs: ToolDescriptor = { name: 'admin.export', tier: 'read', capabilities: ['export'] }
  const free: ToolDescriptor = { name: 'admin.stats', tier: 'read' }

  it('admits a tool that requires nothing, whatever the permissions (none, missing, empty)', () => {
    expect(holdsAll(free, undefined)).toBe(true)
    expect(holdsAll({ ...free, capabilities: [] }, undefined)).toBe(true)
    expect(holdsAll(free, [])).toBe(true)
  })

  it('refuses permissions of any shape other than a Set or an array', () => {
    for (const shape of ['export', { export: true }, 42, null]) {
      expect(holdsAll(needs, shape as never)).toBe(false)
    }
    expect(holdsAll(needs, new Set(['export']))).toBe(true)
    expect(holdsAll(needs, ['export'])).toBe(true)
  })
})

describe('createContinuations', () => {
  const memory = createMemoryStore()
  const storeWithout = (method: keyof ContinuationStore) => {
    const store: Record<string, unknown> = {
      get: memory.get,
      set: memory.set,
      delete: memory.delete,
    }
    delete store[method]
    return store as unknown as ContinuationStore
  }

  it('throws a TypeError for options that are not an object', () => {
    for (const bad of [null, 'options', 42]) {
      expect(() => createContinuations(bad as never)).toThrow(TypeError)
    }
  })

  it('throws a TypeError for a store missing get, set or delete', () => {
    for (const method of ['get', 'set', 'delete'] as const) {
      expect(() => createContinuations({ store: storeWithout(method) })).toThrow(TypeError)
    }
    expect(createContinuations({ store: memory }).options.store).toBe(memory)
  })

  it('throws a TypeError for an audit sink without record() and for a clock that is not a function', () => {
    expect(() => createContinuations({ audit: null as never })).toThrow(TypeError)
    expect(() => createContinuations({ audit: { record: 1 } as never })).toThrow(TypeError)
    expect(() => createContinuations({ now: 1_800_000_000_000 as never })).toThrow(TypeError)
    const now = () => 5
    expect(createContinuations({ now }).options.now).toBe(now)
    expect(createContinuations().options.audit).toBeUndefined()
  })
})

describe('createMemoryStore', () => {
  it('caps maxRecordBytes at maxBytes by default, refusing a record over a small maxBytes', async () => {
    const store = createMemoryStore({ maxBytes: 100 })
    await store.set('k', 'v'.repeat(99), 60_000)
    expect(await store.get('k')).toHaveLength(99)
    const error = await store.set('k', 'v'.repeat(100), 60_000).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'ERR_CONTINUATION_TOO_LARGE', limit: 100, observed: 101 })
  })

  it('throws a TypeError for a clock that is not a function', () => {
    expect(() => createMemoryStore({ now: 0 as never })).toThrow(TypeError)
  })

  it('throws a TypeError from set() for a ttlMs that is not a positive safe integer', async () => {
    const store = createMemoryStore()
    for (const ttl of [0, -1, 1.5, Number.NaN, '100']) {
      await expect(store.set('k', 'v', ttl as number)).rejects.toThrow(TypeError)
    }
  })

  it('charges a replaced key once, so replacing it does not evict another entry', async () => {
    const store = createMemoryStore({ maxBytes: 20, maxRecordBytes: 20 })
    await store.set('a', '123456789', 60_000) // 10 bytes
    await store.set('b', '123456789', 60_000) // 20 held
    await store.set('b', '123456789', 60_000) // still 20
    await store.set('b', '123456789', 60_000)
    expect(await store.get('a')).toBe('123456789')
    expect(await store.get('b')).toBe('123456789')
  })

  it('evicts nothing at exactly maxEntries and the oldest one past it', async () => {
    const store = createMemoryStore({ maxEntries: 3 })
    for (const k of ['a', 'b', 'c']) await store.set(k, k, 60_000)
    expect([await store.get('a'), await store.get('b'), await store.get('c')]).toEqual([
      'a',
      'b',
      'c',
    ])
    await store.set('d', 'd', 60_000)
    expect(await store.get('a')).toBeUndefined()
    expect(await store.get('d')).toBe('d')
  })
})

describe('pinoAuditSink', () => {
  it('throws a TypeError for a logger missing info() or warn(), or no logger', () => {
    expect(() => pinoAuditSink({ warn: noop } as never)).toThrow(TypeError)
    expect(() => pinoAuditSink({ info: noop } as never)).toThrow(TypeError)
    expect(() => pinoAuditSink({ info: noop, warn: 1 } as never)).toThrow(TypeError)
    expect(() => pinoAuditSink(null as never)).toThrow(TypeError)
    expect(() => pinoAuditSink('logger' as never)).toThrow(TypeError)
  })

  it('writes a mint and a serve at info with the whole event and its name as the message', async () => {
    const calls: [string, object, string][] = []
    const sink = pinoAuditSink({
      info: (o, m) => calls.push(['info', o, m]),
      warn: (o, m) => calls.push(['warn', o, m]),
    })
    const service = createContinuations({ audit: sink })
    const m = await service.mint({
      ownerKey: 'o',
      target: target(team, group('documents', 'get')),
      payload: 'p',
    })
    if (!m.ok) throw new Error('mint failed')
    await service.redeem(m.token, { ownerKey: 'o', route: team, permissions: ALL })
    expect(calls.map(([level, o, msg]) => [level, msg, Object.keys(o).sort()])).toEqual([
      ['info', 'continuation_minted', ['bytes', 'event', 'expiresAt', 'target', 'tokenHash']],
      ['info', 'continuation_served', ['event', 'route', 'target', 'tokenHash']],
    ])
  })

  it('writes a mint failure at warn with the event name as the message', async () => {
    const calls: [string, object, string][] = []
    const sink = pinoAuditSink({
      info: (o, m) => calls.push(['info', o, m]),
      warn: (o, m) => calls.push(['warn', o, m]),
    })
    const service = createContinuations({ audit: sink, maxPayloadBytes: 1 })
    const t = target(team, group('documents', 'get'))
    expect(await service.mint({ ownerKey: 'o', target: t, payload: 'pp' })).toEqual({
      ok: false,
      error: { code: 'ERR_CONTINUATION_TOO_LARGE', limit: 1 },
    })
    expect(calls).toEqual([
      [
        'warn',
        {
          event: 'continuation_mint_failed',
          code: 'ERR_CONTINUATION_TOO_LARGE',
          target: 'knowledge.documents.get',
          bytes: 2,
        },
        'continuation_mint_failed',
      ],
    ])
  })
})

describe('isContinuationStoreError', () => {
  it('recognizes both store codes by code alone and nothing else', () => {
    expect(isContinuationStoreError({ code: 'ERR_CONTINUATION_TOO_LARGE' })).toBe(true)
    expect(isContinuationStoreError({ code: 'ERR_CONTINUATION_STORE_UNAVAILABLE' })).toBe(true)
    expect(isContinuationStoreError({ code: 'ERR_OTHER' })).toBe(false)
    expect(isContinuationStoreError(new Error('x'))).toBe(false)
    expect(isContinuationStoreError(null)).toBe(false)
    expect(isContinuationStoreError('ERR_CONTINUATION_TOO_LARGE')).toBe(false)
    // A code that only stringifies to a known one is not one.
    expect(isContinuationStoreError({ code: ['ERR_CONTINUATION_TOO_LARGE'] })).toBe(false)
    expect(isContinuationStoreError({ code: 'ERR_CONTINUATION_STORE_FULL' })).toBe(true)
  })
})

describe('ContinuationStoreError', () => {
  it('carries its code, name, limit and observed, and a message without them for each code', () => {
    const large = new ContinuationStoreError('ERR_CONTINUATION_TOO_LARGE', {
      limit: 10,
      observed: 11,
    })
    const down = new ContinuationStoreError('ERR_CONTINUATION_STORE_UNAVAILABLE')
    expect(large).toMatchObject({ code: 'ERR_CONTINUATION_TOO_LARGE', limit: 10, observed: 11 })
    expect(down).toMatchObject({ code: 'ERR_CONTINUATION_STORE_UNAVAILABLE' })
    expect(down.limit).toBeUndefined()
    expect(down.observed).toBeUndefined()
    expect(large.name).toBe('ContinuationStoreError')
    expect(large).toBeInstanceOf(Error)
    // One message per code, so an operator reading a log line can tell the two apart.
    expect(large.message).not.toBe(down.message)
    expect(large.message.length).toBeGreaterThan(0)
    expect(down.message.length).toBeGreaterThan(0)
  })
})

describe('isTokenShape', () => {
  it('is false for a non-string that looks like a token through length and toString', () => {
    const lookAlike = { length: 22, toString: () => 'A'.repeat(22) }
    expect(isTokenShape(lookAlike)).toBe(false)
    expect(isTokenShape('A'.repeat(22))).toBe(true)
  })
})

describe('mint', () => {
  it('accepts an owner key of 1,024 characters and throws a TypeError for an empty one or 1,025', async () => {
    const service = createContinuations()
    const t = target(team, group('documents', 'get'))
    expect((await service.mint({ ownerKey: 'k'.repeat(1024), target: t, payload: 'p' })).ok).toBe(
      true,
    )
    for (const ownerKey of ['', 'k'.repeat(1025), 42]) {
      await expect(
        service.mint({ ownerKey: ownerKey as string, target: t, payload: 'p' }),
      ).rejects.toThrow(TypeError)
    }
  })
})

describe('redeem', () => {
  it('throws a TypeError for a route not made by createRouteView, even for a token it would refuse', async () => {
    const service = createContinuations()
    for (const route of [{ ...team }, {}, null]) {
      await expect(
        service.redeem('not-a-token', {
          ownerKey: 'o',
          route: route as RouteView,
          permissions: ALL,
        }),
      ).rejects.toThrow(TypeError)
    }
  })
})

describe('resolveScoped', () => {
  it('refuses a missing request or one of an unknown kind with TOOL_NOT_FOUND, without throwing', () => {
    for (const request of [undefined, null, {}, { kind: 'other', name: 'admin.stats' }]) {
      expect(resolveScoped(team, request as never, ALL)).toBe(TOOL_NOT_FOUND)
    }
    expect(Object.isFrozen(TOOL_NOT_FOUND.error)).toBe(true)
    expect(TOOL_NOT_FOUND).toStrictEqual({
      ok: false,
      error: { code: 'ERR_TOOL_NOT_FOUND', message: 'Unknown tool.' },
    })
  })
})
