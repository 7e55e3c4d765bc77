// The options of SessionPool, validated once at construction (bad values fail at start-up).
import {
  checkOptions,
  createResolvedBrand,
  integerOption,
  type OptionValidators,
} from '@tollgate/json-budget'
import { checkInstanceTag } from './session-pool-ids.js'

/** Options of {@link SessionPool}. Every field is optional. */
export interface SessionPoolOptions {
  /** Most sessions open (or reserved) at once, every key together. Default: 1,000. */
  readonly maxSessions?: number
  /**
   * Most sessions one key (a credential, a tenant; the app decides) holds at once, and one pool
   * (every anonymous caller) together. Default: a tenth of `maxSessions`, rounded up, so one key
   * at its quota leaves nine tenths to the rest.
   */
  readonly maxSessionsPerKey?: number
  /**
   * Fraction (0 < share ≤ 1) of `maxSessionsPerKey` one key inside a pool holds (at least one
   * session), so one anonymous address never takes the whole anonymous pool. Default: 0.25.
   */
  readonly poolMemberShare?: number
  /**
   * Milliseconds a session may go without a request in flight before it is closed and its slot
   * freed. `false` keeps sessions until they close. Default: 600,000 (10 minutes).
   */
  readonly idleMs?: number | false
  /**
   * Milliseconds an open stream (a GET's event stream) keeps a session with no other request
   * in flight alive: a stream alone no longer holds a session (and its slot) for ever. `false`
   * lets a stream hold it until `maxLifetimeMs`. Default: 600,000 (10 minutes).
   */
  readonly streamIdleMs?: number | false
  /**
   * Milliseconds from a session's opening to its closing, however busy it is: sessions end.
   * `false` for none. Default: 3,600,000 (1 hour).
   */
  readonly maxLifetimeMs?: number | false
  /**
   * The tag written into every session id the pool mints (12 lowercase hex digits), so another
   * instance can tell an id is not its own. Not a secret. Default: drawn at random by each pool.
   */
  readonly instanceTag?: string
}

/** {@link SessionPoolOptions} after {@link resolveSessionPoolOptions}: every field set, frozen. */
export interface ResolvedSessionPoolOptions {
  readonly maxSessions: number
  readonly maxSessionsPerKey: number
  readonly poolMemberShare: number
  readonly idleMs: number | false
  readonly streamIdleMs: number | false
  readonly maxLifetimeMs: number | false
  /** `undefined`: each pool built from these options draws its own. */
  readonly instanceTag: string | undefined
}

/** The defaults of {@link SessionPoolOptions} (`maxSessionsPerKey` is derived from `maxSessions`). */
export const SESSION_POOL_DEFAULTS: Readonly<{
  maxSessions: number
  poolMemberShare: number
  idleMs: number
  streamIdleMs: number
  maxLifetimeMs: number
}> = Object.freeze({
  maxSessions: 1000,
  poolMemberShare: 0.25,
  idleMs: 600_000,
  streamIdleMs: 600_000,
  maxLifetimeMs: 3_600_000,
})

const msOrFalse = (value: unknown, name: string) => {
  if (value !== false) integerOption()(value, name)
}

const VALIDATORS: OptionValidators<SessionPoolOptions> = {
  maxSessions: integerOption(),
  maxSessionsPerKey: integerOption(),
  poolMemberShare: (value, name) => {
    if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
      throw new TypeError(`${name} must be a number in (0, 1]`)
    }
  },
  idleMs: msOrFalse,
  streamIdleMs: msOrFalse,
  maxLifetimeMs: msOrFalse,
  instanceTag: checkInstanceTag,
}

const brand = createResolvedBrand<ResolvedSessionPoolOptions>()

/**
 * Validates {@link SessionPoolOptions} once, fills {@link SESSION_POOL_DEFAULTS} (and
 * `maxSessionsPerKey` from `maxSessions`) and freezes the result; an object this function
 * returned is returned as it is.
 * @throws TypeError on an unknown option, a limit that is not a positive safe integer, or a
 *   `poolMemberShare` outside (0, 1], or an `instanceTag` that is not 12 lowercase hex digits.
 */
export function resolveSessionPoolOptions(
  options: SessionPoolOptions | ResolvedSessionPoolOptions = {},
): ResolvedSessionPoolOptions {
  if (brand.has(options)) return options
  checkOptions(options, VALIDATORS, 'SessionPool')
  const input: SessionPoolOptions = options ?? {}
  const d = SESSION_POOL_DEFAULTS
  const maxSessions = input.maxSessions ?? d.maxSessions
  return brand.mark(
    Object.freeze({
      maxSessions,
      maxSessionsPerKey: input.maxSessionsPerKey ?? Math.ceil(maxSessions / 10),
      poolMemberShare: input.poolMemberShare ?? d.poolMemberShare,
      idleMs: input.idleMs ?? d.idleMs,
      streamIdleMs: input.streamIdleMs ?? d.streamIdleMs,
      maxLifetimeMs: input.maxLifetimeMs ?? d.maxLifetimeMs,
      instanceTag: input.instanceTag,
    }),
  )
}
