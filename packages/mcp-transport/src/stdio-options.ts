import {
  ADMISSION_DEFAULTS,
  checkOptions,
  createResolvedBrand,
  integerOption,
  JSON_LIMITS_DEFAULTS,
  type OptionValidators,
} from '@tollgate/json-budget'
import {
  PREFLIGHT_DEFAULTS,
  PREFLIGHT_POLICY_VALIDATORS,
  type PreflightOptions,
  type ResolvedPreflightOptions,
} from '@tollgate/lexical-preflight'

/**
 * Options of {@link BoundedStdioServerTransport}. Every field is optional. The JSON limits and
 * the lexical-preflight policies (`duplicateKeys`, `protoKeys`, `maxStringBytes`,
 * `maxNumberLength`, `bom`) are top-level keys; the byte bound is the line cap, so `maxBytes` is
 * not an input here (the resolved options carry `maxLineBytes` as `maxBytes`).
 */
export interface BoundedStdioOptions extends Omit<PreflightOptions, 'maxBytes'> {
  /**
   * Largest line admitted, in bytes, its line ending (`\n`, or `\r\n`) included. A line of
   * exactly this many bytes is read; one more byte and the input stream ends with an
   * `ERR_LINE_TOO_LARGE` answer. May be lowered, never raised past 64 MiB. Default: 64 MiB.
   */
  readonly maxLineBytes?: number
  /**
   * The SDK `StdioServerTransport`'s name for the same cap, accepted so its options pass
   * unchanged: honoured as `maxLineBytes` (line ending included), under the same 64 MiB
   * ceiling. Setting both to different values is refused. Default: `maxLineBytes`'s.
   */
  readonly maxBufferSize?: number
  /**
   * Most JSON nodes in one line, the JSON-RPC envelope included (containers, scalars and object
   * keys each count once). Default: 100,000.
   */
  readonly maxNodes?: number
  /**
   * Most nested containers in one line, the envelope's own object included. Default: 64.
   */
  readonly maxDepth?: number
}

/**
 * The options after {@link resolveBoundedStdioOptions}: every field filled, frozen; the
 * preflight options of each line, with `maxBytes` equal to `maxLineBytes`.
 */
export interface ResolvedBoundedStdioOptions extends ResolvedPreflightOptions {
  readonly maxLineBytes: number
  /** The option the caller set the cap with (`maxBufferSize` or `maxLineBytes`), for messages. */
  readonly lineBytesOption: 'maxLineBytes' | 'maxBufferSize'
}

/**
 * The defaults: 64 MiB lines, 100,000 nodes, depth 64, the preflight's policies (duplicate and
 * `__proto__` keys allowed, a BOM refused; no string or number length cap).
 */
export const BOUNDED_STDIO_DEFAULTS: Readonly<{
  maxLineBytes: number
  maxNodes: number
  maxDepth: number
  duplicateKeys: 'allow' | 'refuse'
  protoKeys: 'allow' | 'refuse'
  bom: 'refuse' | 'strip'
}> = Object.freeze({
  maxLineBytes: ADMISSION_DEFAULTS.stdioLineBytes,
  maxNodes: JSON_LIMITS_DEFAULTS.maxNodes,
  maxDepth: JSON_LIMITS_DEFAULTS.maxDepth,
  duplicateKeys: PREFLIGHT_DEFAULTS.duplicateKeys,
  protoKeys: PREFLIGHT_DEFAULTS.protoKeys,
  bom: PREFLIGHT_DEFAULTS.bom,
})

const CEILING = ADMISSION_DEFAULTS.stdioLineBytesCeiling

function lineCap(value: unknown, name: string): void {
  integerOption()(value, name)
  if ((value as number) > CEILING) {
    throw new TypeError(`${name} may not exceed ${CEILING}, got ${value as number}`)
  }
}

const VALIDATORS: OptionValidators<BoundedStdioOptions> = {
  maxLineBytes: lineCap,
  maxBufferSize: lineCap,
  maxNodes: integerOption(),
  maxDepth: integerOption(true),
  ...PREFLIGHT_POLICY_VALIDATORS,
}

const brand = createResolvedBrand<ResolvedBoundedStdioOptions>()

/**
 * Validates {@link BoundedStdioOptions} once, at construction, fills
 * {@link BOUNDED_STDIO_DEFAULTS} and freezes the result; an object this function returned is
 * returned as it is.
 * @throws TypeError on an unknown option, a non-positive or fractional limit, a
 *   `maxLineBytes` / `maxBufferSize` above the 64 MiB ceiling, both set to different values, or
 *   a bad policy value.
 */
export function resolveBoundedStdioOptions(
  options: BoundedStdioOptions | ResolvedBoundedStdioOptions = {},
): ResolvedBoundedStdioOptions {
  if (brand.has(options)) return options
  checkOptions(options, VALIDATORS, 'BoundedStdioServerTransport')
  const input: BoundedStdioOptions = options ?? {}
  // `undefined` is "not set", as the SDK reads `options?.maxBufferSize`.
  const viaBuffer = input.maxBufferSize !== undefined
  const lineBytesOption =
    viaBuffer && input.maxLineBytes === undefined ? 'maxBufferSize' : 'maxLineBytes'
  const maxLineBytes =
    (lineBytesOption === 'maxBufferSize' ? input.maxBufferSize : input.maxLineBytes) ??
    BOUNDED_STDIO_DEFAULTS.maxLineBytes
  if (viaBuffer && lineBytesOption === 'maxLineBytes' && input.maxBufferSize !== maxLineBytes) {
    throw new TypeError('maxBufferSize and maxLineBytes name the same cap; set one of them')
  }
  const d = PREFLIGHT_DEFAULTS
  return brand.mark(
    Object.freeze({
      maxLineBytes,
      lineBytesOption,
      maxNodes: input.maxNodes ?? BOUNDED_STDIO_DEFAULTS.maxNodes,
      maxDepth: input.maxDepth ?? BOUNDED_STDIO_DEFAULTS.maxDepth,
      // The line cap bounds the bytes; the scanner's own byte limit sits at the same figure.
      maxBytes: maxLineBytes,
      duplicateKeys: input.duplicateKeys ?? d.duplicateKeys,
      protoKeys: input.protoKeys ?? d.protoKeys,
      maxStringBytes: input.maxStringBytes ?? d.maxStringBytes,
      maxNumberLength: input.maxNumberLength ?? d.maxNumberLength,
      bom: input.bom ?? d.bom,
    }),
  )
}
