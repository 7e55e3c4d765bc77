import { JSON_LIMITS } from './limits.js'
import { defineOptions, type OptionsOf, option } from './option-table.js'
import { oneOfOption } from './option-validators.js'
import { walkJson } from './walk.js'

/** Which transport a result is normalized for. */
export type ResultProfile = 'rest' | 'mcp'

/**
 * The options of {@link normalizeResult}, declared once: the profile (required) and the JSON
 * limits, whose defaults are `JSON_LIMITS`' (100,000 nodes, depth 64, 64 MiB).
 */
export const NORMALIZE_RESULT_OPTIONS = defineOptions('normalizeResult', {
  profile: option<ResultProfile | undefined>({
    default: undefined,
    check: oneOfOption(['rest', 'mcp']),
    shown: 'required',
    doc: "`'rest'` lowers a `Set` to an array; `'mcp'` refuses it like any other non-JSON value",
  }),
  ...JSON_LIMITS.rows,
})

/** Options of {@link normalizeResult} (see {@link NORMALIZE_RESULT_OPTIONS}); `profile` is required. */
export type NormalizeResultOptions = OptionsOf<typeof NORMALIZE_RESULT_OPTIONS.rows> & {
  readonly profile: ResultProfile
}

/** A normalized result: the value to encode and what it costs. */
export interface NormalizedResult {
  /** The admitted value: the input itself, or a copy with each `Set` lowered to an array. */
  readonly value: unknown
  readonly nodes: number
  readonly depth: number
  /** Exact length of its compact UTF-8 JSON encoding. */
  readonly bytes: number
}

const PROFILES = {
  rest: Object.freeze({ setsAsArrays: true, refuseSymbolKeys: true }),
  mcp: Object.freeze({ setsAsArrays: false, refuseSymbolKeys: true }),
} as const

/**
 * Admits a handler's result before it is handed to an encoder: finite JSON scalars, arrays
 * and plain objects (prototype `Object.prototype` or `null`) with string keys, under the same
 * graph limits as {@link chargeJson} (cycles refused as too deep). Object properties whose
 * value is `undefined` are left out, as `JSON.stringify` leaves them out. In the `rest`
 * profile a `Set` becomes an array.
 * Everything else — `NaN`, `±Infinity`, `BigInt`, functions, symbols and symbol keys, `Map`,
 * `Date`, typed arrays, `Buffer`, promises, errors, class instances, objects with `toJSON`,
 * `undefined` in an array — is refused with `ERR_JSON_UNSUPPORTED_VALUE` and a bounded JSON
 * Pointer `path` to the first offender, rather than handed to a generic encoder that would
 * silently change it. It checks the transport value, not a declared return type.
 * @throws AdmissionError as above, or the graph-limit codes of `chargeJson`.
 * @throws TypeError on a missing or unknown `profile`, an unknown option (the nested `limits`
 *   of earlier versions among them, so limits are never silently dropped) or a bad limit.
 */
export function normalizeResult(value: unknown, options: NormalizeResultOptions): NormalizedResult {
  // The resolved object holds the three limits, so it is the walk's limits as it is.
  const o = NORMALIZE_RESULT_OPTIONS.resolve(options)
  if (o.profile === undefined)
    throw new TypeError("normalizeResult: profile must be 'rest' or 'mcp'")
  const walked = walkJson(value, o, PROFILES[o.profile])
  const out = walked.sawSet ? lowerSets(value) : value
  return { value: out, nodes: walked.nodes, depth: walked.depth, bytes: walked.bytes }
}

/**
 * Copies an already-admitted value with every `Set` replaced by an array. Iterative, like the
 * walk that admitted it; only called after the walk, so the graph is known to be bounded.
 */
function lowerSets(root: unknown): unknown {
  const copy = (v: unknown): unknown => {
    if (v instanceof Set) return Array.from(v)
    if (Array.isArray(v)) return v.slice()
    if (typeof v === 'object' && v !== null) return { ...(v as Record<string, unknown>) }
    return v
  }
  const out = copy(root)
  const stack: unknown[] = [out]
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown> | unknown[]
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const next = copy(node[i])
        node[i] = next
        if (typeof next === 'object' && next !== null) stack.push(next)
      }
    } else {
      for (const key of Object.keys(node)) {
        if (node[key] === undefined) {
          delete node[key]
          continue
        }
        const next = copy(node[key])
        node[key] = next
        if (typeof next === 'object' && next !== null) stack.push(next)
      }
    }
  }
  return out
}
