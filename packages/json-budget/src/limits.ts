/** Structural limits on one JSON value. Every function that takes limits takes a partial object. */
export interface JsonLimits {
  /**
   * Most nodes admitted: each container, each scalar and each object key counts once
   * (`{"a":[1,2]}` is 5). A count equal to the limit is admitted. Default: 100,000.
   */
  readonly maxNodes: number
  /**
   * Most nested containers admitted: a top-level scalar has depth 0, `[]` depth 1, `[[]]`
   * depth 2. A depth equal to the limit is admitted. Default: 64.
   */
  readonly maxDepth: number
  /**
   * Largest compact UTF-8 JSON encoding admitted, in bytes (`JSON.stringify` with no spacing).
   * Default: 64 MiB.
   */
  readonly maxBytes: number
}

const MiB = 1024 * 1024

/** The defaults: 100,000 nodes, 64 nested containers, 64 MiB. */
export const DEFAULT_JSON_LIMITS: Readonly<JsonLimits> = Object.freeze({
  maxNodes: 100_000,
  maxDepth: 64,
  maxBytes: 64 * MiB,
})

/**
 * The byte boundaries of DESIGN.md in one place, so every package reads the same figures.
 * A policy may lower any of them; none may be raised past its `*Ceiling`.
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
  if (
    typeof value !== 'number' ||
    !Number.isSafeInteger(value) ||
    value < 0 ||
    (value === 0 && !allowZero)
  ) {
    throw new TypeError(
      `${name} must be a ${allowZero ? 'non-negative' : 'positive'} safe integer, got ${describe(value)}`,
    )
  }
  return value
}

// Only `undefined` means "the default": a `null` or `0` is a configuration mistake to report.
function orDefault(value: unknown, fallback: number): unknown {
  return value === undefined ? fallback : value
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value)
  return typeof value
}

/**
 * Fills a partial {@link JsonLimits} from {@link DEFAULT_JSON_LIMITS}, validates each field
 * (positive safe integer; `maxDepth` may be 0 to admit only a scalar) and freezes the
 * result. `ceiling`, when given, caps what a caller may raise.
 * @throws TypeError on a negative, non-integer, NaN or over-ceiling limit.
 */
export function resolveLimits(
  limits: Partial<JsonLimits> = {},
  ceiling: Readonly<JsonLimits> | undefined = undefined,
): Readonly<JsonLimits> {
  if (typeof limits !== 'object' || limits === null) {
    throw new TypeError('limits must be an object')
  }
  const out = {
    maxNodes: assertLimit('maxNodes', orDefault(limits.maxNodes, DEFAULT_JSON_LIMITS.maxNodes)),
    maxDepth: assertLimit(
      'maxDepth',
      orDefault(limits.maxDepth, DEFAULT_JSON_LIMITS.maxDepth),
      true,
    ),
    maxBytes: assertLimit('maxBytes', orDefault(limits.maxBytes, DEFAULT_JSON_LIMITS.maxBytes)),
  }
  if (ceiling !== undefined) {
    for (const key of ['maxNodes', 'maxDepth', 'maxBytes'] as const) {
      if (out[key] > ceiling[key]) {
        throw new TypeError(`${key} may not exceed ${ceiling[key]}, got ${out[key]}`)
      }
    }
  }
  const frozen = Object.freeze(out)
  RESOLVED.add(frozen)
  return frozen
}

// Limits objects this module validated and froze: passing one back skips validation, so a hot
// path that resolves its limits once at construction pays nothing per call.
const RESOLVED = new WeakSet<object>()
RESOLVED.add(DEFAULT_JSON_LIMITS)

/**
 * {@link resolveLimits}, except that an object `resolveLimits` already returned (or
 * `DEFAULT_JSON_LIMITS`, or `undefined`) is used as it is, without validating it again.
 */
export function ensureLimits(limits: Partial<JsonLimits> | undefined): Readonly<JsonLimits> {
  if (limits === undefined) return DEFAULT_JSON_LIMITS
  if (RESOLVED.has(limits)) return limits as Readonly<JsonLimits>
  return resolveLimits(limits)
}
