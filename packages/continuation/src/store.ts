// The store interface shared by the in-memory and Redis stores. Keys are token hashes; values
// are encoded records; owners are owner-key hashes. A store throws on failure; the service turns
// that into the fail-closed refusal at redemption and into a mint failure code at mint.
import { functionOption, type OptionRow, option } from '@tollgate/json-budget'

/** A continuation store. Implementations: `createMemoryStore()`, `createRedisStore()`. */
export interface ContinuationStore {
  /**
   * Stores `value` under `key` for `ttlMs` milliseconds on behalf of `owner` (the service passes
   * the SHA-256 hex of the owner key), replacing any previous value. A store with a per-owner
   * quota evicts only `owner`'s own entries to make room, never another owner's. Throws a
   * {@link ContinuationStoreError} with `ERR_CONTINUATION_TOO_LARGE` for a value over the store's
   * cap, `ERR_CONTINUATION_STORE_FULL` when only other owners' entries could make room, and any
   * error when the store is unavailable. A store without quotas may ignore `owner`.
   *
   * With a `pool` (`'anonymous'` for every caller without a credential, each its own owner),
   * the pool's owners together are held to one owner's quota and each of them to
   * `poolMemberShare` of it, so however many owners the pool has (one per address), it never
   * takes more of the store than one owner and one member never the whole pool. A write still
   * evicts only its own owner's entries: a pool full of other members' entries is
   * `ERR_CONTINUATION_STORE_FULL` with the pool's cap as `limit`, and a record larger than a
   * member's byte share `ERR_CONTINUATION_TOO_LARGE`. An owner is counted within its pool (the
   * same owner without a pool is another owner). A pool name is 1–64 of `A-Z a-z 0-9 . _ -`.
   */
  set(key: string, value: string, ttlMs: number, owner?: string, pool?: string): Promise<void>
  /** The value under `key`, or `undefined` when absent or expired. Throws when unavailable. */
  get(key: string): Promise<string | undefined>
  /** Removes `key` (no error when absent). Throws when unavailable. */
  delete(key: string): Promise<void>
}

/** Codes a store raises. */
export type ContinuationStoreErrorCode =
  | 'ERR_CONTINUATION_TOO_LARGE'
  | 'ERR_CONTINUATION_STORE_FULL'
  | 'ERR_CONTINUATION_STORE_UNAVAILABLE'

const MESSAGES: Readonly<Record<ContinuationStoreErrorCode, string>> = Object.freeze({
  ERR_CONTINUATION_TOO_LARGE: 'Continuation record exceeds the store limit; raise maxRecordBytes.',
  ERR_CONTINUATION_STORE_FULL:
    "Continuation store is full of other owners' entries; raise maxEntries or maxBytes.",
  ERR_CONTINUATION_STORE_UNAVAILABLE: 'Continuation store unavailable.',
})

/** An error a store throws with a stable `code`; the message never holds a key or value. */
export class ContinuationStoreError extends Error {
  readonly code: ContinuationStoreErrorCode
  readonly limit: number | undefined
  readonly observed: number | undefined
  constructor(
    code: ContinuationStoreErrorCode,
    details: { limit?: number; observed?: number } = {},
  ) {
    super(MESSAGES[code])
    this.name = 'ContinuationStoreError'
    this.code = code
    this.limit = details.limit
    this.observed = details.observed
  }
}

/** Guard for {@link ContinuationStoreError} that works across package copies (checks `code`). */
export function isContinuationStoreError(value: unknown): value is ContinuationStoreError {
  if (value === null || typeof value !== 'object') return false
  const code = (value as { code?: unknown }).code
  return typeof code === 'string' && Object.hasOwn(MESSAGES, code)
}

/** Validates a positive safe-integer option; `TypeError` otherwise. */
export function assertPositiveInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`${name} must be a positive safe integer`)
  }
  return value
}

/** A validator for a per-owner quota option: a positive safe integer, or `false` (off). */
export function quotaOption(value: unknown, name: string): void {
  if (value !== false) assertPositiveInteger(name, value)
}

