import { booleanOption, defineOptions, type OptionsOf, option } from '@tollgate/json-budget'
import { PREFLIGHT_POLICIES } from '@tollgate/lexical-preflight'
import { type BodyAdmission, bodyAdmission } from './body-admission.js'
import { BODY_ADMISSION_OPTIONS, typeShorthand } from './body-options.js'
import {
  type AdmissionMiddleware,
  BODY_PARSER_STYLE,
  createAdmissionMiddleware,
} from './middleware.js'
import {
  type AcceptRequest,
  ADMISSION_HOST_OPTIONS,
  type AdmissionHost,
} from './middleware-options.js'

// The options json() fixes itself: what express.json() does with a request it does not parse.
const BODY_ROWS = BODY_ADMISSION_OPTIONS.without('json', 'types', 'otherTypes', 'passMethods').rows

/**
 * The options of {@link json}, declared once: body-parser's (`inflate`, `limit`, `reviver`,
 * `strict`, `type`, `verify`, `defaultCharset`, `experimentalZstd`) with body-parser's defaults
 * ({@link JSON_DEFAULTS}), plus tollgate's body options (`maxNodes`, `maxDepth`, the preflight
 * policies, `maxInflationRatio`, the deadlines, `budget`, `retryAfterSeconds`, `keepRaw`, the
 * fair-admission options, the `onRefusal` hook, or `maxBytes` instead of `limit`) and the
 * middleware's `principal` and `route`. The options that would change what `express.json()` does with a
 * request it does not parse (`types`, `otherTypes`, `passMethods`, `renderRefusal`, and the
 * middleware's `refusals: 'respond' | 'next'`) belong to `admission()`.
 */
export const JSON_OPTIONS = defineOptions('json', {
  ...BODY_ROWS,
  limit: option({ ...BODY_ROWS.limit, shown: "`'100kb'`" }),
  // body-parser admits both (JSON.parse keeps the last duplicate and makes `__proto__` an own
  // key), so a drop-in does too; `admission()` refuses them by default.
  duplicateKeys: option({
    ...PREFLIGHT_POLICIES.rows.duplicateKeys,
    doc: "`'refuse'` answers an object repeating a key with 400 (`ERR_JSON_DUPLICATE_KEY`); `'allow'`, as body-parser, lets `JSON.parse` keep the last",
  }),
  protoKeys: option({
    ...PREFLIGHT_POLICIES.rows.protoKeys,
    doc: "`'refuse'` answers a `__proto__` key (or `constructor.prototype`) with 400 (`ERR_JSON_PROTO_KEY`); `'allow'`, as body-parser, admits it",
  }),
  type: option<string | readonly string[] | AcceptRequest | undefined>({
    default: undefined,
    check: (value, name) => {
      if (typeof value === 'function') return
      const list: unknown = typeof value === 'string' ? [value] : value
      if (!Array.isArray(list)) {
        throw new TypeError(`${name} must be a string, an array or a function`)
      }
      for (const t of list) typeShorthand(t)
    },
    shown: "`'application/json'`",
    doc: "media types read (`'json'`, `'+json'`, media types), or a function `(req) => boolean` deciding per request (it may admit a body sent without `Content-Type`)",
  }),
  verify: ADMISSION_HOST_OPTIONS.rows.verify,
  principal: ADMISSION_HOST_OPTIONS.rows.principal,
  route: ADMISSION_HOST_OPTIONS.rows.route,
  defaultCharset: option<string | undefined>({
    default: undefined,
    check: (value, name) => {
      if (typeof value !== 'string' || !/^utf-?8$/i.test(value)) {
        throw new TypeError(`${name} must be utf-8: JSON is UTF-8 (RFC 8259)`)
      }
    },
    shown: "`'utf-8'`",
    doc: 'the charset of a body sent without one; JSON is UTF-8 (RFC 8259 §8.1), so only UTF-8 is taken',
  }),
  experimentalZstd: option<boolean | undefined>({
    default: undefined,
    check: booleanOption,
    shown: '`false`',
    doc: 'accepted so `express.json()` options carry over; a `zstd` body is refused with 415 whatever it says',
  }),
})

/** Options of {@link json} (see {@link JSON_OPTIONS}). */
export type JsonOptions = OptionsOf<typeof JSON_OPTIONS.rows>

