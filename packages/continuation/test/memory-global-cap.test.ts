// The memory store's global caps under owner isolation: a write at the global cap evicts the
// writing owner's own entries, expired entries of anyone are dropped first, and an owner with
// nothing of its own to give up is refused ERR_CONTINUATION_STORE_FULL, never served by
// evicting another owner. Control removed: owner isolation off, the global LRU evicts another
// owner's seconds-old entry (the reported attack).
import { describe, expect, it } from 'vitest'
import { createContinuations, createMemoryStore, isContinuationStoreError } from '../src/index.js'
import { group, heavyPayload, manualClock, target, team } from './fixtures/routes.js'

const TTL = 60_000

describe('createMemoryStore global caps with per-owner quotas', () => {
  it('refuses a write with ERR_CONTINUATION_STORE_FULL when only other owners’ live entries could make room', async () => {
    const store = createMemoryStore({ maxEntries: 4, maxEntriesPerOwner: 2 })
    for (const k of ['a1', 'a2']) await store.set(k, k, TTL, 'a')
    for (const k of ['b1', 'b2']) await store.set(k, k, TTL, 'b')
    const error = await store.set('c1', 'c1', TTL, 'c').catch((e: unknown) => e)
    expect(isContinuationStoreError(error)).toBe(true)
    expect(error).toMatchObject({ code: 'ERR_CONTINUATION_STORE_FULL', limit: 4 })
    expect(await store.get('c1')).toBeUndefined()
    const kept = await Promise.all(['a1', 'a2', 'b1', 'b2'].map((k) => store.get(k)))
    expect(kept).toEqual(['a1', 'a2', 'b1', 'b2'])
  })

  it('refuses at the global byte cap with its limit, taking nothing from another owner', async () => {
    const store = createMemoryStore({
      maxBytes: 30,
      maxBytesPerOwner: 20,
      maxEntriesPerOwner: false,
    })
    await store.set('a1', 'x'.repeat(18), TTL, 'a') // 20 bytes
    const error = await store.set('b1', 'x'.repeat(18), TTL, 'b').catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'ERR_CONTINUATION_STORE_FULL', limit: 30 })
    expect(await store.get('a1')).toHaveLength(18)
    await store.set('b2', 'x'.repeat(8), TTL, 'b') // 10 bytes: fits beside a1
    expect(await store.get('b2')).toHaveLength(8)
  })

  it('at the global cap evicts the writing owner’s own least recently used entry, not another’s', async () => {
    const store = createMemoryStore({ maxEntries: 4, maxEntriesPerOwner: 3 })
    for (const k of ['a1', 'a2', 'a3']) await store.set(k, k, TTL, 'a')
    await store.set('b1', 'b1', TTL, 'b')
    await store.get('b1')
    await store.set('b2', 'b2', TTL, 'b') // full: b gives up b1, its own oldest
    expect(await store.get('b1')).toBeUndefined()
    const kept = await Promise.all(['a1', 'a2', 'a3', 'b2'].map((k) => store.get(k)))
    expect(kept).toEqual(['a1', 'a2', 'a3', 'b2'])
  })

  it('drops expired entries of any owner before refusing at the global cap', async () => {
    const clock = manualClock()
    const store = createMemoryStore({ maxEntries: 2, maxEntriesPerOwner: 1, now: clock.now })
    await store.set('a1', 'a1', 100, 'a')
    await store.set('b1', 'b1', TTL, 'b')
    clock.advance(100)
    await store.set('c1', 'c1', TTL, 'c')
    expect([await store.get('b1'), await store.get('c1')]).toEqual(['b1', 'c1'])
  })

  it('keeps owner isolation at the global cap when only one of the per-owner quotas is off', async () => {
    for (const off of [{ maxEntriesPerOwner: false }, { maxBytesPerOwner: false }] as const) {
      const store = createMemoryStore({ maxEntries: 2, ...off })
      for (const k of ['a1', 'a2']) await store.set(k, k, TTL, 'a')
      const error = await store.set('b1', 'b1', TTL, 'b').catch((e: unknown) => e)
      expect(error).toMatchObject({ code: 'ERR_CONTINUATION_STORE_FULL', limit: 2 })
      expect([await store.get('a1'), await store.get('a2')]).toEqual(['a1', 'a2'])
    }
  })

  it('at the global byte cap evicts exactly enough of the writing owner’s own bytes, not another’s', async () => {
    const store = createMemoryStore({
      maxBytes: 30,
      maxBytesPerOwner: 20,
      maxEntriesPerOwner: false,
    })
    await store.set('a1', 'x'.repeat(8), TTL, 'a') // 10 bytes
    await store.set('b1', 'x'.repeat(18), TTL, 'b') // 20 bytes: the store is full
    await store.set('a2', 'y'.repeat(8), TTL, 'a') // 10 short, and a holds exactly 10
    expect(await store.get('a1')).toBeUndefined()
    expect([await store.get('b1'), await store.get('a2')]).toEqual(['x'.repeat(18), 'y'.repeat(8)])
  })

  it('reports maxBytes as the limit when the entries fit exactly and the bytes do not', async () => {
    const store = createMemoryStore({
      maxEntries: 2,
      maxBytes: 30,
      maxBytesPerOwner: 20,
      maxEntriesPerOwner: false,
    })
    await store.set('a1', 'x'.repeat(18), TTL, 'a') // 20 bytes, 1 of 2 entries
    const error = await store.set('b1', 'x'.repeat(18), TTL, 'b').catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'ERR_CONTINUATION_STORE_FULL', limit: 30 })
  })

  it('answers mint with ERR_CONTINUATION_STORE_FULL and audits it, the other owners’ tokens intact', async () => {
    const events: unknown[] = []
    const service = createContinuations({
      store: createMemoryStore({ maxEntries: 2, maxEntriesPerOwner: 1 }),
      audit: { record: (e) => events.push(e) },
    })
    const t = target(team, group('documents', 'get'))
    for (const ownerKey of ['a', 'b']) {
      expect(await service.mint({ ownerKey, target: t, payload: heavyPayload() })).toMatchObject({
        ok: true,
      })
    }
    expect(await service.mint({ ownerKey: 'c', target: t, payload: heavyPayload() })).toEqual({
      ok: false,
      error: { code: 'ERR_CONTINUATION_STORE_FULL', limit: 2 },
    })
    expect(events.at(-1)).toMatchObject({
      event: 'continuation_mint_failed',
      code: 'ERR_CONTINUATION_STORE_FULL',
    })
  })

  it('lets one owner’s writes evict another owner’s seconds-old entry when owner isolation is off (control removed)', async () => {
    const store = createMemoryStore({
      maxEntries: 10,
      maxEntriesPerOwner: false,
      maxBytesPerOwner: false,
    })
    await store.set('victim', 'fresh', TTL, 'a')
    for (let i = 0; i < 10; i++) await store.set(`b${i}`, 'x', TTL, 'b')
    expect(await store.get('victim')).toBeUndefined()
  })

  it('with owner isolation off holds exactly maxEntries, and evicts the least recently used past it', async () => {
    const store = createMemoryStore({
      maxEntries: 3,
      maxEntriesPerOwner: false,
      maxBytesPerOwner: false,
    })
    for (const k of ['k1', 'k2', 'k3']) await store.set(k, k, TTL, k)
    expect(await Promise.all(['k1', 'k2', 'k3'].map((k) => store.get(k)))).toEqual([
      'k1',
      'k2',
      'k3',
    ])
    await store.get('k1')
    await store.set('k4', 'k4', TTL, 'k4')
    expect(await Promise.all(['k1', 'k2', 'k3', 'k4'].map((k) => store.get(k)))).toEqual([
      'k1',
      undefined,
      'k3',
      'k4',
    ])
  })

  it('with owner isolation off holds exactly maxBytes, and evicts the least recently used past it', async () => {
    const store = createMemoryStore({
      maxBytes: 30,
      maxEntriesPerOwner: false,
      maxBytesPerOwner: false,
    })
    for (const k of ['k1', 'k2', 'k3']) await store.set(k, 'x'.repeat(8), TTL, k) // 10 bytes each
    expect(await Promise.all(['k1', 'k2', 'k3'].map((k) => store.get(k)))).toEqual(
      Array(3).fill('x'.repeat(8)),
    )
    await store.get('k1')
    await store.set('k4', 'x', TTL, 'k4')
    expect(await store.get('k2')).toBeUndefined()
    expect(await Promise.all(['k1', 'k3', 'k4'].map((k) => store.get(k)))).toEqual([
      'x'.repeat(8),
      'x'.repeat(8),
      'x',
    ])
  })

  it('throws a TypeError for a per-owner quota that is not a positive integer or false, or above its global cap', () => {
    for (const bad of [0, -1, 1.5, '10', true, null]) {
      expect(() => createMemoryStore({ maxEntriesPerOwner: bad as never })).toThrow(TypeError)
      expect(() => createMemoryStore({ maxBytesPerOwner: bad as never })).toThrow(TypeError)
    }
    expect(() => createMemoryStore({ maxEntries: 10, maxEntriesPerOwner: 11 })).toThrow(TypeError)
    expect(() => createMemoryStore({ maxBytes: 10, maxBytesPerOwner: 11 })).toThrow(TypeError)
    expect(() => createMemoryStore({ maxBytesPerOwner: 100, maxRecordBytes: 101 })).toThrow(
      TypeError,
    )
    expect(createMemoryStore({ maxEntries: 10, maxEntriesPerOwner: 10 })).toBeDefined()
    expect(createMemoryStore({ maxEntriesPerOwner: false, maxBytesPerOwner: false })).toBeDefined()
  })
})
