import {
  defineOptions,
  integerOption,
  JSON_LIMITS,
  type OptionsOf,
  oneOfOption,
  option,
  type ResolvedOf,
} from '@tollgate/json-budget'

// `Infinity` (the default) is admitted as "no cap", so a copy of resolved options,
// `{ ...PREFLIGHT_DEFAULTS, maxNodes: 10 }`, resolves again.
function capOption(allowZero: boolean): (value: unknown, name: string) => void {
  const integer = integerOption(allowZero)
  return (value, name) => {
    if (value !== Number.POSITIVE_INFINITY) integer(value, name)
  }
}

/**
 * The optional refusals beyond the grammar and the limits, declared once. Each is off by
 * default (the BOM, which `JSON.parse` refuses, is refused by default) and each refuses with
 * its own code: `ERR_JSON_DUPLICATE_KEY`, `ERR_JSON_PROTO_KEY`, `ERR_JSON_STRING_TOO_LONG`,
 * `ERR_JSON_NUMBER_TOO_LONG`, `ERR_JSON_BOM`.
 */
export const PREFLIGHT_POLICIES = defineOptions('preflight', {
  duplicateKeys: option<'allow' | 'refuse'>({
    default: 'allow',
    check: oneOfOption(['allow', 'refuse']),
    doc: "`'refuse'`: an object repeating a key, compared after unescaping (one `Set` per open object)",
  }),
  protoKeys: option<'allow' | 'refuse'>({
    default: 'allow',
    check: oneOfOption(['allow', 'refuse']),
    doc: "`'refuse'`: a `__proto__` key anywhere, or `prototype` in the object value of a `constructor` key",
  }),
  maxStringBytes: option({
    default: Number.POSITIVE_INFINITY,
    check: capOption(true),
    doc: 'longest string, key or value, in raw bytes between its quotes (escapes as written); 0 admits only `""`; `Infinity` is no cap',
  }),
  maxNumberLength: option({
    default: Number.POSITIVE_INFINITY,
    check: capOption(false),
    doc: 'longest number as written (sign, digits, `.`, `e`, exponent sign), in characters; `Infinity` is no cap',
  }),
  bom: option<'refuse' | 'strip'>({
    default: 'refuse',
    check: oneOfOption(['refuse', 'strip']),
    doc: 'a UTF-8 BOM (EF BB BF) at offset 0: refused (`ERR_JSON_BOM`) or skipped (still counted in `bytes` and offsets)',
  }),
})

/**
 * The options of `createPreflight` and `preflight`, declared once: json-budget's three limits
 * (`maxBytes` bounds the raw input bytes) and the policies of {@link PREFLIGHT_POLICIES}.
 */
export const PREFLIGHT_OPTIONS = defineOptions('preflight', {
  maxNodes: option({
    ...JSON_LIMITS.rows.maxNodes,
    doc: 'containers + scalars + object keys; refused at the byte that starts the extra node',
  }),
  maxDepth: option({
    ...JSON_LIMITS.rows.maxDepth,
    doc: 'nested containers; refused at the bracket that opens one level too many',
  }),
  maxBytes: option({
    ...JSON_LIMITS.rows.maxBytes,
    doc: 'raw input bytes pushed, whitespace included; refused with `ERR_JSON_TOO_LARGE` at offset `maxBytes`',
  }),
  ...PREFLIGHT_POLICIES.rows,
})

/** The policies' options (see {@link PREFLIGHT_POLICIES}); every field optional. */
export type PreflightPolicies = OptionsOf<typeof PREFLIGHT_POLICIES.rows>

/** Options of `createPreflight` and `preflight` (see {@link PREFLIGHT_OPTIONS}). */
export type PreflightOptions = OptionsOf<typeof PREFLIGHT_OPTIONS.rows>

/** {@link PreflightOptions} after {@link resolvePreflightOptions}: every field set, frozen. */
export type ResolvedPreflightOptions = ResolvedOf<typeof PREFLIGHT_OPTIONS.rows>

/**
 * The defaults: json-budget's limits, every policy allowed except a BOM, no string or number
 * cap (`Infinity`).
 */
export const PREFLIGHT_DEFAULTS: ResolvedPreflightOptions = PREFLIGHT_OPTIONS.defaults

/**
 * Validates the limits and the policies once and freezes them, so a server resolves at
 * start-up and creates a cheap scanner per request with `createPreflight(resolved)`. An object
 * this function returned (or `PREFLIGHT_DEFAULTS`) is returned as it is; any other object, a
 * copy of resolved options included, is validated.
 * @throws TypeError naming the option: an unknown option (`preflight: unknown option <name>`),
 *   a bad limit or a bad policy value.
 */
export function resolvePreflightOptions(
  options: PreflightOptions | ResolvedPreflightOptions | undefined = undefined,
): ResolvedPreflightOptions {
  return PREFLIGHT_OPTIONS.resolve(options)
}
