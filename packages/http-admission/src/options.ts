import type { IncomingMessage, ServerResponse } from 'node:http'
import { ADMISSION_DEFAULTS, assertLimit, JSON_LIMITS_DEFAULTS } from '@tollgate/json-budget'
import {
  type PreflightOptions,
  type PreflightPolicies,
  resolvePreflightOptions,
} from '@tollgate/lexical-preflight'
import type { JsonReviver } from './body-scanner.js'
import { defaultInFlightBudget, type InFlightBudget } from './budget.js'
import { parseByteLimit } from './limit.js'
import type { PrincipalOf } from './principal-shares.js'
import type { RenderRefusal } from './problem.js'

/** A `Content-Encoding` this package can inflate. */
export type BodyEncoding = 'gzip' | 'deflate' | 'br'

/** What the middleware does with a refusal. */
export type OnRefusal = 'respond' | 'next'

/** Options of every adapter and of the core. Each is validated once, by {@link resolveOptions}. */
export interface HttpAdmissionOptions {
  /**
   * Largest body admitted, in bytes actually received (chunks are counted; `Content-Length`
   * is never trusted, but one above this is refused before reading). With `Content-Encoding`
   * both the wire bytes and the inflated bytes are held to it. Default: 64 MiB; it may be
   * lowered per route, never raised past {@link HTTP_ADMISSION_CEILINGS}.maxBytes (64 MiB).
   */
  readonly maxBytes?: number
  /** Most JSON nodes (containers, scalars and keys). Default: 100,000. */
  readonly maxNodes?: number
  /** Most nested containers. Default: 64. */
  readonly maxDepth?: number
  /**
   * Preflight policies of `@tollgate/lexical-preflight` (duplicate keys, `__proto__` keys,
   * string and number length, BOM). Default: its defaults (all allowed but a BOM).
   */
  readonly policies?: PreflightPolicies
  /**
   * Media types admitted: `type/subtype`, `type/*` or `*\/*+suffix`. The charset, when sent,
   * must be UTF-8. Default: `['application/json', '*\/*+json']`.
   */
  readonly types?: readonly string[]
  /**
   * A body whose media type is not in `types`: `'refuse'` answers 415 `ERR_BODY_MEDIA_TYPE`
   * (a JSON-only route), `'pass'` leaves it unread for a later parser. Default: `'refuse'`.
   */
  readonly otherTypes?: 'refuse' | 'pass'
  /**
   * Methods passed through untouched (body not read, `req.body` not set). Default:
   * `['GET', 'HEAD', 'DELETE', 'OPTIONS']`.
   */
  readonly passMethods?: readonly string[]
  /**
   * Inflate `Content-Encoding` gzip, deflate and br (the byte cap counts inflated bytes); when
   * false any encoding but `identity` is refused with 415 `ERR_BODY_ENCODING`. Default: true.
   */
  readonly inflate?: boolean
  /**
   * Most inflated bytes per wire byte; past it the body is refused with 413
   * `ERR_BODY_INFLATION_RATIO` even under `maxBytes`. Default: 100.
   */
  readonly maxInflationRatio?: number
  /** Whole-body read deadline in milliseconds, from the start of admission → 408. Default: 30,000. */
  readonly timeoutMs?: number
  /** Longest silence between two chunks in milliseconds → 408. Default: 10,000. */
  readonly idleTimeoutMs?: number
  /** The in-flight byte budget shared by concurrent bodies. Default: {@link defaultInFlightBudget}. */
  readonly budget?: InFlightBudget
  /** Seconds sent in `Retry-After` with a 503 `ERR_ADMISSION_BUSY`. Default: 1. */
  readonly retryAfterSeconds?: number
  /** Also hand on the admitted bytes (`raw` in the result, `req.rawBody` in the middleware). Default: false. */
  readonly keepRaw?: boolean
  /**
   * Middleware only: `'respond'` answers a refusal itself and closes the connection;
   * `'next'` calls `next(err)` with `status`, `statusCode`, `type` and `expose` set (as
   * body-parser's errors have) so the app's error handler answers. Default: `'respond'`.
   */
  readonly onRefusal?: OnRefusal
  /** Renders a refusal's body; the status and connection handling stay the same. Default: problem+json. */
  readonly renderRefusal?: RenderRefusal
  // body-parser's option names, so `express.json({ ... })` options carry over.
  /**
   * Admit only an object or an array at the top level, as `express.json()` does: any other
   * value is refused at its first significant byte with 422 `ERR_JSON_NOT_OBJECT_OR_ARRAY`.
   * Default: true.
   */
  readonly strict?: boolean
  /**
   * Passed to `JSON.parse` as its second argument. It runs only on a body the preflight has
   * admitted, so it walks at most `maxDepth` levels and `maxNodes` nodes; what it throws
   * propagates (the middleware hands it to `next(err)`). Default: none.
   */
  readonly reviver?: JsonReviver
  /**
   * Middleware only: called as `verify(req, res, buf, encoding)` with the admitted bytes (after
   * inflation) and `'utf-8'`, before `req.body` is set; throwing refuses the body with 403
   * `ERR_BODY_VERIFY_FAILED`, or the thrown error's `status` when it is 400–599. Default: none.
   */
  readonly verify?: VerifyBody
  /**
   * body-parser's name for the admitted media types: a string or an array of them (as
   * `types`, plus `'json'` for `application/json` and `'+json'` for `*\/*+json`), or, for the
   * middleware, a function `(req) => boolean` deciding per request (it may admit a body sent
   * without `Content-Type`; other adapters then admit any type). Not with `types`.
   * Default: `types`'s default.
   */
  readonly type?: string | readonly string[] | ((req: IncomingMessage) => unknown)
  /**
   * body-parser's name for `maxBytes`: bytes, or a size string such as `'100kb'` or `'1mb'`
   * (powers of 1024). Not with `maxBytes`. Default: `maxBytes`'s default.
   */
  readonly limit?: number | string
  // Fair admission: minimum data rate and per-principal shares.
  /**
   * Minimum average data rate of a body, in wire bytes per second since admission began,
   * enforced once `minRateGraceMs` have passed: a body that has averaged less is refused with
   * 408 `ERR_BODY_TIMEOUT` (`option: 'minBytesPerSecond'`) and the connection closed. `false`
   * turns it off. Default: 240 (Kestrel's `MinRequestBodyDataRate`).
   */
  readonly minBytesPerSecond?: number | false
  /** Milliseconds from the start of admission before `minBytesPerSecond` applies. Default: 5,000. */
  readonly minRateGraceMs?: number
  /**
   * The key each request's body is counted under for per-principal shares (a credential,
   * tenant or client address; the app decides). Unset, or returning `undefined`, means no
   * share applies to that request. Default: unset.
   */
  readonly principal?: PrincipalOf
  /**
   * With `principal`: most bodies one key may have in flight at once → 503
   * `ERR_ADMISSION_PRINCIPAL_BUSY` with `Retry-After`. `false` turns it off. Default: 8.
   */
  readonly maxBodiesPerPrincipal?: number | false
  /**
   * With `principal`: largest fraction of the in-flight budget's bytes one key may hold
   * (0 < share ≤ 1) → 503 `ERR_ADMISSION_PRINCIPAL_BUSY` with `Retry-After`. `false` turns it
   * off. Default: 0.25.
   */
  readonly principalShare?: number | false
}

