// Concurrent requests (or bodies) per caller, held across every instance that shares the store.
// A lease is an entry that expires `leaseMs` after its last renewal; its holder renews it every
// `leaseMs / 3` on an unref'd timer until it is released, so the leases of an instance that
// crashed (or hung, or lost its network) free themselves within `leaseMs` and nobody has to
// clean up after it.

import { randomBytes } from 'node:crypto'
import {
  defineOptions,
  integerOption,
  type OptionsOf,
  option,
  type ResolvedOf,
} from '@tollgate/json-budget'
import { type LimitRefusal, limitRefusal } from './codes.js'
import { failureGuard, localShare } from './failure-rule.js'
import { COMMON_LIMIT_ROWS, checkKey, memberShare, onUnavailableRow } from './limit-options.js'
import type { LeaseAnswer, LeaseRef, LimitStore } from './store.js'

/** The options of {@link createConcurrencyLimit}, declared once. */
export const CONCURRENCY_LIMIT_OPTIONS = defineOptions('createConcurrencyLimit', {
  ...COMMON_LIMIT_ROWS,
  limit: option<number | undefined>({
    default: undefined,
    check: integerOption(),
    shown: 'required',
    doc: 'most leases one key holds at once, across every instance sharing the store',
  }),
  leaseMs: option({
    default: 30_000,
    check: (value, name) => {
      integerOption()(value, name)
      if ((value as number) < 30) throw new TypeError(`${name} must be at least 30`)
    },
    ceiling: 86_400_000,
    doc: 'a lease expires this many ms after its last renewal (renewed every `leaseMs / 3` while held), so a crashed holder frees it within `leaseMs`',
  }),
  onUnavailable: onUnavailableRow(
    Object.freeze({ local: Object.freeze({ instances: 1 }) }),
    '`{ local: { instances: 1 } }`',
    'Default: each instance keeps its own count, as before the store was shared: a concurrency limit also guards the process itself, and refusing every caller for an outage would turn a Redis failure into a service failure; set `instances` to the fleet size to hold the aggregate.',
  ),
})

/** Options of {@link createConcurrencyLimit}; `store`, `name` and `limit` are required. */
export type ConcurrencyLimitOptions = OptionsOf<typeof CONCURRENCY_LIMIT_OPTIONS.rows> & {
  readonly store: LimitStore
  readonly name: string
  readonly limit: number
}

/** The policy a concurrency limit holds: every option set, frozen. */
export type ConcurrencyLimitPolicy = ResolvedOf<typeof CONCURRENCY_LIMIT_OPTIONS.rows> & {
  readonly store: LimitStore
  readonly name: string
  readonly limit: number
}

/** One held lease: counts against its key (and pool) until {@link LimitLease.release}. */
export interface LimitLease {
  readonly ok: true
  /** Gives the lease back and stops renewing it. Idempotent; never rejects. */
  release(): Promise<void>
}

/** A concurrency limit: built once, held by hosts, asked per call. */
export interface ConcurrencyLimit {
  readonly policy: ConcurrencyLimitPolicy
  /**
   * Takes a lease for `key` (at most 1,024 characters), or answers a refusal:
   * `ERR_LIMIT_CONCURRENT` (429) when `key` holds `limit` leases (with a `pool`, when the pool
   * holds `limit` or `key` holds its `poolMemberShare`), `ERR_LIMIT_UNAVAILABLE` (503) when the
   * store is down and the rule is `'closed'`. Never rejects for a store failure.
   * @throws TypeError when `key` or `pool` is not a string of at most 1,024 characters.
   */
  acquire(key: string, pool?: string): Promise<LimitLease | LimitRefusal>
}

/**
 * Builds a concurrency limit over `store`. Validates its options once.
 * @throws TypeError naming the option: a missing `store`, `name` or `limit`, or a bad value.
 */
export function createConcurrencyLimit(options: ConcurrencyLimitOptions): ConcurrencyLimit {
  const o = CONCURRENCY_LIMIT_OPTIONS.resolve(options)
  for (const required of ['store', 'name', 'limit'] as const) {
    if (o[required] === undefined)
      throw new TypeError(`createConcurrencyLimit: ${required} is required`)
  }
  const policy = o as ConcurrencyLimitPolicy
  const { store, name, limit, leaseMs, poolMemberShare, onUnavailable } = policy
  const guard = failureGuard(store, onUnavailable, name, policy.onOutage)
  const instances = onUnavailable === 'closed' ? 1 : onUnavailable.local.instances
  const renewEvery = Math.max(10, Math.floor(leaseMs / 3))

  const hold = (holder: LimitStore, ref: LeaseRef): LimitLease => {
    const timer = setInterval(() => {
      holder.renew(ref).catch(() => {})
    }, renewEvery)
    timer.unref()
    let released: Promise<void> | undefined
    return Object.freeze({
      ok: true as const,
      release() {
        if (released === undefined) {
          clearInterval(timer)
          released = holder.release(ref).catch(() => {})
        }
        return released
      },
    })
  }

  return Object.freeze({
    policy,
    async acquire(key: string, pool?: string): Promise<LimitLease | LimitRefusal> {
      checkKey(key, 'key')
      if (pool !== undefined) checkKey(pool, 'pool')
      const id = randomBytes(16).toString('base64url')
      const figures = (local: boolean) => {
        const whole = local ? localShare(limit, instances) : limit
        return pool === undefined
          ? { own: whole }
          : { own: memberShare(whole, poolMemberShare), whole }
      }
      const { route, value } = await guard.decide((s, local): Promise<LeaseAnswer> => {
        const f = figures(local)
        return s.acquire({
          name,
          key,
          id,
          leaseMs,
          limit: f.own,
          pool: pool === undefined ? undefined : { key: pool, limit: f.whole! },
        })
      })
      if (route.via === 'closed')
        return limitRefusal('ERR_LIMIT_UNAVAILABLE', limit, 'onUnavailable')
      const answer = value as LeaseAnswer
      if (answer.ok) return hold(route.store, { name, key, id, leaseMs, pool })
      const f = figures(route.via === 'local')
      const option =
        route.via === 'local'
          ? 'onUnavailable'
          : answer.full === 'key' && pool !== undefined
            ? 'poolMemberShare'
            : 'limit'
      return limitRefusal('ERR_LIMIT_CONCURRENT', answer.full === 'key' ? f.own : f.whole!, option)
    },
  })
}
