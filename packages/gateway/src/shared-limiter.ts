// The gateway's per-principal limits on `@tollgate/fleet-limits`, for a fleet: with
// `--redis-url` every instance decides on one Redis, so N gateways no longer give a caller N
// times its calls in flight and N times its rate. The rule of each limit while Redis cannot
// answer (each outage logged once as `limit_store_unavailable`, once `limit_store_recovered`):
//   - calls in flight per principal: a local share, `limit ÷ --fleet-instances` per instance,
//     since the limit also keeps one caller from taking every upstream slot of this process;
//   - calls per minute per principal × tool: closed (503 `ERR_LIMITER_UNAVAILABLE`), since a
//     rate is a budget on the upstream that a per-instance bucket would silently multiply.

import {
  createConcurrencyLimit,
  createRateLimit,
  isLimitRefusal,
  type LimitRefusal,
  type LimitStore,
  limitKey,
  type OutageEvent,
} from '@tollgate/fleet-limits'
import {
  LIMITER_DEFAULTS,
  type Limiter,
  type LimiterLease,
  type LimiterOptions,
  type LimiterRefusal,
} from './limiter.js'

/** Options of {@link sharedLimiter}: the limiter's figures, the store, the fleet's size. */
export interface SharedLimiterOptions
  extends Pick<LimiterOptions, 'concurrentPerPrincipal' | 'ratePerMinute' | 'burst'> {
  /** Where leases and buckets live: `redisLimitStore(...)`. */
  readonly store: LimitStore
  /** Instances sharing the store (`--fleet-instances`). Default: 1. */
  readonly instances?: number
  /** Milliseconds a lease outlives a dead gateway (renewed while held). Default: 30,000. */
  readonly leaseMs?: number
  /** Called once when the store's outage starts and once when it ends, per limit. */
  readonly onOutage?: (event: OutageEvent) => void
}

const CODES = {
  ERR_LIMIT_CONCURRENT: 'ERR_CONCURRENCY_LIMIT',
  ERR_LIMIT_RATE: 'ERR_RATE_LIMITED',
  ERR_LIMIT_UNAVAILABLE: 'ERR_LIMITER_UNAVAILABLE',
} as const

// The gateway's codes stay the same whichever store decided.
function refusal(r: LimitRefusal): LimiterRefusal {
  return Object.freeze({
    ok: false,
    code: CODES[r.code as keyof typeof CODES] ?? 'ERR_LIMITER_UNAVAILABLE',
    status: r.status,
    retryAfterSeconds: r.retryAfterSeconds,
  })
}

/**
 * Builds the fleet-wide limiter over `store`, with the figures and defaults of `limiter()`
 * (options validated now, by the limits).
 * @throws TypeError naming the option on a bad figure.
 */
export function sharedLimiter(options: SharedLimiterOptions): Limiter {
  const d = LIMITER_DEFAULTS
  const { store, onOutage } = options
  const perMinute = options.ratePerMinute ?? d.ratePerMinute
  const concurrent = createConcurrencyLimit({
    store,
    name: 'gateway.calls-in-flight',
    limit: options.concurrentPerPrincipal ?? d.concurrentPerPrincipal,
    leaseMs: options.leaseMs ?? 30_000,
    onUnavailable: { local: { instances: options.instances ?? 1 } },
    ...(onOutage === undefined ? {} : { onOutage }),
  })
  const rate = createRateLimit({
    store,
    name: 'gateway.calls-per-minute',
    perMinute,
    burst: options.burst ?? d.burst,
    onUnavailable: 'closed',
    ...(onOutage === undefined ? {} : { onOutage }),
  })
  return Object.freeze({
    async acquire(principalKey: string, tool: string): Promise<LimiterLease | LimiterRefusal> {
      const lease = await concurrent.acquire(principalKey)
      if (isLimitRefusal(lease)) return refusal(lease)
      const token = await rate.take(limitKey(principalKey, tool))
      if (isLimitRefusal(token)) {
        await lease.release()
        return refusal(token)
      }
      let released = false
      return {
        ok: true,
        release() {
          if (released) return
          released = true
          void lease.release()
        },
      }
    },
    // The buckets live in the shared store; none is kept in this process.
    trackedKeys: () => 0,
  })
}
