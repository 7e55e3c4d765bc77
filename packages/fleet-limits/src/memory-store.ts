// The store of one process: exact (each decision is one synchronous step, so no interleaving
// can admit past a limit) and bounded by what is in use. A bucket is forgotten once it has
// refilled (absent reads as full) and a key once it holds no live lease; the sweep runs when
// the maps have doubled since the last one, so its cost is amortized over the calls that grew
// them. It is also the local fallback a limit uses while Redis is unreachable.

import { performance } from 'node:perf_hooks'
import {
  type BucketSpec,
  type LeaseAnswer,
  type LeaseRef,
  type LeaseRequest,
  type LimitStore,
  refill,
  type TakeAnswer,
  type TakeRequest,
} from './store.js'

interface Bucket {
  tokens: number
  at: number
  full: number
}

const MIN_SWEEP = 1024

/**
 * A {@link LimitStore} in this process's memory: exact for one process, shared by every limit
 * built on it (limits are kept apart by name). Use it alone when one instance serves, or in
 * tests; several instances need `redisLimitStore()`. Time is this process's monotonic clock.
 */
export function memoryLimitStore(): LimitStore {
  const leases = new Map<string, Map<string, number>>()
  const buckets = new Map<string, Bucket>()
  let sweepAt = MIN_SWEEP
  const now = () => performance.now()

  const live = (id: string, at: number): Map<string, number> | undefined => {
    const held = leases.get(id)
    if (held === undefined) return undefined
    for (const [lease, expires] of held) if (expires <= at) held.delete(lease)
    if (held.size === 0) leases.delete(id)
    return held.size === 0 ? undefined : held
  }
  const add = (id: string, lease: string, expires: number) => {
    let held = leases.get(id)
    if (held === undefined) {
      held = new Map()
      leases.set(id, held)
    }
    held.set(lease, expires)
  }
  const remove = (id: string, lease: string) => {
    const held = leases.get(id)
    if (held === undefined) return
    held.delete(lease)
    if (held.size === 0) leases.delete(id)
  }
  const sweep = (at: number) => {
    if (leases.size + buckets.size < sweepAt) return
    for (const id of [...leases.keys()]) live(id, at)
    for (const [id, b] of buckets) if (b.full <= at) buckets.delete(id)
    sweepAt = Math.max(MIN_SWEEP, 2 * (leases.size + buckets.size))
  }
  const tokensOf = (id: string, spec: BucketSpec, at: number): number => {
    const b = buckets.get(id)
    return b === undefined ? spec.burst : refill(b.tokens, at - b.at, spec)
  }
  const setTokens = (id: string, tokens: number, spec: BucketSpec, at: number) => {
    const full = at + ((spec.burst - tokens) * 60_000) / spec.perMinute
    buckets.set(id, { tokens, at, full })
  }

  const store: LimitStore = {
    kind: 'memory',
    async acquire(r: LeaseRequest): Promise<LeaseAnswer> {
      const at = now()
      sweep(at)
      const own = leaseId(r.name, 'key', r.key)
      if ((live(own, at)?.size ?? 0) >= r.limit) return { ok: false, full: 'key' }
      if (r.pool !== undefined) {
        const pool = leaseId(r.name, 'pool', r.pool.key)
        if ((live(pool, at)?.size ?? 0) >= r.pool.limit) return { ok: false, full: 'pool' }
        add(pool, r.id, at + r.leaseMs)
      }
      add(own, r.id, at + r.leaseMs)
      return { ok: true }
    },
    async renew(l: LeaseRef): Promise<void> {
      const expires = now() + l.leaseMs
      add(leaseId(l.name, 'key', l.key), l.id, expires)
      if (l.pool !== undefined) add(leaseId(l.name, 'pool', l.pool), l.id, expires)
    },
    async release(l: LeaseRef): Promise<void> {
      remove(leaseId(l.name, 'key', l.key), l.id)
      if (l.pool !== undefined) remove(leaseId(l.name, 'pool', l.pool), l.id)
    },
    async take(r: TakeRequest): Promise<TakeAnswer> {
      const at = now()
      sweep(at)
      const own = leaseId(r.name, 'rate', r.key)
      const mine = tokensOf(own, r, at)
      const pool = r.pool === undefined ? undefined : leaseId(r.name, 'rate-pool', r.pool.key)
      const theirs = r.pool === undefined ? Infinity : tokensOf(pool!, r.pool, at)
      if (mine < r.cost) return { ok: false, full: 'key', retryAfterMs: waitMs(mine, r.cost, r) }
      if (r.pool !== undefined && theirs < r.cost) {
        return { ok: false, full: 'pool', retryAfterMs: waitMs(theirs, r.cost, r.pool) }
      }
      setTokens(own, mine - r.cost, r, at)
      if (r.pool !== undefined) setTokens(pool!, theirs - r.cost, r.pool, at)
      return { ok: true, remaining: Math.floor(Math.min(mine, theirs) - r.cost) }
    },
  }
  return Object.freeze(store)
}

function leaseId(name: string, kind: string, key: string): string {
  // The name holds no newline (checked by the limit), so the three parts cannot be confused.
  return `${name}\n${kind}\n${key}`
}

/** Milliseconds until a bucket holding `tokens` holds `cost`; `Infinity` past its burst. */
export function waitMs(tokens: number, cost: number, spec: BucketSpec): number {
  if (cost > spec.burst) return Number.POSITIVE_INFINITY
  return Math.ceil(((cost - tokens) * 60_000) / spec.perMinute)
}
