import { type AdmissionMiddleware, createAdmissionMiddleware } from './middleware.js'
import type { HttpAdmissionOptions } from './options.js'

/**
 * Options of {@link json}: body-parser's (`inflate`, `limit`, `reviver`, `strict`, `type`,
 * `verify`, `defaultCharset`, `experimentalZstd`) with body-parser's defaults, plus tollgate's
 * own limits (`maxNodes`, `maxDepth`, `policies`, `maxInflationRatio`, `timeoutMs`,
 * `idleTimeoutMs`, `budget`, `retryAfterSeconds`, `keepRaw`, or `maxBytes` instead of `limit`).
 * The options that would change what `express.json()` does with a request it does not parse
 * (`types`, `otherTypes`, `passMethods`, `onRefusal`, `renderRefusal`) belong to `admission()`.
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
export const JSON_DROP_IN_DEFAULTS = Object.freeze({
  /** 100 KiB (`'100kb'`), body-parser's `limit`. */
  limit: 102_400,
  type: 'application/json',
  strict: true,
  inflate: true,
})

const ADMISSION_ONLY = new Set(['types', 'otherTypes', 'passMethods', 'onRefusal', 'renderRefusal'])

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
 * @throws TypeError at construction on a bad or unknown option, a `defaultCharset` other than
 * UTF-8, or an `admission()`-only option.
 */
export function json(options: JsonOptions = {}): AdmissionMiddleware {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('options must be an object')
  }
  for (const key of Object.keys(options)) {
    if (ADMISSION_ONLY.has(key)) {
      throw new TypeError(`${key} is an option of admission(), not json()`)
    }
  }
  const { defaultCharset, experimentalZstd, ...rest } = options
  if (defaultCharset !== undefined && !/^utf-?8$/i.test(String(defaultCharset))) {
    throw new TypeError('defaultCharset must be utf-8: JSON is UTF-8 (RFC 8259)')
  }
  if (experimentalZstd !== undefined && typeof experimentalZstd !== 'boolean') {
    throw new TypeError('experimentalZstd must be a boolean')
  }
  const limit =
    rest.limit === undefined || rest.limit === null
      ? rest.maxBytes === undefined
        ? JSON_DROP_IN_DEFAULTS.limit
        : undefined
      : rest.limit
  return createAdmissionMiddleware(
    {
      ...rest,
      limit,
      // body-parser reads `type || default`, so an empty string or false means the default.
      type: rest.type || JSON_DROP_IN_DEFAULTS.type,
      strict: rest.strict ?? JSON_DROP_IN_DEFAULTS.strict,
      inflate: rest.inflate ?? JSON_DROP_IN_DEFAULTS.inflate,
      otherTypes: 'pass',
      passMethods: [],
      onRefusal: 'next',
    },
    true,
  )
}
