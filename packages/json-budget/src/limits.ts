import { defineOptions, type OptionsOf, option, type ResolvedOf } from './option-table.js'
import { integerOption } from './option-validators.js'

const MiB = 1024 * 1024

/**
 * The JSON limits, declared once: nodes, depth and bytes of one JSON value. Every options
 * object that bounds JSON holds them as top-level keys.
 */
export const JSON_LIMITS = defineOptions('limits', {
  maxNodes: option({
    default: 100_000,
    check: integerOption(),
    doc: 'most nodes: containers + scalars + object keys (`{"a":[1,2]}` is 5); equal is admitted',
  }),
  maxDepth: option({
    default: 64,
    check: integerOption(true),
    doc: 'most nested containers: a scalar alone is 0, `[]` 1, `[[]]` 2; equal is admitted',
  }),
  maxBytes: option({
    default: 64 * MiB,
    check: integerOption(),
    doc: 'largest compact UTF-8 encoding (`JSON.stringify`, no spacing), in bytes',
  }),
})

/**
 * Structural limits on one JSON value (see {@link JSON_LIMITS}): `maxNodes` (default
 * 100,000), `maxDepth` (default 64) and `maxBytes` (default 64 MiB). Every options interface
 * that bounds JSON extends this one.
 */
export type JsonLimitsOptions = OptionsOf<typeof JSON_LIMITS.rows>

/** {@link JsonLimitsOptions} after {@link resolveJsonLimits}: every field set, frozen. */
export type ResolvedJsonLimits = ResolvedOf<typeof JSON_LIMITS.rows>

/** The defaults: 100,000 nodes, 64 nested containers, 64 MiB. */
export const JSON_LIMITS_DEFAULTS: ResolvedJsonLimits = JSON_LIMITS.defaults

/**
 * Every package's byte boundaries in one place, so the REST body, the MCP body, the stdio line
 * and the tool result are bounded by the same figures everywhere. A policy may lower any of
 * them; none may be raised past its `*Ceiling`.
 */
export const ADMISSION_DEFAULTS = Object.freeze({
  /** REST body, in bytes actually received. */
  restBodyBytes: 64 * MiB,
  /** Highest REST body cap a route may configure. */
  restBodyBytesCeiling: 64 * MiB,
  /** MCP Streamable HTTP POST body. */
  mcpHttpBodyBytes: 4 * MiB,
  /** Highest MCP Streamable HTTP cap that may be configured. */
  mcpHttpBodyBytesCeiling: 64 * MiB,
  /** MCP stdio line, its line ending included. */
  stdioLineBytes: 64 * MiB,
  /** Highest stdio line cap that may be configured. */
  stdioLineBytesCeiling: 64 * MiB,
  /** One MCP tool result: text and structured content share this JSON budget. */
  toolResultBytes: 64 * MiB,
  /** Part of the tool result budget reserved for the JSON-RPC envelope. */
  toolResultEnvelopeReserveBytes: 1024,
  /** Strings are charged in chunks of at most this many UTF-16 code units. */
  stringChunkCodeUnits: 4096,
})

/** The names of the three JSON limits, for options interfaces that extend {@link JsonLimitsOptions}. */
export const JSON_LIMIT_KEYS = JSON_LIMITS.names

/**
 * Fills {@link JsonLimitsOptions} from {@link JSON_LIMITS_DEFAULTS}, validates each field
 * (positive safe integer; `maxDepth` may be 0 to admit only a scalar; only `undefined` means
 * the default) and freezes the result. It reads the three limits and nothing else, so the
 * options object of a function that bounds JSON can be passed whole. `undefined`, or an object
 * that sets none of the three, resolves to `JSON_LIMITS_DEFAULTS` itself, and an object this function returned before is returned as
 * it is, without validating it again, so a hot path that resolved once pays nothing per call.
 * `ceiling`, when given, caps what a caller may set, and is checked on every call, a resolved
 * object included.
 * @throws TypeError naming the limit: a limit that is negative, fractional, `NaN`, not a
 *   number or above `ceiling`, or `limits` that is not an object.
 */
export function resolveJsonLimits(
  limits: JsonLimitsOptions | undefined = undefined,
  ceiling: ResolvedJsonLimits | undefined = undefined,
): ResolvedJsonLimits {
  if (limits !== undefined && (typeof limits !== 'object' || limits === null)) {
    throw new TypeError('limits must be an object')
  }
  const resolved = JSON_LIMITS.pick(limits)
  if (ceiling !== undefined) {
    for (const key of JSON_LIMIT_KEYS) {
      if (resolved[key] > ceiling[key]) {
        throw new TypeError(`${key} may not exceed ${ceiling[key]}, got ${resolved[key]}`)
      }
    }
  }
  return resolved
}
