// The per-principal limits of the reference server on `@tollgate/fleet-limits`, for a fleet:
// with `--redis-url` every instance decides on one Redis, so N instances no longer give a
// caller N times its quota (measured before: 5 + 5 sessions on two instances with a quota of
// 5). Each limit states its rule for a Redis outage, and each outage is audited once when it
// starts and once when it ends (the limits report it; the store is asked again at most once a
// second, so service recovers without a restart):
//   - requests in flight (2026-07-28): a local share, `limit ÷ instances` per instance, since
//     this limit also guards the process itself and refusing everyone would turn a Redis
//     outage into an outage of the service;
//   - requests per minute (2026-07-28): closed (503 `ERR_QUOTA_UNAVAILABLE`): a rate is a
//     fleet-wide budget that a per-instance bucket would silently multiply;
//   - sessions per credential and the anonymous pool (2025): a local share, as for requests in
//     flight (an open session costs the process memory, like a request in flight).

import {
  type ConcurrencyLimit,
  createConcurrencyLimit,
  createRateLimit,
  isLimitRefusal,
  type LimitLease,
  type LimitRefusal,
  type LimitStore,
  limitKey,
  type OutageEvent,
  type RateLimit,
} from '@tollgate/fleet-limits'
import type { Audit } from './audit.js'
import type { PrincipalQuota, QuotaAnswer, QuotaRefusal } from './principal-quota.js'

/** Options of {@link sharedLimits}. */
export interface SharedLimitsOptions {
  /** Where leases and buckets live: `redisLimitStore(...)` for a fleet. */
  readonly store: LimitStore
  /** Requests one quota key has in flight at once, across the fleet. */
  readonly maxConcurrent: number
  /** Requests one quota key starts per minute, across the fleet. */
  readonly requestsPerMinute: number
  /** Sessions one credential (and the anonymous pool together) holds, across the fleet. */
  readonly maxSessionsPerCredential: number
  /** How many instances share the store: each keeps `limit ÷ instances` during an outage. */
  readonly instances: number
  /** Milliseconds a lease outlives a dead holder (renewed every third of it while held). */
  readonly leaseMs: number
  /** Receives `limit_store_unavailable` / `limit_store_recovered`, once per outage and limit. */
  readonly audit: Audit
}

/** The fleet-wide limits of one instance: held by the HTTP server, asked per request. */
export interface SharedLimits {
  /** The 2026-07-28 request quota (in flight and per minute) on the shared store. */
  readonly quota: PrincipalQuota
  /**
   * Bodies in flight per principal across the fleet (8, http-admission's per-process default;
   * an anonymous pool together the same, each address a quarter): the body control's
   * `fleetBodies`. Rule while the store is down: a local share, as for requests in flight.
   */
  readonly bodies: ConcurrencyLimit
  /**
   * A lease on one of `key`'s sessions (in `pool`, for an anonymous caller), held while the
   * session lives, or why not: `ERR_SESSION_QUOTA` (429). While the store is down the session
   * limit decides on its local share, so it never refuses for the outage itself.
   */
  reserveSession(key: string, pool?: string): Promise<LimitLease | SessionQuotaRefusal>
}

/** Why {@link SharedLimits.reserveSession} refused. */
export interface SessionQuotaRefusal {
  readonly ok: false
  readonly code: 'ERR_SESSION_QUOTA'
  readonly status: 429
  readonly limit: number
  readonly retryAfterSeconds: number
}

/** Bodies one principal has in flight across the fleet: http-admission's per-process default. */
const BODIES_PER_PRINCIPAL = 8

const QUOTA_CODES = {
  ERR_LIMIT_CONCURRENT: 'ERR_QUOTA_CONCURRENT',
  ERR_LIMIT_RATE: 'ERR_QUOTA_RATE',
  ERR_LIMIT_UNAVAILABLE: 'ERR_QUOTA_UNAVAILABLE',
} as const

/** The app's codes stay the same whichever store decided: clients branch on one vocabulary. */
function quotaRefusal(refusal: LimitRefusal): QuotaRefusal {
  return Object.freeze({
    code: QUOTA_CODES[refusal.code as keyof typeof QUOTA_CODES] ?? 'ERR_QUOTA_UNAVAILABLE',
    limit: refusal.limit,
    status: refusal.status,
    retryAfterSeconds: refusal.retryAfterSeconds,
  })
}

/**
 * Builds the instance's fleet-wide limits over `store` (options validated now, by the limits).
 * @throws TypeError naming the option on a bad figure.
 */
export function sharedLimits(options: SharedLimitsOptions): SharedLimits {
  const { store, audit, instances } = options
  const onOutage = (event: OutageEvent) =>
    audit(event.state === 'started' ? 'limit_store_unavailable' : 'limit_store_recovered', {
      limit: event.name,
    })
  const local = { local: { instances } } as const
  const concurrent: ConcurrencyLimit = createConcurrencyLimit({
    store,
    name: 'mcp.requests-in-flight',
    limit: options.maxConcurrent,
    leaseMs: options.leaseMs,
    onUnavailable: local,
    onOutage,
  })
  const rate: RateLimit = createRateLimit({
    store,
    name: 'mcp.requests-per-minute',
    perMinute: options.requestsPerMinute,
    onUnavailable: 'closed',
    onOutage,
  })
  const sessions: ConcurrencyLimit = createConcurrencyLimit({
    store,
    name: 'mcp.sessions',
    limit: options.maxSessionsPerCredential,
    leaseMs: options.leaseMs,
    onUnavailable: local,
    onOutage,
  })

  const bodies: ConcurrencyLimit = createConcurrencyLimit({
    store,
    name: 'mcp.bodies-in-flight',
    limit: BODIES_PER_PRINCIPAL,
    leaseMs: options.leaseMs,
    onUnavailable: local,
    onOutage,
  })

  // Pooled keys (anonymous callers) and credentials never share a key: the tuple is escaped.
  const keyOf = (key: string, pool: string | undefined) =>
    pool === undefined ? limitKey('own', key) : limitKey('pool', pool, key)

  const quota: PrincipalQuota = Object.freeze({
    maxConcurrent: options.maxConcurrent,
    requestsPerMinute: options.requestsPerMinute,
    maxKeys: Number.POSITIVE_INFINITY,
    async acquire(key: string, _now?: number, pool?: string): Promise<QuotaAnswer> {
      const id = keyOf(key, pool)
      const lease = await concurrent.acquire(id)
      if (isLimitRefusal(lease)) return { ok: false, error: quotaRefusal(lease) }
      const token = await rate.take(id)
      if (isLimitRefusal(token)) {
        await lease.release()
        return { ok: false, error: quotaRefusal(token) }
      }
      return { ok: true, lease: { release: () => void lease.release() } }
    },
  })

  return Object.freeze({
    quota,
    bodies,
    async reserveSession(key: string, pool?: string) {
      const lease = await sessions.acquire(limitKey('own', key), pool)
      if (!isLimitRefusal(lease)) return lease
      // The session limit's rule is a local share (above): it refuses only for the count, never
      // with ERR_LIMIT_UNAVAILABLE, so its one refusal is the quota's.
      return Object.freeze({
        ok: false as const,
        code: 'ERR_SESSION_QUOTA' as const,
        status: 429 as const,
        limit: lease.limit,
        retryAfterSeconds: lease.retryAfterSeconds,
      })
    },
  })
}