/** The `verify` hook: throw to refuse the body (see {@link HttpAdmissionOptions.verify}). */
export type VerifyBody = (
  req: IncomingMessage,
  res: ServerResponse,
  buf: Buffer,
  encoding: string,
) => void

/** The options after {@link resolveOptions}: every field set, validated and frozen. */
export interface ResolvedHttpAdmissionOptions {
  readonly maxBytes: number
  readonly maxNodes: number
  readonly maxDepth: number
  readonly policies: PreflightPolicies
  /** The preflight's limits and policies, resolved once for every request. */
  readonly preflight: PreflightOptions
  readonly types: readonly string[]
  readonly otherTypes: 'refuse' | 'pass'
  readonly passMethods: readonly string[]
  readonly inflate: boolean
  readonly maxInflationRatio: number
  readonly timeoutMs: number
  readonly idleTimeoutMs: number
  readonly budget: InFlightBudget
  readonly retryAfterSeconds: number
  readonly keepRaw: boolean
  readonly onRefusal: OnRefusal
  readonly renderRefusal: RenderRefusal | undefined
  readonly strict: boolean
  readonly reviver: JsonReviver | undefined
  readonly verify: VerifyBody | undefined
  /** The `type` option when it is a function (then `types` is `['*\/*']`). */
  readonly typeFilter: ((req: IncomingMessage) => unknown) | undefined
  // Fair admission.
  readonly minBytesPerSecond: number | false
  readonly minRateGraceMs: number
  readonly principal: PrincipalOf | undefined
  readonly maxBodiesPerPrincipal: number | false
  readonly principalShare: number | false
}

