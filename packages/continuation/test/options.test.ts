// The options of the service, the two stores and the route view: one options table each, so
// an unknown option is refused by name at construction, and what a control resolved is what it
// holds. No Redis needed: the Redis store's options are checked against a stub. The resolvers
// are imported from their files (they are not exported from the package root).
import { describe, expect, it } from 'vitest'
import {
  CONTINUATIONS_OPTIONS,
  createContinuations,
  createMemoryStore,
  createRouteView,
  createToolRegistry,
  MEMORY_STORE_OPTIONS,
} from '../src/index.js'
import { resolveMemoryStoreOptions } from '../src/memory-store.js'
import { resolveContinuationsOptions } from '../src/options.js'
import { createRedisStore, REDIS_STORE_OPTIONS, resolveRedisStoreOptions } from '../src/redis.js'

const stub = {
  get: async () => null,
  set: async () => 'OK',
  del: async () => 1,
  eval: async () => 'OK',
}

describe('resolveContinuationsOptions', () => {
  it('refuses an unknown option by name, cut to 64 characters', () => {
    expect(() => createContinuations({ ttl: 1 } as never)).toThrow(
      'continuations: unknown option ttl',
    )
    expect(() => resolveContinuationsOptions({ [`${'x'.repeat(64)}y`]: 1 } as never)).toThrow(
      `continuations: unknown option ${'x'.repeat(64)}`,
    )
  })

  it('fills the defaults, freezes, and keeps what it resolved', () => {
    const { store: _, ...defaults } = CONTINUATIONS_OPTIONS.defaults
    const resolved = resolveContinuationsOptions({ ttlMs: 5 })
    expect(Object.isFrozen(resolved)).toBe(true)
    expect(resolved).toMatchObject({ ...defaults, ttlMs: 5, audit: undefined })
    expect(typeof resolved.store.get).toBe('function')
    expect(resolveContinuationsOptions(resolved)).toEqual(resolved)
    expect(createContinuations(resolved).options).toEqual(resolved)
    expect(createContinuations(resolved).options.store).toBe(resolved.store)
    // A look-alike is validated again.
    expect(() => resolveContinuationsOptions({ ...resolved, ttlMs: 0 })).toThrow(/ttlMs/)
  })

  it('treats only undefined as the default', () => {
    expect(() => resolveContinuationsOptions({ store: null } as never)).toThrow(/store\.get/)
    expect(() => resolveContinuationsOptions({ now: null } as never)).toThrow(/now/)
    expect(() => resolveContinuationsOptions({ audit: {} } as never)).toThrow(/audit\.record/)
  })
})

describe('resolveMemoryStoreOptions', () => {
  it('refuses an unknown option by name', () => {
    expect(() => createMemoryStore({ maxEntry: 1 } as never)).toThrow(
      'createMemoryStore: unknown option maxEntry',
    )
  })

  it('fills the defaults, keeps false for a quota turned off, and returns what it resolved as it is', () => {
    const resolved = resolveMemoryStoreOptions({ maxEntriesPerOwner: false })
    expect(resolved).toMatchObject({ ...MEMORY_STORE_OPTIONS.defaults, maxEntriesPerOwner: false })
    expect(resolveMemoryStoreOptions(resolved)).toEqual(resolved)
    expect(() => resolveMemoryStoreOptions({ ...resolved, maxEntries: -1 })).toThrow(/maxEntries/)
    expect(resolveMemoryStoreOptions({ maxEntries: 10 }).maxEntriesPerOwner).toBe(10)
    expect(resolveMemoryStoreOptions({ maxBytesPerOwner: false }).maxBytesPerOwner).toBe(false)
  })

  it('lowers the default maxRecordBytes to maxBytes and to maxBytesPerOwner, whichever is smaller', () => {
    expect(resolveMemoryStoreOptions({ maxBytes: 100 }).maxRecordBytes).toBe(100)
    expect(resolveMemoryStoreOptions({ maxBytesPerOwner: 50 }).maxRecordBytes).toBe(50)
    expect(
      resolveMemoryStoreOptions({ maxBytesPerOwner: false, maxBytes: 100 }).maxRecordBytes,
    ).toBe(100)
    expect(resolveMemoryStoreOptions({ maxBytesPerOwner: false }).maxRecordBytes).toBe(
      MEMORY_STORE_OPTIONS.defaults.maxRecordBytes,
    )
  })
})

describe('resolveRedisStoreOptions', () => {
  it('refuses an unknown option by name and a missing client', () => {
    expect(() => createRedisStore({ client: stub, prefx: 'a' } as never)).toThrow(
      'createRedisStore: unknown option prefx',
    )
    expect(() => resolveRedisStoreOptions(undefined as never)).toThrow(/client\.get/)
  })

  it('fills the defaults and returns what it resolved as it is', () => {
    const resolved = resolveRedisStoreOptions({ client: stub, maxBytesPerOwner: false })
    const { client: _, onError: __, ...defaults } = REDIS_STORE_OPTIONS.defaults
    expect(resolved).toMatchObject({ ...defaults, maxBytesPerOwner: false })
    expect(
      resolveRedisStoreOptions({ client: stub, maxEntriesPerOwner: false }).maxEntriesPerOwner,
    ).toBe(false)
    expect(resolveRedisStoreOptions(resolved)).toEqual(resolved)
    expect(() => resolveRedisStoreOptions({ ...resolved, commandTimeoutMs: 0 })).toThrow(
      /commandTimeoutMs/,
    )
  })

  it('lowers the default maxRecordBytes to maxBytesPerOwner, and keeps it with the byte quota off', () => {
    expect(resolveRedisStoreOptions({ client: stub, maxBytesPerOwner: 50 }).maxRecordBytes).toBe(50)
    expect(resolveRedisStoreOptions({ client: stub, maxBytesPerOwner: false }).maxRecordBytes).toBe(
      REDIS_STORE_OPTIONS.defaults.maxRecordBytes,
    )
  })
})

describe('createRouteView options', () => {
  it('refuses an unknown option by name, a carve-out misspelt among them', () => {
    const registry = createToolRegistry([{ name: 'admin.stats', tier: 'read' }])
    const base = { name: '/mcp', registry, mount: ['**'], ceiling: 'read' } as const
    expect(createRouteView(base).names).toEqual(['admin.stats'])
    expect(() => createRouteView({ ...base, denied: ['admin.**'] } as never)).toThrow(
      'createRouteView: unknown option denied',
    )
    expect(() => createRouteView(undefined as never)).toThrow(TypeError)
  })
})