/** body-parser's defaults, which {@link json} takes where `admission()` takes tollgate's. */
export const JSON_DEFAULTS = Object.freeze({
  /** 100 KiB (`'100kb'`), body-parser's `limit`. */
  limit: 102_400,
  type: 'application/json',
  strict: true,
  inflate: true,
})

/**
 * A drop-in for `express.json()` / `bodyParser.json()`: `app.use(express.json())` becomes
 * `app.use(json())`. Same option names and defaults (100 KiB, `strict`, `application/json`
 * only, inflation on), same `req.body` (`undefined` without a body, `{}` for an empty one,
 * left alone for another media type, any method), and refusals handed to `next(err)` with
 * body-parser's `status`, `type` and, where it is fixed text, `message` (400
 * `entity.parse.failed` for a parse or strict failure, 413 `entity.too.large`, 415, 403
 * `entity.verify.failed`...). Underneath is a `bodyAdmission()` control built here from the
 * body options: bytes counted as they arrive, the preflight on every chunk (depth 64, 100,000
 * nodes, strict UTF-8), inflation capped by bytes and ratio, deadlines, the in-flight budget,
 * and the connection closed after a refusal. The differences are deliberate: only UTF-8, no
 * `err.body`, and messages that never quote the caller's bytes or header values.
 * @throws TypeError at construction naming the option: an unknown or bad option, a
 *   `defaultCharset` other than UTF-8, or an `admission()`-only option (even set to
 *   `undefined`).
 */
export function json(options: JsonOptions = {}): AdmissionMiddleware {
  const { body, host } = resolveJsonOptions(options)
  return createAdmissionMiddleware(body, host, BODY_PARSER_STYLE)
}

/** What {@link json} holds: the body control built from its options, and the middleware's. */
export interface ResolvedJsonOptions {
  /** The body admission, with body-parser's defaults and what `express.json()` fixes. */
  readonly body: BodyAdmission
  /** The middleware's options: refusals to `next(err)`, `verify`, `principal`, a `type` function. */
  readonly host: AdmissionHost
}

/**
 * Validates {@link JsonOptions} once and splits them into what {@link json} holds: a body
 * control (body-parser's defaults filled in, other media types passed through unread, every
 * method read) and the middleware's options (refusals handed to `next(err)`).
 * @throws TypeError as {@link json} does.
 */
export function resolveJsonOptions(options: JsonOptions = {}): ResolvedJsonOptions {
  let input: unknown = options
  if (typeof options === 'object' && options !== null) {
    for (const key of Object.keys(options)) {
      const elsewhere =
        Object.hasOwn(BODY_ADMISSION_OPTIONS.rows, key) ||
        Object.hasOwn(ADMISSION_HOST_OPTIONS.rows, key)
      if (elsewhere && !Object.hasOwn(JSON_OPTIONS.rows, key)) {
        throw new TypeError(`${key} is an option of admission(), not json()`)
      }
    }
    // body-parser reads `type || default` and `limit || default`, so an empty or false `type`
    // and a null `limit` mean the default there, and so here.
    const { type, limit } = options as { type?: unknown; limit?: unknown }
    input = { ...options, type: type || undefined, limit: limit ?? undefined }
  }
  const o = JSON_OPTIONS.resolve(input)
  const {
    type,
    verify,
    principal,
    route,
    defaultCharset: _charset,
    experimentalZstd: _zstd,
    ...rest
  } = input === undefined ? {} : (input as JsonOptions)
  const body = bodyAdmission({
    ...rest,
    limit: rest.limit ?? (rest.maxBytes === undefined ? JSON_DEFAULTS.limit : undefined),
    type: typeof type === 'function' ? undefined : (type ?? JSON_DEFAULTS.type),
    strict: o.strict,
    inflate: o.inflate,
    duplicateKeys: o.duplicateKeys,
    protoKeys: o.protoKeys,
    otherTypes: 'pass',
    passMethods: [],
  })
  const accept = typeof type === 'function' ? type : undefined
  const host = Object.freeze({
    ...ADMISSION_HOST_OPTIONS.defaults,
    refusals: 'next' as const,
    verify,
    principal,
    route,
    accept,
  })
  return Object.freeze({ body, host })
}
