import {
  booleanOption,
  defineOptions,
  functionOption,
  integerOption,
  JSON_LIMITS,
  ON_REFUSAL_OPTION,
  type OptionsOf,
  oneOfOption,
  option,
  type ResolvedOf,
} from '@tollgate/json-budget'
import { PREFLIGHT_POLICIES, type ResolvedPreflightOptions } from '@tollgate/lexical-preflight'
import type { JsonReviver } from './body-scanner.js'
import { defaultInFlightBudget, type InFlightBudget } from './budget.js'
import { parseByteLimit } from './limit.js'
import type { FleetBodies } from './principal-shares.js'

const MiB = 1024 * 1024

/** The REST body cap by default: 64 MiB of bytes actually received. */
export const REST_BODY_BYTES = 64 * MiB

/** The highest REST body cap a route may configure: 64 MiB. */
export const REST_BODY_BYTES_CEILING = 64 * MiB

const TYPE_PATTERN = /^(?:[a-z0-9!#$&^_.+-]+|\*)\/(?:[a-z0-9!#$&^_.+-]+|\*|\*\+[a-z0-9!#$&^_.-]+)$/

function isMediaTypePattern(value: unknown): boolean {
  return typeof value === 'string' && TYPE_PATTERN.test(value.toLowerCase())
}

/** type-is's shorthands that name JSON; other extension names would need a MIME database. */
export function typeShorthand(type: unknown): string {
  if (type === 'json') return 'application/json'
  if (typeof type === 'string' && /^\+[a-z0-9!#$&^_.-]+$/i.test(type)) return `*/*${type}`
  if (isMediaTypePattern(type)) return type as string
  throw new TypeError("type must hold media types, 'json' or '+suffix' (no extension lookup)")
}

// Fair admission: a positive integer limit, or false to turn the control off.
function limitOrFalse(value: unknown, name: string): void {
  if (value !== false) integerOption()(value, name)
}

/**
 * The options of a body admission control ({@link bodyAdmission}), declared once: the
 * README's options table is `BODY_ADMISSION_OPTIONS.markdown()`. The JSON limits and the
 * preflight policies of `@tollgate/lexical-preflight` are top-level options.
 */
export const BODY_ADMISSION_OPTIONS = defineOptions('bodyAdmission', {
  maxBytes: option({
    default: REST_BODY_BYTES,
    check: integerOption(),
    ceiling: REST_BODY_BYTES_CEILING,
    doc: 'largest body, in bytes actually received (a larger `Content-Length` is refused before reading; with `Content-Encoding` both wire and inflated bytes count); at most 64 MiB',
  }),
  maxNodes: option({
    ...JSON_LIMITS.rows.maxNodes,
    doc: 'most JSON nodes (containers, scalars, keys)',
  }),
  maxDepth: option({ ...JSON_LIMITS.rows.maxDepth, doc: 'most nested containers' }),
  ...PREFLIGHT_POLICIES.rows,
  // Refused by default: no drop-in contract binds a new route, and a repeated key (which
  // `JSON.parse` resolves last-wins, where another reader may take the first) or a `__proto__`
  // key (prototype pollution in code that merges bodies) is never needed by an honest client.
  duplicateKeys: option({
    ...PREFLIGHT_POLICIES.rows.duplicateKeys,
    default: 'refuse',
    doc: "an object repeating a key, compared after unescaping: `'refuse'` answers 422 `ERR_JSON_DUPLICATE_KEY`, `'allow'` lets `JSON.parse` keep the last",
  }),
  protoKeys: option({
    ...PREFLIGHT_POLICIES.rows.protoKeys,
    default: 'refuse',
    doc: "a `__proto__` key anywhere, or `prototype` in the object value of a `constructor` key: `'refuse'` answers 422 `ERR_JSON_PROTO_KEY`, `'allow'` admits it",
  }),
  types: option<readonly string[]>({
    default: Object.freeze(['application/json', '*/*+json']),
    check: (value, name) => {
      if (!Array.isArray(value) || !value.every(isMediaTypePattern)) {
        throw new TypeError(`${name} must hold media types such as application/json or */*+json`)
      }
    },
    normalize: (value) => Object.freeze(value.map((t) => t.toLowerCase())),
    doc: 'media types admitted (`type/subtype`, `type/*`, `*/*+suffix`); a charset, when sent, must be UTF-8',
  }),
  otherTypes: option<'refuse' | 'pass'>({
    default: 'refuse',
    check: oneOfOption(['refuse', 'pass']),
    doc: "another media type: `'refuse'` answers 415 `ERR_BODY_MEDIA_TYPE`, `'pass'` leaves the body unread",
  }),
  passMethods: option<readonly string[]>({
    default: Object.freeze(['GET', 'HEAD', 'DELETE', 'OPTIONS']),
    check: (value, name) => {
      if (
        !Array.isArray(value) ||
        !value.every((m) => typeof m === 'string' && /^[A-Za-z]+$/.test(m))
      ) {
        throw new TypeError(`${name} must hold HTTP method names`)
      }
    },
    normalize: (value) => Object.freeze(value.map((m) => m.toUpperCase())),
    doc: 'methods passed through unread',
  }),
  inflate: option({
    default: true,
    check: booleanOption,
    doc: 'inflate gzip, deflate and br (the cap counts inflated bytes); `false` refuses any encoding but identity (415 `ERR_BODY_ENCODING`)',
  }),
  maxInflationRatio: option({
    default: 100,
    check: integerOption(),
    doc: 'most inflated bytes per wire byte → 413 `ERR_BODY_INFLATION_RATIO`',
  }),
  timeoutMs: option({
    default: 30_000,
    check: integerOption(),
    doc: 'whole-body read deadline in ms → 408 `ERR_BODY_TIMEOUT`',
  }),
  idleTimeoutMs: option({
    default: 10_000,
    check: integerOption(),
    doc: 'longest silence between two chunks in ms → 408',
  }),
  budget: option<InFlightBudget>({
    default: defaultInFlightBudget,
    check: (value, name) => {
      const b = value as Partial<InFlightBudget> | null
      if (
        typeof b !== 'object' ||
        b === null ||
        typeof b.tryAcquire !== 'function' ||
        typeof b.release !== 'function'
      ) {
        throw new TypeError(`${name} must be an InFlightBudget (see createInFlightBudget)`)
      }
    },
    shown: '`defaultInFlightBudget` (256 MiB)',
    doc: 'the in-flight byte budget concurrent bodies share → 503 `ERR_ADMISSION_BUSY`',
  }),
  retryAfterSeconds: option({
    default: 1,
    check: integerOption(true),
    doc: '`Retry-After` seconds on a 503',
  }),
  keepRaw: option({
    default: false,
    check: booleanOption,
    doc: 'also hand on the admitted bytes (`raw`; `req.rawBody` in the middleware)',
  }),
  strict: option({
    default: true,
    check: booleanOption,
    doc: 'only an object or array at the top level, else 422 `ERR_JSON_NOT_OBJECT_OR_ARRAY`',
  }),
  onRefusal: ON_REFUSAL_OPTION,
  reviver: option<JsonReviver | undefined>({
    default: undefined,
    check: functionOption,
    doc: "`JSON.parse`'s second argument, run only on an admitted body",
  }),
  type: option<string | readonly string[] | undefined>({
    default: undefined,
    check: (value, name) => {
      const list: unknown = typeof value === 'string' ? [value] : value
      if (!Array.isArray(list)) throw new TypeError(`${name} must be a string or an array`)
      for (const t of list) typeShorthand(t)
    },
    doc: "body-parser's name for `types` (`'json'`, `'+json'` or media types); not with `types`",
  }),
  limit: option<number | string | undefined>({
    default: undefined,
    check: (value, name) => {
      parseByteLimit(name, value)
    },
    doc: "body-parser's name for `maxBytes` (bytes, or `'100kb'`, `'1mb'`); not with `maxBytes`",
  }),
  minBytesPerSecond: option<number | false>({
    default: 240,
    check: limitOrFalse,
    doc: 'minimum average wire bytes per second once `minRateGraceMs` have passed → 408; `false` is off',
  }),
  minRateGraceMs: option({
    default: 5_000,
    check: integerOption(true),
    doc: 'ms from the start of admission before `minBytesPerSecond` applies',
  }),
  maxBodiesPerPrincipal: option<number | false>({
    default: 8,
    check: limitOrFalse,
    doc: "most bodies one principal (the call's `principal`) has in flight → 503 `ERR_ADMISSION_PRINCIPAL_BUSY`; `false` is off",
  }),
  principalShare: option<number | false>({
    default: 0.25,
    check: (value, name) => {
      if (value === false) return
      if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
        throw new TypeError(`${name} must be a number in (0, 1] or false`)
      }
    },
    doc: "largest fraction of the budget's bytes one principal holds → 503; `false` is off",
  }),
  poolMemberShare: option({
    default: 0.25,
    check: (value, name) => {
      if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
        throw new TypeError(`${name} must be a number in (0, 1]`)
      }
    },
    doc: "fraction of a pool's share (the call's `pool`: every anonymous caller, say) one principal in it holds, bodies and bytes alike (at least one body) → 503",
  }),
  fleetBodies: option<FleetBodies | undefined>({
    default: undefined,
    check: (value, name) => {
      if (typeof (value as Partial<FleetBodies> | null)?.acquire !== 'function') {
        throw new TypeError(
          `${name} must have acquire(key, pool) (a createConcurrencyLimit() fits)`,
        )
      }
    },
    shown: 'none',
    doc: "a fleet-wide count of one principal's bodies (`createConcurrencyLimit()` of `@tollgate/fleet-limits` on Redis), taken before the body is read and released when it ends → 503 `ERR_ADMISSION_PRINCIPAL_BUSY`, or `ERR_ADMISSION_BUSY` while its store is down under `'closed'`; byte shares stay per instance",
  }),
})

/** Options of {@link bodyAdmission} (see {@link BODY_ADMISSION_OPTIONS}); every field optional. */
export type BodyAdmissionOptions = OptionsOf<typeof BODY_ADMISSION_OPTIONS.rows>

/**
 * What a body admission control holds once built: every option set, validated and frozen;
 * `maxBytes` is the cap whichever of `maxBytes` and `limit` set it, `types` whichever of
 * `types` and `type`, and `preflight` the scanner's options resolved once.
 */
export interface BodyPolicy extends ResolvedOf<typeof BODY_ADMISSION_OPTIONS.rows> {
  /** The preflight's limits and policies, resolved once for every body. */
  readonly preflight: ResolvedPreflightOptions
}

/** Every option of {@link bodyAdmission} at its default (a REST route: 64 MiB, JSON types). */
export const BODY_ADMISSION_DEFAULTS = BODY_ADMISSION_OPTIONS.defaults
