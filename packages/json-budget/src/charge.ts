import { type JsonLimitsOptions, type ResolvedJsonLimits, resolveJsonLimits } from './limits.js'
import { type JsonCharge, walkJson } from './walk.js'

const STRICT = Object.freeze({ setsAsArrays: false, refuseSymbolKeys: false })

// The last limits object resolved here and the three values it held then. Resolving an object
// (validate, freeze, register) costs more than charging a small value, and a caller passing
// the same literal on every call is common; the values are compared on every call, so an
// object changed since is resolved again.
let lastInput: object | null = null
let lastNodes: unknown
let lastDepth: unknown
let lastBytes: unknown
let lastResolved: ResolvedJsonLimits | null = null

function resolveCached(limits: JsonLimitsOptions | undefined): ResolvedJsonLimits {
  if (limits !== undefined && limits !== null && typeof limits === 'object') {
    const { maxNodes, maxDepth, maxBytes } = limits
    if (
      limits === lastInput &&
      maxNodes === lastNodes &&
      maxDepth === lastDepth &&
      maxBytes === lastBytes
    ) {
      return lastResolved as ResolvedJsonLimits
    }
    const resolved = resolveJsonLimits(limits)
    lastInput = limits
    lastNodes = maxNodes
    lastDepth = maxDepth
    lastBytes = maxBytes
    lastResolved = resolved
    return resolved
  }
  return resolveJsonLimits(limits)
}

/**
 * Charges a parsed JSON value against {@link JsonLimitsOptions}: counts nodes (containers, scalars
 * and object keys), nesting depth and the exact length of its compact UTF-8 encoding, without
 * encoding it and without recursion.
 *
 * `bytes` equals `Buffer.byteLength(JSON.stringify(value))` for every value it admits. What it
 * does with values that are not JSON: an object property whose value is `undefined` is skipped,
 * exactly as `JSON.stringify` skips it, and symbol-keyed properties are ignored as stringify
 * ignores them; everything else stringify would transform or drop (`undefined` in an array or
 * alone, functions, symbols, `NaN`, `±Infinity`, `BigInt`, objects with `toJSON`, `Date`,
 * `Map`, `Set`, typed arrays, `Buffer`, class instances) is refused with
 * `ERR_JSON_UNSUPPORTED_VALUE`, never charged as something else.
 *
 * @param limits partial limits, filled from {@link JSON_LIMITS_DEFAULTS} (100,000 nodes,
 *   depth 64, 64 MiB).
 * @throws AdmissionError `ERR_JSON_TOO_DEEP` (cycles land here), `ERR_JSON_TOO_MANY_NODES`,
 *   `ERR_JSON_TOO_LARGE` (at the first 4,096-unit string chunk that crosses `maxBytes`),
 *   `ERR_JSON_UNSUPPORTED_VALUE`; each with `limit`, `observed` and a bounded `path`.
 * @throws TypeError when a limit is negative, fractional or NaN.
 */
export function chargeJson(value: unknown, limits?: JsonLimitsOptions): JsonCharge {
  const resolved = resolveCached(limits)
  const { nodes, depth, bytes } = walkJson(value, resolved, STRICT)
  return { nodes, depth, bytes }
}