/** The defaults {@link resolveOptions} fills in (the README's options table is checked against these). */
export const HTTP_ADMISSION_DEFAULTS = Object.freeze({
  maxBytes: ADMISSION_DEFAULTS.restBodyBytes,
  maxNodes: JSON_LIMITS_DEFAULTS.maxNodes,
  maxDepth: JSON_LIMITS_DEFAULTS.maxDepth,
  types: Object.freeze(['application/json', '*/*+json']) as readonly string[],
  otherTypes: 'refuse' as const,
  passMethods: Object.freeze(['GET', 'HEAD', 'DELETE', 'OPTIONS']) as readonly string[],
  inflate: true,
  maxInflationRatio: 100,
  timeoutMs: 30_000,
  idleTimeoutMs: 10_000,
  retryAfterSeconds: 1,
  keepRaw: false,
  onRefusal: 'respond' as const,
  strict: true,
  // Fair admission.
  minBytesPerSecond: 240 as number | false,
  minRateGraceMs: 5_000,
  maxBodiesPerPrincipal: 8 as number | false,
  principalShare: 0.25 as number | false,
})

/** Highest values an option may be set to. */
export const HTTP_ADMISSION_CEILINGS = Object.freeze({
  maxBytes: ADMISSION_DEFAULTS.restBodyBytesCeiling,
})

