import {
  defineOptions,
  functionOption,
  integerOption,
  type OptionsOf,
  option,
} from '@tollgate/json-budget'

// Per-principal limits, so one caller (or a few cheap sockets sharing one anonymous key) cannot
// take every upstream slot: a cap on calls in flight per principal, and a token bucket per
// principal and tool (a flood of one cheap tool does not starve the principal's other tools,
// nor anyone else's). Memory is bounded: an in-flight count exists only while a call holds it,
// and at most `maxTrackedKeys` buckets are kept, the least recently used evicted first (a
// bucket unused for `burst / ratePerMinute` minutes is full again, the same as a new one).

/**
 * The options of {@link limiter}, declared once: the input type, the defaults and the checks
 * come from it.
 */
export const LIMITER_OPTIONS = defineOptions('limiter', {
  concurrentPerPrincipal: option({
    default: 16,
    check: integerOption(),
    doc: 'calls in flight per principal; one more is refused with `ERR_CONCURRENCY_LIMIT`',
  }),
  ratePerMinute: option({
    default: 600,
    check: integerOption(),
    doc: "sustained calls per minute per principal and tool (the bucket's refill rate); past it, `ERR_RATE_LIMITED`",
  }),
  burst: option({
    default: 60,
    check: integerOption(),
    doc: 'calls a full bucket admits at once (its capacity)',
  }),
  maxTrackedKeys: option({
    default: 100_000,
    check: integerOption(),
    doc: 'most buckets kept; past it the least recently used is evicted',
  }),
  now: option<() => number>({
    default: Date.now,
    check: functionOption,
    shown: '`Date.now`',
    doc: 'the clock, in milliseconds',
  }),
})

/** Options of {@link limiter} (see {@link LIMITER_OPTIONS}); every field optional. */
export type LimiterOptions = OptionsOf<typeof LIMITER_OPTIONS.rows>

/** A refusal of {@link Limiter.acquire}: answer it with `status` and `Retry-After: retryAfterSeconds`. */
export interface LimiterRefusal {
  readonly ok: false
  /**
   * `ERR_LIMITER_UNAVAILABLE`: the shared store (`--redis-url`) cannot answer and the limit's
   * rule is to refuse (the rate; see `sharedLimiter`).
   */
  readonly code: 'ERR_CONCURRENCY_LIMIT' | 'ERR_RATE_LIMITED' | 'ERR_LIMITER_UNAVAILABLE'
  /** 429 for the caller's own limit, 503 when the shared store is unavailable. */
  readonly status: 429 | 503
  /** Whole seconds, at least 1: when a slot or a token is expected to be free. */
  readonly retryAfterSeconds: number
}

/** An admitted call: `release()` when it ends (idempotent). */
export interface LimiterLease {
  readonly ok: true
  release(): void
}

/** Per-principal concurrency and per-principal × tool rate. */
export interface Limiter {
  /**
   * Admits one call of `tool` by `principalKey` (a `Principal.key`), or refuses it. Call it
   * once the tool is known to be served (a caller must not create buckets with names of its
   * choosing). A refusal takes nothing: no slot, no token. The in-memory limiter answers at
   * once; the shared one (`sharedLimiter`) after one store round trip per limit.
   */
  acquire(
    principalKey: string,
    tool: string,
  ): LimiterLease | LimiterRefusal | Promise<LimiterLease | LimiterRefusal>
  /** How many buckets are kept now (for metrics and tests). */
  trackedKeys(): number
}

/** The in-memory {@link Limiter} of one process: it answers at once. */
export interface LocalLimiter extends Limiter {
  acquire(principalKey: string, tool: string): LimiterLease | LimiterRefusal
}

/** The numeric defaults of {@link LimiterOptions} (from {@link LIMITER_OPTIONS}). */
export const LIMITER_DEFAULTS: Readonly<{
  concurrentPerPrincipal: number
  ratePerMinute: number
  burst: number
  maxTrackedKeys: number
}> = Object.freeze({
  concurrentPerPrincipal: LIMITER_OPTIONS.defaults.concurrentPerPrincipal,
  ratePerMinute: LIMITER_OPTIONS.defaults.ratePerMinute,
  burst: LIMITER_OPTIONS.defaults.burst,
  maxTrackedKeys: LIMITER_OPTIONS.defaults.maxTrackedKeys,
})

interface Bucket {
  tokens: number
  at: number
}

/**
 * Builds a limiter (options validated now).
 * @throws TypeError on an unknown option, a limit that is not a positive safe integer, or a
 *   `now` that is not a function.
 */
export function limiter(options?: LimiterOptions): LocalLimiter {
  const resolved = LIMITER_OPTIONS.resolve(options)
  const maxInFlight = resolved.concurrentPerPrincipal
  const perMs = resolved.ratePerMinute / 60_000
  const { burst, now } = resolved
  const maxKeys = resolved.maxTrackedKeys
  const inFlight = new Map<string, number>()
  // Insertion order is recency order: a used bucket is moved to the end.
  const buckets = new Map<string, Bucket>()

  const refill = (bucket: Bucket, t: number): number =>
    Math.min(burst, bucket.tokens + Math.max(0, t - bucket.at) * perMs)

  return Object.freeze({
    acquire(principalKey: string, tool: string): LimiterLease | LimiterRefusal {
      const held = inFlight.get(principalKey) ?? 0
      if (held >= maxInFlight) {
        return { ok: false, code: 'ERR_CONCURRENCY_LIMIT', status: 429, retryAfterSeconds: 1 }
      }
      const t = now()
      // Idle buckets go too: the least recently used ones that have refilled hold nothing a
      // new bucket would not (two per call, so they drain faster than they can be made).
      for (let i = 0; i < 2; i++) {
        const oldest = buckets.entries().next().value
        if (oldest === undefined || refill(oldest[1], t) < burst) break
        buckets.delete(oldest[0])
      }
      const key = `${principalKey}\u0000${tool}`
      const found = buckets.get(key)
      const tokens = found === undefined ? burst : refill(found, t)
      if (tokens < 1) {
        // The tolerance keeps a float residue (2000.0000000004 ms) from adding a second.
        const seconds = Math.ceil((1 - tokens) / perMs / 1000 - 1e-9)
        return {
          ok: false,
          code: 'ERR_RATE_LIMITED',
          status: 429,
          retryAfterSeconds: Math.max(1, seconds),
        }
      }
      if (found !== undefined) buckets.delete(key)
      buckets.set(key, { tokens: tokens - 1, at: t })
      // Full: the least recently used bucket goes, refilled or not.
      while (buckets.size > maxKeys) buckets.delete(buckets.keys().next().value as string)
      inFlight.set(principalKey, held + 1)
      let released = false
      return {
        ok: true,
        release() {
          if (released) return
          released = true
          const n = (inFlight.get(principalKey) ?? 1) - 1
          if (n <= 0) inFlight.delete(principalKey)
          else inFlight.set(principalKey, n)
        },
      }
    },
    trackedKeys(): number {
      return buckets.size
    },
  })
}
