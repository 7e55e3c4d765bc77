// Request rate per caller as a token bucket shared by every instance: `perMinute` tokens flow
// in per minute, at most `burst` are held, a call takes `cost`. The bucket's state lives in the
// store (time from the store's clock on Redis), so N instances together admit what one would.

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
import type { BucketSpec, LimitStore, TakeAnswer } from './store.js'

/** The options of {@link createRateLimit}, declared once. */
export const RATE_LIMIT_OPTIONS = defineOptions('createRateLimit', {
  ...COMMON_LIMIT_ROWS,
  perMinute: option<number | undefined>({
    default: undefined,
    check: integerOption(),
    ceiling: 60_000_000,
    shown: 'required',
    doc: "tokens added to a key's bucket per minute, across every instance sharing the store",
  }),
  burst: option<number | undefined>({
    default: undefined,
    check: integerOption(),
    ceiling: 60_000_000,
    shown: '`perMinute`',
    doc: 'most tokens a bucket holds: the calls a key may make at once after being idle',
  }),
  onUnavailable: onUnavailableRow(
    'closed',
    "`'closed'`",
    "Default: a rate is a fleet-wide budget (an upstream's cost, abuse) that only holds when shared, and a local bucket per instance would silently multiply it; set `{ local: { instances: N } }` to keep serving at `limit ÷ N`.",
  ),
})

/** Options of {@link createRateLimit}; `store`, `name` and `perMinute` are required. */
export type RateLimitOptions = OptionsOf<typeof RATE_LIMIT_OPTIONS.rows> & {
  readonly store: LimitStore
  readonly name: string
  readonly perMinute: number
}

/** The policy a rate limit holds: every option set (`burst` filled from `perMinute`), frozen. */
export type RateLimitPolicy = ResolvedOf<typeof RATE_LIMIT_OPTIONS.rows> & {
  readonly store: LimitStore
  readonly name: string
  readonly perMinute: number
  readonly burst: number
}

/** Tokens taken: `remaining` is what the emptier of the key's (and pool's) buckets still holds. */
export interface LimitGrant {
  readonly ok: true
  readonly remaining: number
}

/** A rate limit: built once, held by hosts, asked per call. */
export interface RateLimit {
  readonly policy: RateLimitPolicy
  /**
   * Takes `cost` tokens (default 1) from `key`'s bucket (and, with a `pool`, from the pool's,
   * whose members each get `poolMemberShare` of the figures), or answers a refusal:
   * `ERR_LIMIT_RATE` (429, `retryAfterSeconds` until the bucket holds `cost`) or
   * `ERR_LIMIT_UNAVAILABLE` (503) when the store is down and the rule is `'closed'`. A refused
   * call takes nothing. Never rejects for a store failure.
   * @throws TypeError on a key or pool that is not a string of at most 1,024 characters, or a
   *   `cost` that is not a positive integer of at most `burst`.
   */
  take(key: string, pool?: string, cost?: number): Promise<LimitGrant | LimitRefusal>
}

/**
 * Builds a token-bucket rate limit over `store`. Validates its options once.
 * @throws TypeError naming the option: a missing `store`, `name` or `perMinute`, or a bad value.
 */
export function createRateLimit(options: RateLimitOptions): RateLimit {
  const o = RATE_LIMIT_OPTIONS.resolve(options)
  for (const required of ['store', 'name', 'perMinute'] as const) {
    if (o[required] === undefined) throw new TypeError(`createRateLimit: ${required} is required`)
  }
  const policy = Object.freeze({ ...o, burst: o.burst ?? o.perMinute }) as RateLimitPolicy
  const { store, name, perMinute, burst, poolMemberShare, onUnavailable } = policy
  const guard = failureGuard(store, onUnavailable, name, policy.onOutage)
  const instances = onUnavailable === 'closed' ? 1 : onUnavailable.local.instances

  return Object.freeze({
    policy,
    async take(key: string, pool?: string, cost = 1): Promise<LimitGrant | LimitRefusal> {
      checkKey(key, 'key')
      if (pool !== undefined) checkKey(pool, 'pool')
      if (!Number.isSafeInteger(cost) || cost < 1 || cost > burst) {
        throw new TypeError(`cost must be a positive integer of at most burst (${burst})`)
      }
      const figures = (local: boolean): { own: BucketSpec; whole?: BucketSpec } => {
        const whole: BucketSpec = local
          ? { perMinute: localShare(perMinute, instances), burst: localShare(burst, instances) }
          : { perMinute, burst }
        if (pool === undefined) return { own: whole }
        const own = {
          perMinute: memberShare(whole.perMinute, poolMemberShare),
          burst: memberShare(whole.burst, poolMemberShare),
        }
        return { own, whole }
      }
      const { route, value } = await guard.decide((s, local): Promise<TakeAnswer> => {
        const f = figures(local)
        return s.take({
          name,
          key,
          cost,
          ...f.own,
          pool: pool === undefined ? undefined : { key: pool, ...f.whole! },
        })
      })
      if (route.via === 'closed')
        return limitRefusal('ERR_LIMIT_UNAVAILABLE', perMinute, 'onUnavailable')
      const answer = value as TakeAnswer
      if (answer.ok) return Object.freeze({ ok: true as const, remaining: answer.remaining })
      const f = figures(route.via === 'local')
      const short = answer.full === 'key' ? f.own : f.whole!
      const option =
        route.via === 'local'
          ? 'onUnavailable'
          : answer.full === 'key' && pool !== undefined
            ? 'poolMemberShare'
            : 'perMinute'
      // A member whose share of the burst is below `cost` can never be served: a minute, the
      // longest honest wait, rather than a figure it cannot meet.
      return limitRefusal('ERR_LIMIT_RATE', short.perMinute, option, answer.retryAfterMs / 1000)
    },
  })
}
