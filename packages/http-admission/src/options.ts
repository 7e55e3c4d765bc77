import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  ADMISSION_DEFAULTS,
  booleanOption,
  checkOptions,
  createResolvedBrand,
  functionOption,
  integerOption,
  type JsonLimitsOptions,
  type OptionValidators,
  oneOfOption,
  type ResolvedJsonLimits,
  resolveJsonLimits,
} from '@tollgate/json-budget'
import {
  PREFLIGHT_DEFAULTS,
  type PreflightPolicies,
  type ResolvedPreflightOptions,
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

/**
 * Options of every adapter and of the core, validated once by
 * {@link resolveHttpAdmissionOptions}. The JSON limits (`maxNodes`, `maxDepth`) and the
 * preflight policies of `@tollgate/lexical-preflight` (`duplicateKeys`, `protoKeys`,
 * `maxStringBytes`, `maxNumberLength`, `bom`) are top-level keys, with the preflight's defaults.
 */
export interface HttpAdmissionOptions extends JsonLimitsOptions, PreflightPolicies {
  /**
   * Largest body admitted, in bytes actually received (chunks are counted; `Content-Length`
   * is never trusted, but one above this is refused before reading). With `Content-Encoding`
   * both the wire bytes and the inflated bytes are held to it. Default: 64 MiB; it may be
   * lowered per route, never raised past {@link HTTP_ADMISSION_CEILINGS}.maxBytes (64 MiB).
   */
  readonly maxBytes?: number
  /** Most JSON nodes (containers, scalars and keys) in the body. Default: 100,000. */
  readonly maxNodes?: number
  /** Most nested containers in the body. Default: 64. */
  readonly maxDepth?: number
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

/**
 * The options after {@link resolveHttpAdmissionOptions}: every field set, validated and frozen
 * (`maxBytes` is the body cap, whichever of `maxBytes` and `limit` set it; `types` whichever of
 * `types` and `type`).
 */
export interface ResolvedHttpAdmissionOptions
  extends ResolvedJsonLimits,
    Pick<
      ResolvedPreflightOptions,
      'duplicateKeys' | 'protoKeys' | 'maxStringBytes' | 'maxNumberLength' | 'bom'
    > {
  /** The preflight's limits and policies, resolved once for every request. */
  readonly preflight: ResolvedPreflightOptions
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

/**
 * The defaults {@link resolveHttpAdmissionOptions} fills in (the README's options table is
 * checked against these). `budget` defaults to {@link defaultInFlightBudget}; `maxStringBytes`
 * and `maxNumberLength` have none (no cap), and the hooks none.
 */
export const HTTP_ADMISSION_DEFAULTS = Object.freeze({
  maxBytes: ADMISSION_DEFAULTS.restBodyBytes,
  maxNodes: PREFLIGHT_DEFAULTS.maxNodes,
  maxDepth: PREFLIGHT_DEFAULTS.maxDepth,
  duplicateKeys: PREFLIGHT_DEFAULTS.duplicateKeys,
  protoKeys: PREFLIGHT_DEFAULTS.protoKeys,
  bom: PREFLIGHT_DEFAULTS.bom,
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

/** Highest values an option may be set to: `maxBytes` (and `limit`) at most 64 MiB. */
export const HTTP_ADMISSION_CEILINGS = Object.freeze({
  maxBytes: ADMISSION_DEFAULTS.restBodyBytesCeiling,
})

const TYPE_PATTERN = /^(?:[a-z0-9!#$&^_.+-]+|\*)\/(?:[a-z0-9!#$&^_.+-]+|\*|\*\+[a-z0-9!#$&^_.-]+)$/

/**
 * One validator per option; the table's keys are the known option names (`json()` takes the
 * same validators for its options). Cross-option rules (the ceiling, `limit` beside
 * `maxBytes`, `type` beside `types`) are checked by the resolver.
 * @internal
 */
export const HTTP_ADMISSION_VALIDATORS: OptionValidators<HttpAdmissionOptions> = {
  maxBytes: integerOption(),
  maxNodes: integerOption(),
  maxDepth: integerOption(true),
  duplicateKeys: oneOfOption(['allow', 'refuse']),
  protoKeys: oneOfOption(['allow', 'refuse']),
  maxStringBytes: integerOption(true),
  maxNumberLength: integerOption(),
  bom: oneOfOption(['refuse', 'strip']),
  types: (value, name) => {
    if (!Array.isArray(value) || !value.every(isMediaTypePattern)) {
      throw new TypeError(`${name} must hold media types such as application/json or */*+json`)
    }
  },
  otherTypes: oneOfOption(['refuse', 'pass']),
  passMethods: (value, name) => {
    if (
      !Array.isArray(value) ||
      !value.every((m) => typeof m === 'string' && /^[A-Za-z]+$/.test(m))
    ) {
      throw new TypeError(`${name} must hold HTTP method names`)
    }
  },
  inflate: booleanOption,
  maxInflationRatio: integerOption(),
  timeoutMs: integerOption(),
  idleTimeoutMs: integerOption(),
  budget: (value, name) => {
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
  retryAfterSeconds: integerOption(true),
  keepRaw: booleanOption,
  onRefusal: oneOfOption(['respond', 'next']),
  renderRefusal: functionOption,
  strict: booleanOption,
  reviver: functionOption,
  // body-parser's own wording, which code that checks its configuration errors matches on.
  verify: (value) => {
    if (typeof value !== 'function') throw new TypeError('option verify must be function')
  },
  type: (value, name) => {
    if (typeof value === 'function') return
    const list: unknown = typeof value === 'string' ? [value] : value
    if (!Array.isArray(list))
      throw new TypeError(`${name} must be a string, an array or a function`)
    for (const t of list) typeShorthand(t)
  },
  limit: (value, name) => {
    parseByteLimit(name, value)
  },
  // Fair admission.
  minBytesPerSecond: limitOrFalse,
  minRateGraceMs: integerOption(true),
  principal: functionOption,
  maxBodiesPerPrincipal: limitOrFalse,
  principalShare: (value, name) => {
    if (value === false) return
    if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
      throw new TypeError(`${name} must be a number in (0, 1] or false`)
    }
  },
}

const brand = createResolvedBrand<ResolvedHttpAdmissionOptions>()

/**
 * Validates every option once, fills the defaults and freezes the result, so bad configuration
 * fails at start-up rather than on the first request; the adapters and the core take the
 * result and pay nothing per request. An object this function returned is returned as it is.
 * @throws TypeError naming the option: an unknown option, a non-positive or non-integer limit,
 * `maxBytes` (or `limit`) above 64 MiB, `limit` with `maxBytes` or `type` with `types`, a
 * malformed media type, a bad policy, or a `budget` that is not an {@link InFlightBudget}.
 */
export function resolveHttpAdmissionOptions(
  options: HttpAdmissionOptions | ResolvedHttpAdmissionOptions = {},
): ResolvedHttpAdmissionOptions {
  if (brand.has(options)) return options
  checkOptions(options, HTTP_ADMISSION_VALIDATORS, 'http-admission')
  const o: HttpAdmissionOptions = options ?? {}
  if (o.limit !== undefined && o.maxBytes !== undefined) {
    throw new TypeError('limit and maxBytes are the same option; give one')
  }
  if (o.type !== undefined && o.types !== undefined) {
    throw new TypeError('type and types are the same option; give one')
  }
  const d = HTTP_ADMISSION_DEFAULTS
  const maxBytes =
    o.maxBytes ?? (o.limit === undefined ? d.maxBytes : parseByteLimit('limit', o.limit))
  if (maxBytes > HTTP_ADMISSION_CEILINGS.maxBytes) {
    throw new TypeError(
      `maxBytes may not exceed ${HTTP_ADMISSION_CEILINGS.maxBytes}, got ${maxBytes}`,
    )
  }
  const limits = resolveJsonLimits({ maxNodes: o.maxNodes, maxDepth: o.maxDepth, maxBytes })
  const preflight = resolvePreflightOptions({
    ...limits,
    duplicateKeys: o.duplicateKeys,
    protoKeys: o.protoKeys,
    maxStringBytes: o.maxStringBytes,
    maxNumberLength: o.maxNumberLength,
    bom: o.bom,
  })
  const type = o.type
  let typeFilter: ((req: IncomingMessage) => unknown) | undefined
  let types: readonly string[] = o.types ?? d.types
  if (typeof type === 'function') {
    typeFilter = type
    types = ['*/*']
  } else if (type !== undefined) {
    types = (typeof type === 'string' ? [type] : type).map(typeShorthand)
  }
  return brand.mark(
    Object.freeze({
      ...limits,
      duplicateKeys: preflight.duplicateKeys,
      protoKeys: preflight.protoKeys,
      maxStringBytes: preflight.maxStringBytes,
      maxNumberLength: preflight.maxNumberLength,
      bom: preflight.bom,
      preflight,
      types: Object.freeze(types.map((t) => t.toLowerCase())),
      otherTypes: o.otherTypes ?? d.otherTypes,
      passMethods: Object.freeze((o.passMethods ?? d.passMethods).map((m) => m.toUpperCase())),
      inflate: o.inflate ?? d.inflate,
      maxInflationRatio: o.maxInflationRatio ?? d.maxInflationRatio,
      timeoutMs: o.timeoutMs ?? d.timeoutMs,
      idleTimeoutMs: o.idleTimeoutMs ?? d.idleTimeoutMs,
      budget: o.budget ?? defaultInFlightBudget,
      retryAfterSeconds: o.retryAfterSeconds ?? d.retryAfterSeconds,
      keepRaw: o.keepRaw ?? d.keepRaw,
      onRefusal: o.onRefusal ?? d.onRefusal,
      renderRefusal: o.renderRefusal,
      strict: o.strict ?? d.strict,
      reviver: o.reviver,
      verify: o.verify,
      typeFilter,
      // Fair admission.
      minBytesPerSecond: o.minBytesPerSecond ?? d.minBytesPerSecond,
      minRateGraceMs: o.minRateGraceMs ?? d.minRateGraceMs,
      principal: o.principal,
      maxBodiesPerPrincipal: o.maxBodiesPerPrincipal ?? d.maxBodiesPerPrincipal,
      principalShare: o.principalShare ?? d.principalShare,
    }),
  )
}

function isMediaTypePattern(value: unknown): boolean {
  return typeof value === 'string' && TYPE_PATTERN.test(value.toLowerCase())
}

// type-is's shorthands that name JSON; other extension names would need a MIME database.
function typeShorthand(type: unknown): string {
  if (type === 'json') return 'application/json'
  if (typeof type === 'string' && /^\+[a-z0-9!#$&^_.-]+$/i.test(type)) return `*/*${type}`
  if (isMediaTypePattern(type)) return type as string
  throw new TypeError("type must hold media types, 'json' or '+suffix' (no extension lookup)")
}

// Fair admission: a positive integer limit, or false to turn the control off.
function limitOrFalse(value: unknown, name: string): void {
  if (value !== false) integerOption()(value, name)
}
