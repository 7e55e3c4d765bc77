// The options of SessionPool, validated once at construction (bad values fail at start-up).
import {
  createResolvedBrand,
  defineOptions,
  integerOption,
  ON_REFUSAL_OPTION,
  type OptionsOf,
  option,
  type RefusalHook,
} from '@tollgate/json-budget'
import { checkInstanceTag } from './session-pool-ids.js'

const msOrFalse = (value: unknown, name: string) => {
  if (value !== false) integerOption()(value, name)
}

/**
 * The options of {@link SessionPool}, declared once (the SessionPool table in the README is
 * `SESSION_POOL_OPTIONS.markdown()`). `maxSessionsPerKey` left unset is derived from
 * `maxSessions` by {@link resolveSessionPoolOptions}.
 */
export const SESSION_POOL_OPTIONS = defineOptions('SessionPool', {
  maxSessions: option({
    default: 1000,
    check: integerOption(),
    doc: 'sessions and reservations open at once, every key together: `ERR_SESSION_LIMIT` (503)',
  }),
  maxSessionsPerKey: option<number | undefined>({
    default: undefined,
    check: integerOption(),
    shown: 'a tenth of `maxSessions`, rounded up',
    doc: 'sessions one key (a credential, a tenant; the app decides) holds at once: `ERR_SESSION_QUOTA` (429); a pool (`reserve(key, pool)`: every anonymous caller) holds as many together, so one key at its quota leaves nine tenths to the rest',
  }),
  poolMemberShare: option({
    default: 0.25,
    check: (value, name) => {
      if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
        throw new TypeError(`${name} must be a number in (0, 1]`)
      }
    },
    doc: 'fraction (0 < share ≤ 1) of `maxSessionsPerKey` one key inside a pool holds (at least 1), so one anonymous address never takes the whole anonymous pool: `ERR_SESSION_QUOTA` (429)',
  }),
  idleMs: option<number | false>({
    default: 600_000,
    check: msOrFalse,
    shown: '600,000 (10 minutes)',
    doc: 'milliseconds a session may go without a request in flight before it is closed and its slot freed; `false` keeps sessions until they close',
  }),
  streamIdleMs: option<number | false>({
    default: 600_000,
    check: msOrFalse,
    shown: '600,000 (10 minutes)',
    doc: "milliseconds an open stream (`use(id, 'stream')`) alone keeps a session with no other request in flight alive; `false` lets a stream hold it until `maxLifetimeMs`",
  }),
  maxLifetimeMs: option<number | false>({
    default: 3_600_000,
    check: msOrFalse,
    shown: '3,600,000 (1 hour)',
    doc: 'milliseconds from a session opening to its closing, however busy it is; `false` for none',
  }),
  instanceTag: option<string | undefined>({
    default: undefined,
    check: checkInstanceTag,
    shown: 'drawn at random by each pool',
    doc: "the tag (12 lowercase hex digits, not a secret) written into every `mintId()`; `locate(id)` says `'elsewhere'` for another instance's id (answer 404 `ERR_SESSION_ELSEWHERE`: the balancer lacks affinity by `Mcp-Session-Id`)",
  }),
  onRefusal: {
    ...ON_REFUSAL_OPTION,
    doc: "called once per refused `reserve` with a frozen `RefusalEvent` (`control` `'mcp-session-pool'`: `ERR_SESSION_LIMIT` 503 or `ERR_SESSION_QUOTA` 429, the limit and the option); a throwing hook is caught",
  },
})

/** Options of {@link SessionPool} (see {@link SESSION_POOL_OPTIONS}); every field optional. */
export type SessionPoolOptions = OptionsOf<typeof SESSION_POOL_OPTIONS.rows>

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
  /** Called once per refused reservation; `undefined`: none. */
  readonly onRefusal: RefusalHook | undefined
}

/**
 * The defaults of {@link SessionPoolOptions} (from {@link SESSION_POOL_OPTIONS};
 * `maxSessionsPerKey` is derived from `maxSessions`).
 */
export const SESSION_POOL_DEFAULTS: Readonly<{
  maxSessions: number
  poolMemberShare: number
  idleMs: number
  streamIdleMs: number
  maxLifetimeMs: number
}> = Object.freeze({
  maxSessions: SESSION_POOL_OPTIONS.defaults.maxSessions,
  poolMemberShare: SESSION_POOL_OPTIONS.defaults.poolMemberShare,
  // Declared as numbers in the table; `false` is only ever a value the caller sets.
  idleMs: SESSION_POOL_OPTIONS.defaults.idleMs as number,
  streamIdleMs: SESSION_POOL_OPTIONS.defaults.streamIdleMs as number,
  maxLifetimeMs: SESSION_POOL_OPTIONS.defaults.maxLifetimeMs as number,
})

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
  const resolved = SESSION_POOL_OPTIONS.resolve(options)
  return brand.mark(
    Object.freeze({
      ...resolved,
      maxSessionsPerKey: resolved.maxSessionsPerKey ?? Math.ceil(resolved.maxSessions / 10),
    }),
  )
}
