import { createResolvedBrand } from './resolved-brand.js'

/**
 * Structural limits on one JSON value. Every options interface that bounds JSON extends this
 * one, so the three limits are always top-level keys of the options object they belong to.
 */
export interface JsonLimitsOptions {
  /**
   * Most nodes admitted: each container, each scalar and each object key counts once
   * (`{"a":[1,2]}` is 5). A count equal to the limit is admitted. Default: 100,000.
   */
  readonly maxNodes?: number
  /**
   * Most nested containers admitted: a top-level scalar has depth 0, `[]` depth 1, `[[]]`
   * depth 2. A depth equal to the limit is admitted. Default: 64.
   */
  readonly maxDepth?: number
  /**
   * Largest compact UTF-8 JSON encoding admitted, in bytes (`JSON.stringify` with no spacing).
   * Default: 64 MiB.
   */
  readonly maxBytes?: number
}

/** {@link JsonLimitsOptions} after {@link resolveJsonLimits}: every field set, frozen. */
export type ResolvedJsonLimits = Readonly<Required<JsonLimitsOptions>>

const MiB = 1024 * 1024

/** The defaults: 100,000 nodes, 64 nested containers, 64 MiB. */
export const JSON_LIMITS_DEFAULTS: ResolvedJsonLimits = Object.freeze({
  maxNodes: 100_000,
  maxDepth: 64,
  maxBytes: 64 * MiB,
})

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

/**
 * Checks that `value` is a positive safe integer (or 0 when `allowZero`), for
 * use by every package that validates a numeric option once, at construction.
 * @throws TypeError naming the option, never its value's source.
 */
export function assertLimit(name: string, value: unknown, allowZero = false): number {
  // `Number.isSafeInteger` is false for every value that is not a number (no coercion), so it
  // is the type check too.
  if (!Number.isSafeInteger(value) || (value as number) < 0 || (value === 0 && !allowZero)) {
    throw new TypeError(
      `${name} must be a ${allowZero ? 'non-negative' : 'positive'} safe integer, got ${describe(value)}`,
    )
  }
  return value as number
}

/** The names of the three JSON limits, for options interfaces that extend {@link JsonLimitsOptions}. */
export const JSON_LIMIT_KEYS = Object.freeze(['maxNodes', 'maxDepth', 'maxBytes'] as const)

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value)
  return typeof value
}

const brand = createResolvedBrand<ResolvedJsonLimits>()
brand.mark(JSON_LIMITS_DEFAULTS)

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
  const resolved =
    limits === undefined ? JSON_LIMITS_DEFAULTS : brand.has(limits) ? limits : fill(limits)
  if (ceiling !== undefined) {
    for (const key of JSON_LIMIT_KEYS) {
      if (resolved[key] > ceiling[key]) {
        throw new TypeError(`${key} may not exceed ${ceiling[key]}, got ${resolved[key]}`)
      }
    }
  }
  return resolved
}

// Only `undefined` means "the default": a `null` or `0` is a configuration mistake to report.
function orDefault(value: unknown, fallback: number): unknown {
  return value === undefined ? fallback : value
}

function fill(limits: JsonLimitsOptions): ResolvedJsonLimits {
  if (typeof limits !== 'object' || limits === null) {
    throw new TypeError('limits must be an object')
  }
  const d = JSON_LIMITS_DEFAULTS
  // Options that set no limit are the defaults: no object is built or marked for them, so a
  // per-call `{ profile }` or `{}` costs nothing here.
  if (
    limits.maxNodes === undefined &&
    limits.maxDepth === undefined &&
    limits.maxBytes === undefined
  ) {
    return d
  }
  return brand.mark(
    Object.freeze({
      maxNodes: assertLimit('maxNodes', orDefault(limits.maxNodes, d.maxNodes)),
      maxDepth: assertLimit('maxDepth', orDefault(limits.maxDepth, d.maxDepth), true),
      maxBytes: assertLimit('maxBytes', orDefault(limits.maxBytes, d.maxBytes)),
    }),
  )
}
