import { ADMISSION_DEFAULTS, assertLimit, type JsonLimitsOptions } from '@tollgate/json-budget'
import {
  type PreflightOptions,
  type PreflightPolicies,
  resolvePreflightOptions,
} from '@tollgate/lexical-preflight'

/** Options of {@link BoundedStdioServerTransport}. Every field is optional. */
export interface BoundedStdioOptions {
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
  /** Optional lexical policies (duplicate keys, `__proto__` keys, ...); see lexical-preflight. */
  readonly policies?: PreflightPolicies
}

/** The options after validation: every field filled, frozen. */
export interface ResolvedStdioOptions {
  readonly maxLineBytes: number
  /** The option the caller set the cap with (`maxBufferSize` or `maxLineBytes`), for messages. */
  readonly lineBytesOption: 'maxLineBytes' | 'maxBufferSize'

  readonly preflight: PreflightOptions
}

/** The defaults: 64 MiB lines, 100,000 nodes, depth 64. */
export const DEFAULT_STDIO_OPTIONS: Readonly<{
  maxLineBytes: number
  maxNodes: number
  maxDepth: number
}> = Object.freeze({
  maxLineBytes: ADMISSION_DEFAULTS.stdioLineBytes,
  maxNodes: 100_000,
  maxDepth: 64,
})

const KEYS = new Set(['maxLineBytes', 'maxBufferSize', 'maxNodes', 'maxDepth', 'policies'])

/**
 * Validates {@link BoundedStdioOptions} once, at construction, and freezes the result.
 * @throws TypeError on an unknown option, a non-positive or fractional limit, a
 *   `maxLineBytes` / `maxBufferSize` above the 64 MiB ceiling, or both set to different values.
 */
export function resolveStdioOptions(options: BoundedStdioOptions = {}): ResolvedStdioOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('options must be an object')
  }
  for (const key of Object.keys(options)) {
    if (!KEYS.has(key)) throw new TypeError(`unknown option ${key.slice(0, 32)}`)
  }
  // `undefined` is "not set", as the SDK reads `options?.maxBufferSize`.
  const viaBuffer = options.maxBufferSize !== undefined
  const lineBytesOption =
    viaBuffer && options.maxLineBytes === undefined ? 'maxBufferSize' : 'maxLineBytes'
  const maxLineBytes = assertLimit(
    lineBytesOption,
    (lineBytesOption === 'maxBufferSize' ? options.maxBufferSize : options.maxLineBytes) ??
      DEFAULT_STDIO_OPTIONS.maxLineBytes,
  )
  if (viaBuffer && lineBytesOption === 'maxLineBytes' && options.maxBufferSize !== maxLineBytes) {
    throw new TypeError('maxBufferSize and maxLineBytes name the same cap; set one of them')
  }
  if (maxLineBytes > ADMISSION_DEFAULTS.stdioLineBytesCeiling) {
    throw new TypeError(
      `${lineBytesOption} may not exceed ${ADMISSION_DEFAULTS.stdioLineBytesCeiling}, got ${maxLineBytes}`,
    )
  }
  const limits: JsonLimitsOptions = {
    maxNodes: options.maxNodes ?? DEFAULT_STDIO_OPTIONS.maxNodes,
    maxDepth: options.maxDepth ?? DEFAULT_STDIO_OPTIONS.maxDepth,
    // The line cap bounds the bytes; the scanner's own byte limit sits at the same figure.
    maxBytes: maxLineBytes,
  }
  return Object.freeze({
    maxLineBytes,
    lineBytesOption,
    preflight: resolvePreflightOptions({ ...options.policies, ...limits }),
  })
}
