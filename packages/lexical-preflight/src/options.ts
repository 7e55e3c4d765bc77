import { assertLimit, type JsonLimits, resolveLimits } from '@tollgate/json-budget'

/**
 * Optional refusals beyond the grammar and the limits. Each is off by default (the BOM, which
 * `JSON.parse` refuses, is refused by default) and each refuses with its own code.
 */
export interface PreflightPolicies {
  /**
   * `'refuse'` refuses an object that repeats a key (compared after unescaping, so `"a"` and
   * `"\u0061"` are the same key) with `ERR_JSON_DUPLICATE_KEY`. Costs one `Set` per open object
   * and a copy of each key, bounded by the node budget. Default: `'allow'` (as `JSON.parse`,
   * whose last value wins).
   */
  readonly duplicateKeys?: 'allow' | 'refuse'
  /**
   * `'refuse'` refuses a `__proto__` key anywhere, and a `prototype` key in an object that is
   * the value of a `constructor` key, with `ERR_JSON_PROTO_KEY` (the attack as secure-json-parse
   * defines it; keys are compared after unescaping). Default: `'allow'`.
   */
  readonly protoKeys?: 'allow' | 'refuse'
  /**
   * Longest string (key or value) admitted, in raw input bytes between its quotes (escapes
   * counted as written). A string of exactly this many bytes is admitted; one more byte is
   * refused with `ERR_JSON_STRING_TOO_LONG`. Default: none.
   */
  readonly maxStringBytes?: number
  /**
   * Longest number admitted, in characters as written (sign, digits, `.`, `e`, exponent sign).
   * One more character is refused with `ERR_JSON_NUMBER_TOO_LONG`. Default: none.
   */
  readonly maxNumberLength?: number
  /**
   * A UTF-8 byte order mark (EF BB BF) at offset 0: `'refuse'` refuses it with `ERR_JSON_BOM`
   * (`JSON.parse` refuses U+FEFF too); `'strip'` skips it (it still counts in `bytes` and in
   * offsets). A BOM anywhere else is a syntax error. Default: `'refuse'`.
   */
  readonly bom?: 'refuse' | 'strip'
}

/** The policies after validation, every field filled. */
export interface ResolvedPreflightPolicies {
  readonly duplicateKeys: 'allow' | 'refuse'
  readonly protoKeys: 'allow' | 'refuse'
  /** `Infinity` when unset. */
  readonly maxStringBytes: number
  /** `Infinity` when unset. */
  readonly maxNumberLength: number
  readonly bom: 'refuse' | 'strip'
}

/** Validated, frozen limits and policies, reusable across any number of scanners. */
export interface PreflightOptions {
  readonly limits: Readonly<JsonLimits>
  readonly policies: Readonly<ResolvedPreflightPolicies>
}

/** The policy defaults: everything allowed except a BOM, no string or number cap. */
export const DEFAULT_PREFLIGHT_POLICIES: Readonly<ResolvedPreflightPolicies> = Object.freeze({
  duplicateKeys: 'allow',
  protoKeys: 'allow',
  maxStringBytes: Number.POSITIVE_INFINITY,
  maxNumberLength: Number.POSITIVE_INFINITY,
  bom: 'refuse',
})

const POLICY_KEYS = new Set([
  'duplicateKeys',
  'protoKeys',
  'maxStringBytes',
  'maxNumberLength',
  'bom',
])
const resolved = new WeakSet<object>()

function oneOf<T extends string>(
  name: string,
  value: unknown,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new TypeError(`${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}`)
  }
  return value as T
}

/**
 * Validates limits (through json-budget's `resolveLimits`) and policies once and freezes
 * them, so a server resolves at start-up and creates a cheap scanner per request with
 * `createPreflight(options)`.
 * @throws TypeError on a bad limit, an unknown policy name or a bad policy value.
 */
export function resolvePreflightOptions(
  limits: Partial<JsonLimits> = {},
  policies: PreflightPolicies = {},
): PreflightOptions {
  const resolvedLimits = resolveLimits(limits)
  if (typeof policies !== 'object' || policies === null) {
    throw new TypeError('policies must be an object')
  }
  for (const key of Object.keys(policies)) {
    if (!POLICY_KEYS.has(key)) throw new TypeError(`unknown preflight policy ${key.slice(0, 32)}`)
  }
  const out: ResolvedPreflightPolicies = Object.freeze({
    duplicateKeys: oneOf('duplicateKeys', policies.duplicateKeys, ['allow', 'refuse'], 'allow'),
    protoKeys: oneOf('protoKeys', policies.protoKeys, ['allow', 'refuse'], 'allow'),
    maxStringBytes:
      policies.maxStringBytes === undefined
        ? Number.POSITIVE_INFINITY
        : assertLimit('maxStringBytes', policies.maxStringBytes, true),
    maxNumberLength:
      policies.maxNumberLength === undefined
        ? Number.POSITIVE_INFINITY
        : assertLimit('maxNumberLength', policies.maxNumberLength),
    bom: oneOf('bom', policies.bom, ['refuse', 'strip'], 'refuse'),
  })
  const options: PreflightOptions = Object.freeze({ limits: resolvedLimits, policies: out })
  resolved.add(options)
  return options
}

/** True for an object returned by {@link resolvePreflightOptions} (not a look-alike). */
export function isResolvedPreflightOptions(value: unknown): value is PreflightOptions {
  return typeof value === 'object' && value !== null && resolved.has(value)
}
