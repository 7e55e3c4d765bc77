import {
  checkOptions,
  createResolvedBrand,
  integerOption,
  JSON_LIMITS_DEFAULTS,
  type JsonLimitsOptions,
  type OptionValidators,
  oneOfOption,
  type ResolvedJsonLimits,
  resolveJsonLimits,
} from '@tollgate/json-budget'

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
   * refused with `ERR_JSON_STRING_TOO_LONG`. `Infinity` is no cap. Default: none (`Infinity`).
   */
  readonly maxStringBytes?: number
  /**
   * Longest number admitted, in characters as written (sign, digits, `.`, `e`, exponent sign).
   * One more character is refused with `ERR_JSON_NUMBER_TOO_LONG`. `Infinity` is no cap.
   * Default: none (`Infinity`).
   */
  readonly maxNumberLength?: number
  /**
   * A UTF-8 byte order mark (EF BB BF) at offset 0: `'refuse'` refuses it with `ERR_JSON_BOM`
   * (`JSON.parse` refuses U+FEFF too); `'strip'` skips it (it still counts in `bytes` and in
   * offsets). A BOM anywhere else is a syntax error. Default: `'refuse'`.
   */
  readonly bom?: 'refuse' | 'strip'
}

/**
 * Options of `createPreflight` and `preflight`: the JSON limits (`maxNodes`, `maxDepth`,
 * `maxBytes`, where `maxBytes` bounds the input bytes) and the policies above, as top-level keys.
 */
export interface PreflightOptions extends JsonLimitsOptions, PreflightPolicies {}

/** {@link PreflightOptions} after {@link resolvePreflightOptions}: every field set, frozen. */
export interface ResolvedPreflightOptions extends ResolvedJsonLimits {
  readonly duplicateKeys: 'allow' | 'refuse'
  readonly protoKeys: 'allow' | 'refuse'
  /** `Infinity` when unset. */
  readonly maxStringBytes: number
  /** `Infinity` when unset. */
  readonly maxNumberLength: number
  readonly bom: 'refuse' | 'strip'
}

/**
 * The defaults: json-budget's limits, every policy allowed except a BOM, no string or number
 * cap.
 */
export const PREFLIGHT_DEFAULTS: ResolvedPreflightOptions = Object.freeze({
  ...JSON_LIMITS_DEFAULTS,
  duplicateKeys: 'allow',
  protoKeys: 'allow',
  maxStringBytes: Number.POSITIVE_INFINITY,
  maxNumberLength: Number.POSITIVE_INFINITY,
  bom: 'refuse',
})

// `Infinity` (what the defaults hold) is admitted as "no cap", so a copy of resolved options,
// `{ ...PREFLIGHT_DEFAULTS, maxNodes: 10 }`, resolves again.
function capOption(allowZero: boolean): (value: unknown, name: string) => void {
  const integer = integerOption(allowZero)
  return (value, name) => {
    if (value !== Number.POSITIVE_INFINITY) integer(value, name)
  }
}

/**
 * The validators of the five policies, for a package whose options extend
 * {@link PreflightPolicies} (spread into its own `OptionValidators` table, so the policies are
 * checked by the package that defines them).
 */
export const PREFLIGHT_POLICY_VALIDATORS: OptionValidators<PreflightPolicies> = Object.freeze({
  duplicateKeys: oneOfOption(['allow', 'refuse']),
  protoKeys: oneOfOption(['allow', 'refuse']),
  maxStringBytes: capOption(true),
  maxNumberLength: capOption(false),
  bom: oneOfOption(['refuse', 'strip']),
})

const VALIDATORS: OptionValidators<PreflightOptions> = {
  maxNodes: integerOption(),
  maxDepth: integerOption(true),
  maxBytes: integerOption(),
  ...PREFLIGHT_POLICY_VALIDATORS,
}

const brand = createResolvedBrand<ResolvedPreflightOptions>()
brand.mark(PREFLIGHT_DEFAULTS)

/**
 * Validates the limits (as json-budget's `resolveJsonLimits` does) and the policies once and
 * freezes them, so a server resolves at start-up and creates a cheap scanner per request with
 * `createPreflight(resolved)`. An object this function returned (or `PREFLIGHT_DEFAULTS`) is
 * returned as it is; any other object, a copy of resolved options included, is validated.
 * @throws TypeError naming the option: an unknown option (`preflight: unknown option <name>`),
 *   a bad limit or a bad policy value.
 */
export function resolvePreflightOptions(
  options: PreflightOptions | ResolvedPreflightOptions | undefined = undefined,
): ResolvedPreflightOptions {
  if (options === undefined) return PREFLIGHT_DEFAULTS
  if (brand.has(options)) return options
  checkOptions(options, VALIDATORS, 'preflight')
  // Reads the three limits only; an unknown key was refused just above.
  const limits = resolveJsonLimits(options)
  return brand.mark(
    Object.freeze({
      ...limits,
      duplicateKeys: options.duplicateKeys ?? PREFLIGHT_DEFAULTS.duplicateKeys,
      protoKeys: options.protoKeys ?? PREFLIGHT_DEFAULTS.protoKeys,
      maxStringBytes: options.maxStringBytes ?? PREFLIGHT_DEFAULTS.maxStringBytes,
      maxNumberLength: options.maxNumberLength ?? PREFLIGHT_DEFAULTS.maxNumberLength,
      bom: options.bom ?? PREFLIGHT_DEFAULTS.bom,
    }),
  )
}
