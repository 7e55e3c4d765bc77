import {
  booleanOption,
  checkOptions,
  createResolvedBrand,
  type OptionValidators,
} from '@tollgate/json-budget'
import { type AdmissionMiddleware, createAdmissionMiddleware } from './middleware.js'
import type { HttpAdmissionOptions, ResolvedHttpAdmissionOptions } from './options.js'
import { HTTP_ADMISSION_VALIDATORS, resolveHttpAdmissionOptions } from './resolve-options.js'

/**
 * Options of {@link json}: body-parser's (`inflate`, `limit`, `reviver`, `strict`, `type`,
 * `verify`, `defaultCharset`, `experimentalZstd`) with body-parser's defaults
 * ({@link JSON_DEFAULTS}), plus tollgate's own (`maxNodes`, `maxDepth`, the preflight policies
 * `duplicateKeys`, `protoKeys`, `maxStringBytes`, `maxNumberLength` and `bom`,
 * `maxInflationRatio`, `timeoutMs`, `idleTimeoutMs`, `budget`, `retryAfterSeconds`, `keepRaw`,
 * the fair-admission options, or `maxBytes` instead of `limit`). The options that would change
 * what `express.json()` does with a request it does not parse (`types`, `otherTypes`,
 * `passMethods`, `onRefusal`, `renderRefusal`) belong to `admission()`.
 */
export interface JsonOptions
  extends Omit<
    HttpAdmissionOptions,
    'types' | 'otherTypes' | 'passMethods' | 'onRefusal' | 'renderRefusal'
  > {
  /**
   * The charset of a body sent without one. JSON is UTF-8 (RFC 8259 §8.1), so only `'utf-8'`
   * is taken. Default: `'utf-8'`.
   */
  readonly defaultCharset?: string
  /**
   * Accepted so `express.json()` options carry over; a `zstd` body is refused with 415
   * `encoding.unsupported` whatever it says (tollgate inflates gzip, deflate and br).
   * Default: false.
   */
  readonly experimentalZstd?: boolean
}

/** body-parser's defaults, which {@link json} takes where `admission()` takes tollgate's. */
export const JSON_DEFAULTS = Object.freeze({
  /** 100 KiB (`'100kb'`), body-parser's `limit`. */
  limit: 102_400,
  type: 'application/json',
  strict: true,
  inflate: true,
})

const {
  types: _types,
  otherTypes: _otherTypes,
  passMethods: _passMethods,
  onRefusal: _onRefusal,
  renderRefusal: _renderRefusal,
  ...SHARED_VALIDATORS
} = HTTP_ADMISSION_VALIDATORS

const VALIDATORS: OptionValidators<JsonOptions> = {
  ...SHARED_VALIDATORS,
  defaultCharset: (value, name) => {
    if (typeof value !== 'string' || !/^utf-?8$/i.test(value)) {
      throw new TypeError(`${name} must be utf-8: JSON is UTF-8 (RFC 8259)`)
    }
  },
  experimentalZstd: booleanOption,
}

const brand = createResolvedBrand<ResolvedHttpAdmissionOptions>()

/**
 * Validates {@link JsonOptions} once and resolves them to what {@link json} runs with:
 * body-parser's defaults filled in, other media types passed through unread
 * (`otherTypes: 'pass'`), every method read (`passMethods: []`) and refusals handed to
 * `next(err)` (`onRefusal: 'next'`). An object this function returned is returned as it is.
 * @throws TypeError naming the option: an unknown or bad option, a `defaultCharset` other than
 * UTF-8, or an `admission()`-only option (even set to `undefined`).
 */
export function resolveJsonOptions(
  options: JsonOptions | ResolvedHttpAdmissionOptions = {},
): ResolvedHttpAdmissionOptions {
  if (brand.has(options)) return options
  let input: unknown = options
  if (typeof options === 'object' && options !== null) {
    for (const key of Object.keys(options)) {
      if (Object.hasOwn(HTTP_ADMISSION_VALIDATORS, key) && !Object.hasOwn(VALIDATORS, key)) {
        throw new TypeError(`${key} is an option of admission(), not json()`)
      }
    }
    // body-parser reads `type || default` and `limit || default`, so an empty or false `type`
    // and a null `limit` mean the default there, and so here.
    const { type, limit } = options as { type?: unknown; limit?: unknown }
    input = { ...options, type: type || undefined, limit: limit ?? undefined }
  }
  checkOptions<JsonOptions>(input, VALIDATORS, 'json')
  const { defaultCharset: _charset, experimentalZstd: _zstd, ...rest } = input ?? {}
  return brand.mark(
    resolveHttpAdmissionOptions({
      ...rest,
      limit: rest.limit ?? (rest.maxBytes === undefined ? JSON_DEFAULTS.limit : undefined),
      type: rest.type ?? JSON_DEFAULTS.type,
      strict: rest.strict ?? JSON_DEFAULTS.strict,
      inflate: rest.inflate ?? JSON_DEFAULTS.inflate,
      otherTypes: 'pass',
      passMethods: [],
      onRefusal: 'next',
    }),
  )
}

/**
 * A drop-in for `express.json()` / `bodyParser.json()`: `app.use(express.json())` becomes
 * `app.use(json())`. Same option names and defaults (100 KiB, `strict`, `application/json`
 * only, inflation on), same `req.body` (`undefined` without a body, `{}` for an empty one,
 * left alone for another media type, any method), and refusals handed to `next(err)` with
 * body-parser's `status`, `type` and, where it is fixed text, `message` (400
 * `entity.parse.failed` for a parse or strict failure, 413 `entity.too.large`, 415, 403
 * `entity.verify.failed`...). Underneath is `admission()`: bytes counted as they arrive, the
 * preflight on every chunk (depth 64, 100,000 nodes, strict UTF-8), inflation capped by bytes
 * and ratio, deadlines, the in-flight budget, and the connection closed after a refusal. The
 * differences are deliberate: only UTF-8, no `err.body`, and messages that never quote the
 * caller's bytes or header values.
 * @throws TypeError at construction, as {@link resolveJsonOptions} does.
 */
export function json(options: JsonOptions = {}): AdmissionMiddleware {
  return createAdmissionMiddleware(options, resolveJsonOptions, true)
}
