import { DEFAULT_JSON_LIMITS, type JsonLimits, resolveLimits } from '@tollgate/json-budget'

const MiB = 1024 * 1024

/**
 * The bounds the arguments of one `tools/call` are charged against before any validator sees
 * them: 32 nested containers, 10,000 nodes, 4 MiB of compact JSON. Every published schema is
 * far shallower and smaller; the bound is there so the validator's work is a function of
 * these numbers, not of what a caller sends.
 */
export const DEFAULT_ARGUMENT_LIMITS: Readonly<JsonLimits> = Object.freeze({
  maxDepth: 32,
  maxNodes: 10_000,
  maxBytes: 4 * MiB,
})

/** Options of {@link withInputValidation} and {@link checkToolCall}. */
export interface InputValidationOptions {
  /**
   * Most nested containers admitted in `arguments` (`{}` is depth 1). A depth equal to the
   * limit is admitted. Default: 32. May not exceed 64.
   */
  readonly maxDepth?: number
  /**
   * Most JSON nodes admitted in `arguments` (containers, scalars and object keys each count
   * once). A count equal to the limit is admitted. Default: 10,000. May not exceed 100,000.
   */
  readonly maxNodes?: number
  /**
   * Largest compact UTF-8 JSON encoding of `arguments` admitted, in bytes. Default: 4 MiB.
   * May not exceed 64 MiB.
   */
  readonly maxBytes?: number
  /**
   * Rewrite each outgoing `tools/list` result so every tool's `inputSchema` is its published
   * schema (bundled, `$ref` inlined), and leave out tools that have none (they are refused as
   * unknown). Default: `true`.
   */
  readonly rewriteToolsList?: boolean
}

/** {@link InputValidationOptions} with every default filled, validated and frozen. */
export interface ResolvedInputValidationOptions {
  readonly limits: Readonly<JsonLimits>
  readonly rewriteToolsList: boolean
}

const KNOWN = new Set(['maxDepth', 'maxNodes', 'maxBytes', 'rewriteToolsList'])

/**
 * Fills {@link InputValidationOptions} from the defaults, validates every field once and
 * freezes the result.
 * @throws TypeError on an unknown option, a limit that is not a positive safe integer, a
 *   limit above its ceiling (`DEFAULT_JSON_LIMITS`), or a non-boolean `rewriteToolsList`.
 */
export function resolveOptions(
  options: InputValidationOptions = {},
): ResolvedInputValidationOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('options must be an object')
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw new TypeError(`unknown option ${JSON.stringify(key.slice(0, 64))}`)
  }
  // resolveLimits validates each field and refuses any above the shared ceiling; the object it
  // returns is recognised by chargeJson, which then skips validating it on every call.
  const limits = resolveLimits(
    {
      maxDepth: options.maxDepth ?? DEFAULT_ARGUMENT_LIMITS.maxDepth,
      maxNodes: options.maxNodes ?? DEFAULT_ARGUMENT_LIMITS.maxNodes,
      maxBytes: options.maxBytes ?? DEFAULT_ARGUMENT_LIMITS.maxBytes,
    },
    DEFAULT_JSON_LIMITS,
  )
  const rewriteToolsList = options.rewriteToolsList ?? true
  if (typeof rewriteToolsList !== 'boolean') {
    throw new TypeError('rewriteToolsList must be a boolean')
  }
  return Object.freeze({ limits, rewriteToolsList })
}
