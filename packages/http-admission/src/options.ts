import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  ADMISSION_DEFAULTS,
  type JsonLimitsOptions,
  type ResolvedJsonLimits,
} from '@tollgate/json-budget'
import {
  PREFLIGHT_DEFAULTS,
  type PreflightPolicies,
  type ResolvedPreflightOptions,
} from '@tollgate/lexical-preflight'
import type { JsonReviver } from './body-scanner.js'
import type { InFlightBudget } from './budget.js'
import type { PrincipalOf } from './principal-shares.js'
import type { RenderRefusal } from './problem.js'

/** A `Content-Encoding` this package can inflate. */
export type BodyEncoding = 'gzip' | 'deflate' | 'br'

/** What the middleware does with a refusal. */
export type OnRefusal = 'respond' | 'next'

/**
 * Options of every adapter and of the core, validated once by `resolveHttpAdmissionOptions`
 * (`resolve-options.ts`). The JSON limits (`maxNodes`, `maxDepth`) and the preflight policies
 * of `@tollgate/lexical-preflight` (`duplicateKeys`, `protoKeys`, `maxStringBytes`,
 * `maxNumberLength`, `bom`) are top-level keys, with the preflight's defaults.
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
  /** The in-flight byte budget shared by concurrent bodies. Default: `defaultInFlightBudget`. */
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
 * The options after `resolveHttpAdmissionOptions` (`resolve-options.ts`): every field set,
 * validated and frozen (`maxBytes` is the body cap, whichever of `maxBytes` and `limit` set it;
 * `types` whichever of `types` and `type`).
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
 * The defaults `resolveHttpAdmissionOptions` (`resolve-options.ts`) fills in (the README's
 * options table is checked against these). `budget` defaults to `defaultInFlightBudget`;
 * `maxStringBytes` and `maxNumberLength` have none (no cap), and the hooks none.
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
