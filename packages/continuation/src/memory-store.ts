// The default store: one process, bounded by entry count and by bytes, entries expire after
// their TTL. Every entry belongs to an owner (the service passes the SHA-256 of the owner key),
// and a write only ever evicts entries of its own owner: first to stay within the owner's quota,
// then to stay within the store's global caps. When the owner has nothing left to give up and the
// store is still full of other owners' live entries, the write is refused
// (`ERR_CONTINUATION_STORE_FULL`) rather than pushing out someone else's token. A Map keeps
// insertion order and a read re-inserts the entry, so the first key of each map is the least
// recently used.

import {
  defineOptions,
  integerOption,
  type OptionsOf,
  option,
  type ResolvedOf,
} from '@tollgate/json-budget'
import {
  assertPositiveInteger,
  CLOCK_ROW,
  type ContinuationStore,
  ContinuationStoreError,
  ownerQuotaRows,
  RECORD_BYTES,
  resolveOwnerQuota,
} from './store.js'

/**
 * The options of {@link createMemoryStore}, declared once. A per-owner quota left unset is
 * lowered to its global cap when that is smaller, and so is the default `maxRecordBytes` (to
 * `maxBytes` and `maxBytesPerOwner`).
 */
export const MEMORY_STORE_OPTIONS = defineOptions('createMemoryStore', {
  maxEntries: option({
    default: 1000,
    check: integerOption(),
    doc: "most entries of all owners together; once reached a write evicts the writing owner's least recently used entries, never another owner's, and an owner holding none is refused (`ERR_CONTINUATION_STORE_FULL`)",
  }),
  maxBytes: option({
    default: 256 * 1024 * 1024,
    check: integerOption(),
    doc: 'most bytes of all owners (UTF-8 of keys and values), handled like `maxEntries`',
  }),
  maxRecordBytes: option({
    default: RECORD_BYTES,
    check: integerOption(),
    shown: '64 MiB + 4 KiB',
    doc: 'largest single record in UTF-8 bytes; larger is refused; at most `maxBytes` and `maxBytesPerOwner`',
  }),
  ...ownerQuotaRows({
    entries:
      "most entries one owner holds; a write beyond it evicts that owner's least recently used entry; `false` is off",
    bytes:
      "most bytes one owner holds; `false` is off, and both per-owner options `false` turn owner isolation off (the global caps then evict any owner's entries)",
  }),
  now: CLOCK_ROW,
})

/** Options of {@link createMemoryStore} (see {@link MEMORY_STORE_OPTIONS}); every field optional. */
export type MemoryStoreOptions = OptionsOf<typeof MEMORY_STORE_OPTIONS.rows>

/** What a memory store holds: every option set, frozen; a quota turned off is `false`. */
export type ResolvedMemoryStoreOptions = ResolvedOf<typeof MEMORY_STORE_OPTIONS.rows>

/**
 * Validates once, fills the defaults, lowers the unset ones that depend on a global cap, and
 * freezes.
 * @throws TypeError naming the option: an unknown option, a limit that is not a positive safe
 *   integer (or `false` for the per-owner quotas), a `maxRecordBytes` above `maxBytes` or
 *   `maxBytesPerOwner`, or a per-owner quota above its global cap.
 */
export function resolveMemoryStoreOptions(
  options?: MemoryStoreOptions,
): ResolvedMemoryStoreOptions {
  const o = MEMORY_STORE_OPTIONS.resolve(options)
  const { maxEntries, maxBytes } = o
  const quota = resolveOwnerQuota(
    {
      maxEntriesPerOwner: options?.maxEntriesPerOwner,
      maxBytesPerOwner: options?.maxBytesPerOwner,
    },
    MEMORY_STORE_OPTIONS.defaults as { maxEntriesPerOwner: number; maxBytesPerOwner: number },
    { maxEntries, maxBytes },
  )
  const maxRecordBytes =
    options?.maxRecordBytes ?? Math.min(RECORD_BYTES, maxBytes, quota.maxBytes || maxBytes)
  if (maxRecordBytes > maxBytes) throw new TypeError('maxRecordBytes must not exceed maxBytes')
  if (quota.maxBytes !== 0 && maxRecordBytes > quota.maxBytes) {
    throw new TypeError('maxRecordBytes must not exceed maxBytesPerOwner')
  }
  return Object.freeze({
    ...o,
    maxRecordBytes,
    maxEntriesPerOwner: quota.maxEntries === 0 ? false : quota.maxEntries,
    maxBytesPerOwner: quota.maxBytes === 0 ? false : quota.maxBytes,
  })
}

interface Slot {
  readonly value: string
  readonly bytes: number
  readonly expiresAt: number
  readonly owner: string
}

