import { describe, expect, it } from 'vitest'
import { createMemoryStore, MEMORY_STORE_OPTIONS } from '../src/index.js'
import { storeContract } from './helpers/store-contract.js'

storeContract('memory', () => ({
  make: (options = {}) => createMemoryStore(options),
  overhead: 0,
}))

describe('createMemoryStore', () => {
  it('evicts the least recently used entry past maxEntries', async () => {
    const store = createMemoryStore({ maxEntries: 2 })
    await store.set('a', '1', 60_000)
    await store.set('b', '2', 60_000)
    await store.get('a') // a is now the most recent
    await store.set('c', '3', 60_000)
    expect(await store.get('b')).toBeUndefined()
    expect(await store.get('a')).toBe('1')
    expect(await store.get('c')).toBe('3')
  })

  it('holds maxBytes exactly and evicts the oldest at one byte more', async () => {
    const store = createMemoryStore({ maxBytes: 20, maxRecordBytes: 20 })
    await store.set('a', '123456789', 60_000) // 10 bytes
    await store.set('b', '123456789', 60_000) // 20 bytes held
    expect(await store.get('a')).toBe('123456789')
    await store.set('c', '1', 60_000) // 22 > 20: evict the least recent (b)
    expect(await store.get('b')).toBeUndefined()
    expect(await store.get('a')).toBe('123456789')
    expect(await store.get('c')).toBe('1')
  })

  it('expires by its clock', async () => {
    let now = 0
    const store = createMemoryStore({ now: () => now })
    await store.set('a', 'v', 100)
    now = 99
    expect(await store.get('a')).toBe('v')
    now = 100
    expect(await store.get('a')).toBeUndefined()
  })

  it('throws a TypeError at construction for a bad limit', () => {
    expect(() => createMemoryStore({ maxEntries: 0 })).toThrow(TypeError)
    expect(() => createMemoryStore({ maxBytes: 1.5 })).toThrow(TypeError)
    expect(() => createMemoryStore({ maxBytes: 10, maxRecordBytes: 11 })).toThrow(TypeError)
    expect(MEMORY_STORE_OPTIONS.defaults).toEqual({
      maxEntries: 1000,
      maxBytes: 268_435_456,
      maxRecordBytes: 67_112_960,
      maxEntriesPerOwner: 100,
      maxBytesPerOwner: 67_112_960,
      poolMemberShare: 0.25,
      now: Date.now,
    })
  })
})