const TYPE_PATTERN = /^(?:[a-z0-9!#$&^_.+-]+|\*)\/(?:[a-z0-9!#$&^_.+-]+|\*|\*\+[a-z0-9!#$&^_.-]+)$/

/**
 * Fills defaults, validates every option and freezes the result, so bad configuration fails
 * at start-up rather than on the first request.
 * @throws TypeError on an unknown option, a non-positive or non-integer limit, `maxBytes`
 * above its ceiling, a malformed media type, or a `budget` that is not an {@link InFlightBudget}.
 */
export function resolveOptions(options: HttpAdmissionOptions = {}): ResolvedHttpAdmissionOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('options must be an object')
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw new TypeError(`unknown option ${JSON.stringify(key.slice(0, 64))}`)
  }
  const d = HTTP_ADMISSION_DEFAULTS
  const dropIn = resolveDropInOptions(options)
  const maxBytes = assertLimit('maxBytes', options.maxBytes ?? dropIn.limit ?? d.maxBytes)
  if (maxBytes > HTTP_ADMISSION_CEILINGS.maxBytes) {
    throw new TypeError(
      `maxBytes may not exceed ${HTTP_ADMISSION_CEILINGS.maxBytes}, got ${maxBytes}`,
    )
  }
  const types = (options.types ?? dropIn.types ?? d.types).map((t) => {
    if (typeof t !== 'string' || !TYPE_PATTERN.test(t.toLowerCase())) {
      throw new TypeError('types must hold media types such as application/json or */*+json')
    }
    return t.toLowerCase()
  })
  const passMethods = (options.passMethods ?? d.passMethods).map((m) => {
    if (typeof m !== 'string' || !/^[A-Za-z]+$/.test(m)) {
      throw new TypeError('passMethods must hold HTTP method names')
    }
    return m.toUpperCase()
  })
  const budget = options.budget ?? defaultInFlightBudget
  if (
    typeof budget !== 'object' ||
    budget === null ||
    typeof budget.tryAcquire !== 'function' ||
    typeof budget.release !== 'function'
  ) {
    throw new TypeError('budget must be an InFlightBudget (see createInFlightBudget)')
  }
  const policies = options.policies ?? {}
  if (typeof policies !== 'object' || policies === null) {
    throw new TypeError('policies must be an object')
  }
  const maxNodes = assertLimit('maxNodes', options.maxNodes ?? d.maxNodes)
  const maxDepth = assertLimit('maxDepth', options.maxDepth ?? d.maxDepth, true)
  const resolved: ResolvedHttpAdmissionOptions = Object.freeze({
    maxBytes,
    maxNodes,
    maxDepth,
    policies: Object.freeze({ ...policies }),
    preflight: resolvePreflightOptions({ ...policies, maxBytes, maxNodes, maxDepth }),
    types: Object.freeze(types),
    otherTypes: oneOf('otherTypes', options.otherTypes ?? d.otherTypes, ['refuse', 'pass']),
    passMethods: Object.freeze(passMethods),
    inflate: bool('inflate', options.inflate ?? d.inflate),
    maxInflationRatio: assertLimit(
      'maxInflationRatio',
      options.maxInflationRatio ?? d.maxInflationRatio,
    ),
    timeoutMs: assertLimit('timeoutMs', options.timeoutMs ?? d.timeoutMs),
    idleTimeoutMs: assertLimit('idleTimeoutMs', options.idleTimeoutMs ?? d.idleTimeoutMs),
    budget,
    retryAfterSeconds: assertLimit(
      'retryAfterSeconds',
      options.retryAfterSeconds ?? d.retryAfterSeconds,
      true,
    ),
    keepRaw: bool('keepRaw', options.keepRaw ?? d.keepRaw),
    onRefusal: oneOf('onRefusal', options.onRefusal ?? d.onRefusal, ['respond', 'next']),
    renderRefusal: fnOrUndefined('renderRefusal', options.renderRefusal),
    strict: dropIn.strict,
    reviver: dropIn.reviver,
    verify: dropIn.verify,
    typeFilter: dropIn.typeFilter,
    // Fair admission.
    minBytesPerSecond: limitOrFalse(
      'minBytesPerSecond',
      options.minBytesPerSecond ?? d.minBytesPerSecond,
    ),
    minRateGraceMs: assertLimit('minRateGraceMs', options.minRateGraceMs ?? d.minRateGraceMs, true),
    principal: fnOrUndefined('principal', options.principal),
    maxBodiesPerPrincipal: limitOrFalse(
      'maxBodiesPerPrincipal',
      options.maxBodiesPerPrincipal ?? d.maxBodiesPerPrincipal,
    ),
    principalShare: shareOrFalse('principalShare', options.principalShare ?? d.principalShare),
  })
  RESOLVED.add(resolved)
  return resolved
}

const RESOLVED = new WeakSet<object>()

/** Returns `options` as is when it came from {@link resolveOptions}, otherwise resolves it. */
export function ensureResolved(
  options: HttpAdmissionOptions | ResolvedHttpAdmissionOptions | undefined,
): ResolvedHttpAdmissionOptions {
  if (options !== undefined && RESOLVED.has(options)) return options as ResolvedHttpAdmissionOptions
  return resolveOptions(options as HttpAdmissionOptions | undefined)
}