interface Holdings {
  /** The owner's keys, least recently used first. */
  readonly keys: Set<string>
  bytes: number
}

/**
 * An in-memory {@link ContinuationStore}. Throws a `TypeError` at construction on bad options
 * (see {@link resolveMemoryStoreOptions}). `set` throws `ERR_CONTINUATION_TOO_LARGE` for a
 * record over `maxRecordBytes` and `ERR_CONTINUATION_STORE_FULL` (with the global `limit`
 * reached) when only other owners' live entries could make room. A `set` without an owner is
 * charged to one shared owner.
 */
export function createMemoryStore(
  options: MemoryStoreOptions | ResolvedMemoryStoreOptions = {},
): ContinuationStore {
  const resolved = resolveMemoryStoreOptions(options)
  const { maxEntries, maxBytes, maxRecordBytes, now } = resolved
  // 0 is "off" inside the store, so the hot checks compare numbers only.
  const quota = {
    maxEntries: resolved.maxEntriesPerOwner || 0,
    maxBytes: resolved.maxBytesPerOwner || 0,
  }
  const isolated = quota.maxEntries !== 0 || quota.maxBytes !== 0

  const slots = new Map<string, Slot>()
  const owners = new Map<string, Holdings>()
  let held = 0

  const remove = (key: string) => {
    const slot = slots.get(key)
    if (slot === undefined) return
    slots.delete(key)
    held -= slot.bytes
    const holdings = owners.get(slot.owner)
    if (holdings === undefined) return
    holdings.keys.delete(key)
    holdings.bytes -= slot.bytes
    if (holdings.keys.size === 0) owners.delete(slot.owner)
  }
  const sweep = (keys: Iterable<string>) => {
    const t = now()
    for (const key of [...keys]) if ((slots.get(key)?.expiresAt ?? t) <= t) remove(key)
  }
  const overOwner = (h: Holdings | undefined, bytes: number) =>
    h !== undefined &&
    ((quota.maxEntries !== 0 && h.keys.size + 1 > quota.maxEntries) ||
      (quota.maxBytes !== 0 && h.bytes + bytes > quota.maxBytes))

  /** Makes room for `bytes` more under `owner`, evicting only that owner's entries. */
  const admit = (owner: string, bytes: number) => {
    let mine = owners.get(owner)
    if (overOwner(mine, bytes)) {
      sweep(mine!.keys)
      mine = owners.get(owner)
      while (mine !== undefined && overOwner(mine, bytes)) {
        remove(mine.keys.values().next().value as string)
        mine = owners.get(owner)
      }
    }
    if (slots.size + 1 <= maxEntries && held + bytes <= maxBytes) return
    // Expired entries are nobody's live token: dropping them takes nothing from anyone.
    sweep(slots.keys())
    mine = owners.get(owner)
    const entriesShort = slots.size + 1 - maxEntries
    const bytesShort = held + bytes - maxBytes
    if (entriesShort <= 0 && bytesShort <= 0) return
    if ((mine?.keys.size ?? 0) < entriesShort || (mine?.bytes ?? 0) < bytesShort) {
      throw new ContinuationStoreError('ERR_CONTINUATION_STORE_FULL', {
        limit: entriesShort > 0 ? maxEntries : maxBytes,
      })
    }
    while (slots.size + 1 > maxEntries || held + bytes > maxBytes) {
      remove(owners.get(owner)!.keys.values().next().value as string)
    }
  }

  return Object.freeze({
    async set(key: string, value: string, ttlMs: number, owner = '') {
      assertPositiveInteger('ttlMs', ttlMs)
      if (typeof owner !== 'string') throw new TypeError('owner must be a string')
      const bytes = Buffer.byteLength(key) + Buffer.byteLength(value)
      if (bytes > maxRecordBytes) {
        throw new ContinuationStoreError('ERR_CONTINUATION_TOO_LARGE', {
          limit: maxRecordBytes,
          observed: bytes,
        })
      }
      remove(key)
      if (isolated) admit(owner, bytes)
      slots.set(key, { value, bytes, expiresAt: now() + ttlMs, owner })
      held += bytes
      let holdings = owners.get(owner)
      if (holdings === undefined) {
        holdings = { keys: new Set(), bytes: 0 }
        owners.set(owner, holdings)
      }
      holdings.keys.add(key)
      holdings.bytes += bytes
      if (isolated) return
      // Owner isolation off: the global caps evict the least recently used entry of anyone.
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
      const keys = owners.get(slot.owner)?.keys
      keys?.delete(key)
      keys?.add(key)
      return slot.value
    },
    async delete(key: string) {
      remove(key)
    },
  })
}
