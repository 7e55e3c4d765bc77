// The store interface shared by the in-memory and Redis stores. Keys are token hashes; values
// are encoded records. A store throws on failure; the service turns that into the fail-closed
// refusal at redemption and into a mint failure code at mint.

/** A continuation store. Implementations: `createMemoryStore()`, `createRedisStore()`. */
export interface ContinuationStore {
  /**
   * Stores `value` under `key` for `ttlMs` milliseconds, replacing any previous value. Throws a
   * {@link ContinuationStoreError} with `ERR_CONTINUATION_TOO_LARGE` for a value over the store's
   * cap, and any error when the store is unavailable.
   */
  set(key: string, value: string, ttlMs: number): Promise<void>
  /** The value under `key`, or `undefined` when absent or expired. Throws when unavailable. */
  get(key: string): Promise<string | undefined>
  /** Removes `key` (no error when absent). Throws when unavailable. */
  delete(key: string): Promise<void>
}

/** Codes a store raises. */
export type ContinuationStoreErrorCode =
  | 'ERR_CONTINUATION_TOO_LARGE'
  | 'ERR_CONTINUATION_STORE_UNAVAILABLE'

/** An error a store throws with a stable `code`; the message never holds a key or value. */
export class ContinuationStoreError extends Error {
  readonly code: ContinuationStoreErrorCode
  readonly limit: number | undefined
  readonly observed: number | undefined
  constructor(
    code: ContinuationStoreErrorCode,
    details: { limit?: number; observed?: number } = {},
  ) {
    super(
      code === 'ERR_CONTINUATION_TOO_LARGE'
        ? 'Continuation record exceeds the store limit; raise maxRecordBytes.'
        : 'Continuation store unavailable.',
    )
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
  return code === 'ERR_CONTINUATION_TOO_LARGE' || code === 'ERR_CONTINUATION_STORE_UNAVAILABLE'
}

/** Validates a positive safe-integer option; `TypeError` otherwise. */
export function assertPositiveInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`${name} must be a positive safe integer`)
  }
  return value
}
