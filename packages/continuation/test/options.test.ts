// The options of the service, the two stores and the route view: one validator table each, so
// an unknown option is refused by name at construction, and what a resolver returned is
// returned as it is. No Redis needed: the Redis store's options are checked against a stub.
import { describe, expect, it } from 'vitest'
import {
  CONTINUATIONS_DEFAULTS,
  createContinuations,
  createMemoryStore,
  createRouteView,
  createToolRegistry,
  MEMORY_STORE_DEFAULTS,
  resolveContinuationsOptions,
  resolveMemoryStoreOptions,
} from '../src/index.js'
import { createRedisStore, REDIS_STORE_DEFAULTS, resolveRedisStoreOptions } from '../src/redis.js'

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

  it('fills the defaults, freezes, and returns what it resolved as it is', () => {
    const resolved = resolveContinuationsOptions({ ttlMs: 5 })
    expect(Object.isFrozen(resolved)).toBe(true)
    expect(resolved).toMatchObject({ ...CONTINUATIONS_DEFAULTS, ttlMs: 5, audit: undefined })
    expect(resolveContinuationsOptions(resolved)).toBe(resolved)
    expect(createContinuations(resolved).options).toBe(resolved)
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
    expect(resolved).toMatchObject({ ...MEMORY_STORE_DEFAULTS, maxEntriesPerOwner: false })
    expect(resolveMemoryStoreOptions(resolved)).toBe(resolved)
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
      MEMORY_STORE_DEFAULTS.maxRecordBytes,
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
    expect(resolved).toMatchObject({ ...REDIS_STORE_DEFAULTS, maxBytesPerOwner: false })
    expect(
      resolveRedisStoreOptions({ client: stub, maxEntriesPerOwner: false }).maxEntriesPerOwner,
    ).toBe(false)
    expect(resolveRedisStoreOptions(resolved)).toBe(resolved)
    expect(() => resolveRedisStoreOptions({ ...resolved, commandTimeoutMs: 0 })).toThrow(
      /commandTimeoutMs/,
    )
  })

  it('lowers the default maxRecordBytes to maxBytesPerOwner, and keeps it with the byte quota off', () => {
    expect(resolveRedisStoreOptions({ client: stub, maxBytesPerOwner: 50 }).maxRecordBytes).toBe(50)
    expect(resolveRedisStoreOptions({ client: stub, maxBytesPerOwner: false }).maxRecordBytes).toBe(
      REDIS_STORE_DEFAULTS.maxRecordBytes,
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
