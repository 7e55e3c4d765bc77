// What a limit asks of its store. A store decides; a limit owns the policy (figures, failure
// rule, renewal) and turns an answer into a lease, a grant or a refusal. Each call is one
// decision taken atomically: on Redis one script, one round trip; in memory one synchronous
// step. Keys reach the store already scoped by the limit's name.

/** Where a lease or a bucket lives: the limit's name and the caller's key (or pool). */
export interface LimitScope {
  /** The limit's name (`[A-Za-z0-9_.-]`, 1–64 characters), separating limits on one store. */
  readonly name: string
  /** The caller's key (at most 1,024 characters), as the app built it. */
  readonly key: string
}

/** One lease to take: `id` for `key`, held to `limit`, and with a pool, the pool to `pool.limit`. */
export interface LeaseRequest extends LimitScope {
  /** Unique id of this lease (random, 16 bytes base64url). */
  readonly id: string
  /** Most leases `key` holds at once. */
  readonly limit: number
  /** Milliseconds the lease lives after its last renewal. */
  readonly leaseMs: number
  /** The pool `key` belongs to and the most leases the whole pool holds at once. */
  readonly pool?: { readonly key: string; readonly limit: number } | undefined
}

/** A store's answer to a {@link LeaseRequest}: taken, or which of the two counts was full. */
export type LeaseAnswer =
  | { readonly ok: true }
  | { readonly ok: false; readonly full: 'key' | 'pool' }

/** A lease already taken, to renew or release. */
export interface LeaseRef extends LimitScope {
  readonly id: string
  readonly leaseMs: number
  readonly pool?: string | undefined
}

/** A token bucket: `perMinute` tokens refilled per minute, up to `burst` held. */
export interface BucketSpec {
  readonly perMinute: number
  readonly burst: number
}

/** Tokens to take: `cost` from `key`'s bucket and, with a pool, from the pool's, or from neither. */
export interface TakeRequest extends LimitScope, BucketSpec {
  readonly cost: number
  readonly pool?: ({ readonly key: string } & BucketSpec) | undefined
}

/** A store's answer to a {@link TakeRequest}: taken, or which bucket was short and for how long. */
export type TakeAnswer =
  | { readonly ok: true; readonly remaining: number }
  | { readonly ok: false; readonly full: 'key' | 'pool'; readonly retryAfterMs: number }

/**
 * A store of leases and token buckets. `memoryLimitStore()` holds them in one process;
 * `redisLimitStore()` (`@tollgate/fleet-limits/redis`) on one Redis every instance shares.
 * A store that cannot answer rejects with a {@link LimitStoreUnavailableError}; the limit then
 * applies its failure rule.
 */
export interface LimitStore {
  /** `'memory'` or `'redis'`: for logs and for the limit to tell a local store apart. */
  readonly kind: string
  /** Sweeps `key`'s (and the pool's) expired leases, then takes `id` if both have room. */
  acquire(request: LeaseRequest): Promise<LeaseAnswer>
  /**
   * Pushes the lease's expiry to `leaseMs` from now, adding it back if it had expired (the
   * work it stands for is still running, so it must count).
   */
  renew(lease: LeaseRef): Promise<void>
  /** Removes the lease; removing one that is gone is not an error. */
  release(lease: LeaseRef): Promise<void>
  /** Refills `key`'s bucket (and the pool's) to now, then takes `cost` from both or neither. */
  take(request: TakeRequest): Promise<TakeAnswer>
}

/** Thrown (rejected) by a store that cannot answer: Redis down, closed or too slow. */
export class LimitStoreUnavailableError extends Error {
  readonly code = 'ERR_LIMIT_UNAVAILABLE' as const
  constructor() {
    super('the limit store is unavailable')
    this.name = 'LimitStoreUnavailableError'
  }
}

/** Tokens a bucket holds after `elapsedMs` at `perMinute`, from `tokens`, capped at `burst`. */
export function refill(tokens: number, elapsedMs: number, spec: BucketSpec): number {
  return Math.min(spec.burst, tokens + (Math.max(0, elapsedMs) * spec.perMinute) / 60_000)
}