const KNOWN = new Set([
  'maxBytes',
  'maxNodes',
  'maxDepth',
  'policies',
  'types',
  'otherTypes',
  'passMethods',
  'inflate',
  'maxInflationRatio',
  'timeoutMs',
  'idleTimeoutMs',
  'budget',
  'retryAfterSeconds',
  'keepRaw',
  'onRefusal',
  'renderRefusal',
  'strict',
  'reviver',
  'verify',
  'type',
  'limit',
  // Fair admission.
  'minBytesPerSecond',
  'minRateGraceMs',
  'principal',
  'maxBodiesPerPrincipal',
  'principalShare',
])

function bool(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new TypeError(`${name} must be a boolean`)
  return value
}

function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) {
    throw new TypeError(`${name} must be one of ${allowed.join(', ')}`)
  }
  return value as T
}

function fnOrUndefined<T>(name: string, value: T | undefined): T | undefined {
  if (value !== undefined && typeof value !== 'function') {
    throw new TypeError(`${name} must be a function`)
  }
  return value
}

// The body-parser-named options, validated together: `limit` and `type` are other spellings of
// `maxBytes` and `types`, so giving both spellings is a configuration mistake.
function resolveDropInOptions(options: HttpAdmissionOptions): {
  limit: number | undefined
  types: readonly string[] | undefined
  typeFilter: ((req: IncomingMessage) => unknown) | undefined
  strict: boolean
  reviver: JsonReviver | undefined
  verify: VerifyBody | undefined
} {
  if (options.limit !== undefined && options.maxBytes !== undefined) {
    throw new TypeError('limit and maxBytes are the same option; give one')
  }
  if (options.type !== undefined && options.types !== undefined) {
    throw new TypeError('type and types are the same option; give one')
  }
  const limit = options.limit === undefined ? undefined : parseByteLimit('limit', options.limit)
  let types: readonly string[] | undefined
  let typeFilter: ((req: IncomingMessage) => unknown) | undefined
  const type = options.type
  if (typeof type === 'function') {
    typeFilter = type
    types = ['*/*']
  } else if (type !== undefined) {
    const list: readonly unknown[] = typeof type === 'string' ? [type] : type
    if (!Array.isArray(list)) throw new TypeError('type must be a string, an array or a function')
    types = list.map(typeShorthand)
  }
  return {
    limit,
    types,
    typeFilter,
    strict: bool('strict', options.strict ?? HTTP_ADMISSION_DEFAULTS.strict),
    reviver: fnOrUndefined('reviver', options.reviver),
    verify: verifyHook(options.verify),
  }
}

// type-is's shorthands that name JSON; other extension names would need a MIME database.
function typeShorthand(type: unknown): string {
  if (type === 'json') return 'application/json'
  if (typeof type === 'string' && /^\+[a-z0-9!#$&^_.-]+$/i.test(type)) return `*/*${type}`
  if (typeof type === 'string' && type.includes('/')) return type
  throw new TypeError("type must hold media types, 'json' or '+suffix' (no extension lookup)")
}

// body-parser's own wording, which code that checks its configuration errors matches on.
function verifyHook(value: unknown): VerifyBody | undefined {
  if (value !== undefined && typeof value !== 'function') {
    throw new TypeError('option verify must be function')
  }
  return value as VerifyBody | undefined
}

// Fair admission: a positive integer limit, or false to turn the control off.
function limitOrFalse(name: string, value: unknown): number | false {
  if (value === false) return false
  return assertLimit(name, value as number)
}

// Fair admission: a fraction of the budget in (0, 1], or false.
function shareOrFalse(name: string, value: unknown): number | false {
  if (value === false) return false
  if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
    throw new TypeError(`${name} must be a number in (0, 1] or false`)
  }
  return value
}