/** Checks a `pool` argument of `set` (see {@link ContinuationStore.set}); `TypeError` otherwise. */
export function assertPool(pool: unknown): asserts pool is string | undefined {
  if (pool !== undefined && (typeof pool !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(pool))) {
    throw new TypeError('pool must be 1-64 characters of A-Z a-z 0-9 . _ -, or undefined')
  }
}

/**
 * What one member of a pool holds: `share` of the pool's quota (the pool as a whole holds one
 * owner's quota), at least one entry and one byte in each dimension that is on.
 */
export function memberQuota(quota: OwnerQuota, share: number): OwnerQuota {
  const part = (n: number) => (n === 0 ? 0 : Math.max(1, Math.floor(n * share)))
  return Object.freeze({ maxEntries: part(quota.maxEntries), maxBytes: part(quota.maxBytes) })
}

/**
 * The `poolMemberShare` row both stores declare: the fraction of a pool's quota (one owner's)
 * one owner in the pool holds. Default 0.25, as for the HTTP body shares.
 */
export const POOL_MEMBER_SHARE_ROW: OptionRow<number> = option({
  default: 0.25,
  check: (value, name) => {
    if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
      throw new TypeError(`${name} must be a number in (0, 1]`)
    }
  },
  doc: "fraction of a pool's quota (the pool as a whole holds one owner's quota: every anonymous caller, say) one owner in the pool holds, entries and bytes alike (at least one entry)",
})

/** A per-owner quota; `0` means that dimension is off. */
export interface OwnerQuota {
  readonly maxEntries: number
  readonly maxBytes: number
}

/**
 * Resolves `maxEntriesPerOwner` / `maxBytesPerOwner`: a positive safe integer, `false` (off), or
 * absent (the default, lowered to the global cap when that is smaller). An explicit quota above
 * its global cap (when the store has one) throws a `TypeError` naming the option.
 */
export function resolveOwnerQuota(
  options: {
    readonly maxEntriesPerOwner?: number | false
    readonly maxBytesPerOwner?: number | false
  },
  defaults: { readonly maxEntriesPerOwner: number; readonly maxBytesPerOwner: number },
  global: { readonly maxEntries?: number; readonly maxBytes?: number } = {},
): OwnerQuota {
  const one = (name: string, value: unknown, fallback: number, cap: number | undefined) => {
    if (value === false) return 0
    if (value === undefined) return Math.min(fallback, cap ?? fallback)
    const n = assertPositiveInteger(name, value)
    if (cap !== undefined && n > cap) throw new TypeError(`${name} must not exceed its global cap`)
    return n
  }
  return Object.freeze({
    maxEntries: one(
      'maxEntriesPerOwner',
      options.maxEntriesPerOwner,
      defaults.maxEntriesPerOwner,
      global.maxEntries,
    ),
    maxBytes: one(
      'maxBytesPerOwner',
      options.maxBytesPerOwner,
      defaults.maxBytesPerOwner,
      global.maxBytes,
    ),
  })
}

/** 64 MiB + 4 KiB: the largest record by default, a 64 MiB payload with its record around it. */
export const RECORD_BYTES = 64 * 1024 * 1024 + 4096

/** The `now` option of every table of this package: a clock in ms since the epoch, for tests. */
export const CLOCK_ROW: OptionRow<() => number> = option<() => number>({
  default: Date.now,
  check: functionOption,
  shown: '`Date.now`',
  doc: 'clock in ms since the epoch, for tests',
})

/**
 * The per-owner quota rows both stores declare: 100 entries and 64 MiB + 4 KiB per owner by
 * default, `false` turning a dimension off; `docs` says how each store evicts.
 */
export function ownerQuotaRows(docs: { readonly entries: string; readonly bytes: string }): {
  readonly maxEntriesPerOwner: OptionRow<number | false>
  readonly maxBytesPerOwner: OptionRow<number | false>
} {
  return {
    maxEntriesPerOwner: option<number | false>({
      default: 100,
      check: quotaOption,
      doc: docs.entries,
    }),
    maxBytesPerOwner: option<number | false>({
      default: RECORD_BYTES,
      check: quotaOption,
      shown: '64 MiB + 4 KiB',
      doc: docs.bytes,
    }),
  }
}
