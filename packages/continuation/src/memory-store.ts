// The default store: one process, bounded by entry count and by bytes, entries expire after
// their TTL, least recently used evicted first. A Map keeps insertion order; a read re-inserts
// the entry, so the first key is always the least recently used.

import { assertPositiveInteger, type ContinuationStore, ContinuationStoreError } from './store.js'

/** Options of {@link createMemoryStore}. */
export interface MemoryStoreOptions {
  /** Most entries held; the least recently used is evicted beyond it. Default: 1,000. */
  readonly maxEntries?: number
  /** Most bytes held (UTF-8 of keys and values); LRU eviction beyond it. Default: 256 MiB. */
  readonly maxBytes?: number
  /** Largest single record in UTF-8 bytes; larger is refused. Default: 64 MiB + 4 KiB. */
  readonly maxRecordBytes?: number
  /** Clock in ms, for tests. Default: `Date.now`. */
  readonly now?: () => number
}

/** The defaults of {@link createMemoryStore} (frozen). */
export const MEMORY_STORE_DEFAULTS = Object.freeze({
  maxEntries: 1000,
  maxBytes: 256 * 1024 * 1024,
  maxRecordBytes: 64 * 1024 * 1024 + 4096,
})

interface Slot {
  readonly value: string
  readonly bytes: number
  readonly expiresAt: number
}

/**
 * An in-memory {@link ContinuationStore}. Throws a `TypeError` at construction on a limit that
 * is not a positive safe integer or a `maxRecordBytes` above `maxBytes`; `set` throws
 * `ERR_CONTINUATION_TOO_LARGE` for a record over `maxRecordBytes`.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): ContinuationStore {
  const maxEntries = assertPositiveInteger(
    'maxEntries',
    options.maxEntries ?? MEMORY_STORE_DEFAULTS.maxEntries,
  )
  const maxBytes = assertPositiveInteger(
    'maxBytes',
    options.maxBytes ?? MEMORY_STORE_DEFAULTS.maxBytes,
  )
  const maxRecordBytes = assertPositiveInteger(
    'maxRecordBytes',
    options.maxRecordBytes ?? Math.min(MEMORY_STORE_DEFAULTS.maxRecordBytes, maxBytes),
  )
  if (maxRecordBytes > maxBytes) throw new TypeError('maxRecordBytes must not exceed maxBytes')
  const now = options.now ?? Date.now
  if (typeof now !== 'function') throw new TypeError('now must be a function')

  const slots = new Map<string, Slot>()
  let held = 0

  const remove = (key: string) => {
    const slot = slots.get(key)
    if (slot === undefined) return
    slots.delete(key)
    held -= slot.bytes
  }

  return Object.freeze({
    async set(key: string, value: string, ttlMs: number) {
      assertPositiveInteger('ttlMs', ttlMs)
      const bytes = Buffer.byteLength(key) + Buffer.byteLength(value)
      if (bytes > maxRecordBytes) {
        throw new ContinuationStoreError('ERR_CONTINUATION_TOO_LARGE', {
          limit: maxRecordBytes,
          observed: bytes,
        })
      }
      remove(key)
      slots.set(key, { value, bytes, expiresAt: now() + ttlMs })
      held += bytes
      for (const oldest of slots.keys()) {
        if (slots.size <= maxEntries && held <= maxBytes) break
        remove(oldest)
      }
    },
    async get(key: string) {
      const slot = slots.get(key)
      if (slot === undefined) return undefined
      if (slot.expiresAt <= now()) {
        remove(key)
        return undefined
      }
      slots.delete(key)
      slots.set(key, slot)
      return slot.value
    },
    async delete(key: string) {
      remove(key)
    },
  })
}
