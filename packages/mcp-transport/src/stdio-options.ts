import {
  ADMISSION_DEFAULTS,
  createResolvedBrand,
  defineOptions,
  integerOption,
  JSON_LIMITS,
  ON_REFUSAL_OPTION,
  type OptionsOf,
  oneOfOption,
  option,
  REPEAT_WINDOW_OPTIONS,
  type ResolvedOf,
} from '@tollgate/json-budget'
import { PREFLIGHT_POLICIES, type ResolvedPreflightOptions } from '@tollgate/lexical-preflight'

const CEILING = ADMISSION_DEFAULTS.stdioLineBytesCeiling

// `undefined` is "not set" (the SDK reads `options?.maxBufferSize`), so it is the default here.
function lineCapOrUnset(value: unknown, name: string): void {
  integerOption()(value, name)
}

/**
 * The options of {@link BoundedStdioServerTransport}, declared once: the README's options
 * table is `BOUNDED_STDIO_OPTIONS.markdown()`. The JSON limits and the lexical-preflight
 * policies are top-level options; the byte bound is the line cap, so `maxBytes` is not an input
 * (the resolved options carry `maxLineBytes` as `maxBytes`).
 */
export const BOUNDED_STDIO_OPTIONS = defineOptions('BoundedStdioServerTransport', {
  maxLineBytes: option({
    default: ADMISSION_DEFAULTS.stdioLineBytes,
    check: integerOption(),
    ceiling: CEILING,
    doc: 'largest line, in bytes, its line ending (`\\n` or `\\r\\n`) included; one byte more is `ERR_LINE_TOO_LARGE` (see `oversizedLine`); at most 64 MiB',
  }),
  maxBufferSize: option<number | undefined>({
    default: undefined,
    check: lineCapOrUnset,
    ceiling: CEILING,
    shown: '`maxLineBytes`',
    doc: "the SDK `StdioServerTransport`'s name for the same cap, accepted so its options pass unchanged; set to a value other than `maxLineBytes`, refused",
  }),
  maxNodes: option({
    ...JSON_LIMITS.rows.maxNodes,
    doc: 'most JSON nodes in one line, the JSON-RPC envelope included',
  }),
  maxDepth: option({
    ...JSON_LIMITS.rows.maxDepth,
    doc: "most nested containers in one line, the envelope's own object included",
  }),
  ...PREFLIGHT_POLICIES.rows,
  // Refused by default, as on the MCP HTTP path: no drop-in contract binds a JSON-RPC line, a
  // repeated key is read last-wins by `JSON.parse` where another reader may take the first (so
  // a validator and a handler can disagree on one argument), and a `__proto__` key is
  // prototype pollution for code that merges arguments. An honest MCP client sends neither.
  duplicateKeys: option<'allow' | 'refuse'>({
    ...PREFLIGHT_POLICIES.rows.duplicateKeys,
    default: 'refuse',
    doc: "an object repeating a key, compared after unescaping: `'refuse'` answers the line `-32700` `ERR_JSON_DUPLICATE_KEY` under its id; `'allow'` lets `JSON.parse` keep the last",
  }),
  protoKeys: option<'allow' | 'refuse'>({
    ...PREFLIGHT_POLICIES.rows.protoKeys,
    default: 'refuse',
    doc: "a `__proto__` key anywhere, or `prototype` in the object value of a `constructor` key: `'refuse'` answers the line `-32700` `ERR_JSON_PROTO_KEY` under its id; `'allow'` admits it",
  }),
  refusalWindowMs: option({
    ...REPEAT_WINDOW_OPTIONS.rows.windowMs,
    doc: 'ms during which repeats of a refusal reported to `onerror` (same `code`) are counted: the first is reported at once, one closing `StdioRefusalError` carries `repeated`; `0` reports every refused line',
  }),
  onRefusal: option({
    ...ON_REFUSAL_OPTION,
    doc: "called once per refused line (every one: no repeat window) with json-budget's frozen `RefusalEvent`, `control` `'mcp-stdio'` and no `status`, after the JSON-RPC answer is written; a throwing hook is caught",
  }),
  oversizedLine: option<'end' | 'skip'>({
    default: 'end',
    check: oneOfOption(['end', 'skip']),
    doc: "a line past the cap: `'end'` answers it at the cap and ends the input (nothing more is read; the client must reconnect); `'skip'` reads the rest of that line to its newline without holding it (one pass over every byte, however long), answers it there and reads the next line",
  }),
})

/** Options of {@link BoundedStdioServerTransport} (see {@link BOUNDED_STDIO_OPTIONS}). */
export type BoundedStdioOptions = OptionsOf<typeof BOUNDED_STDIO_OPTIONS.rows>

/**
 * The options after {@link resolveBoundedStdioOptions}: every field filled, frozen; the
 * preflight options of each line, with `maxBytes` equal to `maxLineBytes`.
 */
export interface ResolvedBoundedStdioOptions
  extends ResolvedPreflightOptions,
    Omit<ResolvedOf<typeof BOUNDED_STDIO_OPTIONS.rows>, 'maxBufferSize'> {
  readonly maxLineBytes: number
  /** The option the caller set the cap with (`maxBufferSize` or `maxLineBytes`), for messages. */
  readonly lineBytesOption: 'maxLineBytes' | 'maxBufferSize'
}

/**
 * The defaults: 64 MiB lines, 100,000 nodes, depth 64, duplicate keys and `__proto__` keys
 * refused, the preflight's other policies (a BOM refused; no string or number length cap), an
 * over-cap line ending the input.
 */
export const BOUNDED_STDIO_DEFAULTS = BOUNDED_STDIO_OPTIONS.defaults

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
  const input = BOUNDED_STDIO_OPTIONS.resolve(options ?? {})
  const given = (options ?? {}) as BoundedStdioOptions
  const viaBuffer = input.maxBufferSize !== undefined
  const lineBytesOption =
    viaBuffer && given.maxLineBytes === undefined ? 'maxBufferSize' : 'maxLineBytes'
  const maxLineBytes =
    lineBytesOption === 'maxBufferSize' ? (input.maxBufferSize as number) : input.maxLineBytes
  if (viaBuffer && input.maxBufferSize !== maxLineBytes) {
    throw new TypeError('maxBufferSize and maxLineBytes name the same cap; set one of them')
  }
  const { maxBufferSize: _sameCap, ...rest } = input
  return brand.mark(
    Object.freeze({
      ...rest,
      maxLineBytes,
      lineBytesOption,
      // The line cap bounds the bytes; the scanner's own byte limit sits at the same figure.
      maxBytes: maxLineBytes,
    }),
  )
}
