// The default store: one process, bounded by entry count and by bytes, entries expire after
// their TTL. Every entry belongs to an owner (the service passes the SHA-256 of the owner key),
// and a write only ever evicts entries of its own owner: first to stay within the owner's quota,
// then to stay within the store's global caps. When the owner has nothing left to give up and the
// store is still full of other owners' live entries, the write is refused
// (`ERR_CONTINUATION_STORE_FULL`) rather than pushing out someone else's token. A Map keeps
// insertion order and a read re-inserts the entry, so the first key of each map is the least
// recently used. An owner in a pool (every anonymous caller, one owner per address) is held to a
// share of the pool, and the pool to one owner's quota: otherwise a few hundred addresses, each
// its own owner with a full quota, would fill the global caps and lock every credential out.

import {
  defineOptions,
  integerOption,
  type OptionsOf,
  option,
  type ResolvedOf,
} from '@tollgate/json-budget'
import {
  assertPool,
  assertPositiveInteger,
  CLOCK_ROW,
  type ContinuationStore,
  ContinuationStoreError,
  memberQuota,
  type OwnerQuota,
  ownerQuotaRows,
  POOL_MEMBER_SHARE_ROW,
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
  poolMemberShare: POOL_MEMBER_SHARE_ROW,
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
  /** The owner, scoped by its pool (see `memberOf`). */
  readonly owner: string
  readonly pool: string | undefined
}

interface Holdings {
  /** The owner's keys, least recently used first. */
  readonly keys: Set<string>
  bytes: number
}

/** An owner within its pool: the same owner without a pool, or in another, is someone else. */
const memberOf = (owner: string, pool: string | undefined) =>
  pool === undefined ? owner : `${pool}\u0000${owner}`

/**
 * An in-memory {@link ContinuationStore}. Throws a `TypeError` at construction on bad options
 * (see {@link resolveMemoryStoreOptions}). `set` throws `ERR_CONTINUATION_TOO_LARGE` for a
 * record over `maxRecordBytes` (or a pool member's byte share) and `ERR_CONTINUATION_STORE_FULL`
 * (with the global or pool `limit` reached) when only other owners' live entries could make
 * room. A `set` without an owner is charged to one shared owner. A `set` with a `pool` holds
 * the pool to one owner's quota and the owner to `poolMemberShare` of it; with owner isolation
 * off (both per-owner quotas `false`) a pool limits nothing either.
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
  const member = memberQuota(quota, resolved.poolMemberShare)

  const slots = new Map<string, Slot>()
  const owners = new Map<string, Holdings>()
  const pools = new Map<string, Holdings>()
  let held = 0

  const release = (map: Map<string, Holdings>, name: string, key: string, bytes: number) => {
    const holdings = map.get(name)
    if (holdings === undefined) return
    holdings.keys.delete(key)
    holdings.bytes -= bytes
    if (holdings.keys.size === 0) map.delete(name)
  }
  const charge = (map: Map<string, Holdings>, name: string, key: string, bytes: number) => {
    let holdings = map.get(name)
    if (holdings === undefined) {
      holdings = { keys: new Set(), bytes: 0 }
      map.set(name, holdings)
    }
    holdings.keys.add(key)
    holdings.bytes += bytes
  }
  const remove = (key: string) => {
    const slot = slots.get(key)
    if (slot === undefined) return
    slots.delete(key)
    held -= slot.bytes
    release(owners, slot.owner, key, slot.bytes)
    if (slot.pool !== undefined) release(pools, slot.pool, key, slot.bytes)
  }
  const sweep = (keys: Iterable<string>) => {
    const t = now()
    for (const key of [...keys]) if ((slots.get(key)?.expiresAt ?? t) <= t) remove(key)
  }
  const over = (h: Holdings | undefined, bytes: number, q: OwnerQuota) =>
    h !== undefined &&
    ((q.maxEntries !== 0 && h.keys.size + 1 > q.maxEntries) ||
      (q.maxBytes !== 0 && h.bytes + bytes > q.maxBytes))

  /**
   * Brings a scope (the store, or a pool: `count`/`size` read it afresh) within `cap` for one
   * more entry of `bytes`, evicting only `owner`'s least recently used entries; refuses when
   * they cannot make room. Expired entries in the scope go first: they are nobody's live token.
   */
  const within = (
    scope: { count(): number; size(): number; keys(): Iterable<string> },
    cap: OwnerQuota,
    owner: string,
    bytes: number,
  ) => {
    const short = () => ({
      entries: cap.maxEntries === 0 ? 0 : scope.count() + 1 - cap.maxEntries,
      bytes: cap.maxBytes === 0 ? 0 : scope.size() + bytes - cap.maxBytes,
    })
    if (short().entries <= 0 && short().bytes <= 0) return
    sweep(scope.keys())
    const need = short()
    if (need.entries <= 0 && need.bytes <= 0) return
    const mine = owners.get(owner)
    if ((mine?.keys.size ?? 0) < need.entries || (mine?.bytes ?? 0) < need.bytes) {
      throw new ContinuationStoreError('ERR_CONTINUATION_STORE_FULL', {
        limit: need.entries > 0 ? cap.maxEntries : cap.maxBytes,
      })
    }
    while (short().entries > 0 || short().bytes > 0) {
      remove(owners.get(owner)!.keys.values().next().value as string)
    }
  }

  /** Makes room for `bytes` more under `owner` (in `pool`), evicting only that owner's entries. */
  const admit = (owner: string, pool: string | undefined, bytes: number) => {
    const own = pool === undefined ? quota : member
    let mine = owners.get(owner)
    if (over(mine, bytes, own)) {
      sweep(mine!.keys)
      mine = owners.get(owner)
      while (mine !== undefined && over(mine, bytes, own)) {
        remove(mine.keys.values().next().value as string)
        mine = owners.get(owner)
      }
    }
    // The pool's owners together hold one owner's quota, within the store's caps below.
    if (pool !== undefined) {
      const keys = () => pools.get(pool)?.keys ?? []
      within(
        {
          count: () => pools.get(pool)?.keys.size ?? 0,
          size: () => pools.get(pool)?.bytes ?? 0,
          keys,
        },
        quota,
        owner,
        bytes,
      )
    }
    within(
      { count: () => slots.size, size: () => held, keys: () => slots.keys() },
      { maxEntries, maxBytes },
      owner,
      bytes,
    )
  }

  return Object.freeze({
    async set(key: string, value: string, ttlMs: number, owner = '', pool?: string) {
      assertPositiveInteger('ttlMs', ttlMs)
      if (typeof owner !== 'string') throw new TypeError('owner must be a string')
      assertPool(pool)
      const bytes = Buffer.byteLength(key) + Buffer.byteLength(value)
      // A pool member can never hold more than its byte share, however much it evicts.
      const limit =
        isolated && pool !== undefined && member.maxBytes !== 0
          ? Math.min(maxRecordBytes, member.maxBytes)
          : maxRecordBytes
      if (bytes > limit) {
        throw new ContinuationStoreError('ERR_CONTINUATION_TOO_LARGE', { limit, observed: bytes })
      }
      remove(key)
      const scoped = memberOf(owner, pool)
      if (isolated) admit(scoped, pool, bytes)
      slots.set(key, { value, bytes, expiresAt: now() + ttlMs, owner: scoped, pool })
      held += bytes
      charge(owners, scoped, key, bytes)
      if (pool !== undefined) charge(pools, pool, key, bytes)
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
