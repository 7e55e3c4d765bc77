// The counting oracle the differential tests judge the scanners and the chargers by: the
// definitions of nodes and depth, walked over a plain value, with none of the shortcuts the
// packages take (no unordered walk, no memo, no chunked strings, no limits to stop at).
// Bytes are left to `Buffer.byteLength(JSON.stringify(v))`, which is their definition.

/** Nodes and depth of a value, by the definitions the packages share. */
export interface JsonCount {
  /** Containers + scalars + object keys: `{"a":[1,2]}` is 5. */
  readonly nodes: number
  /** Nested containers: a scalar alone is 0, `[]` is 1, `[[]]` is 2. */
  readonly depth: number
}

/** How {@link countJson} reads a value that is not plain JSON. */
export interface JsonCountOptions {
  /** Count a `Set` as the array of its members (json-budget's `rest` profile). Default: `false`. */
  readonly setsAsArrays?: boolean
  /**
   * Count `NaN` and `±Infinity` as scalars, as a parsed value holds them (`JSON.parse` reads a
   * literal past the double range as `Infinity`). Default: `false`: they are not JSON.
   */
  readonly nonFiniteNumbers?: boolean
}

/**
 * Counts `value` as JSON: each array, plain object and (with `setsAsArrays`) `Set` is a
 * container and a node, each member a node, each own enumerable string key of an object a node,
 * except a key whose value is `undefined` (which `JSON.stringify` skips). Walked with an explicit
 * stack, so any depth is counted. Returns `null` when the value holds anything else that is not
 * a JSON scalar (a function, a symbol, a non-finite number unless `nonFiniteNumbers`, a bigint, `undefined` in an array,
 * a `Date`, a `Map`, an object whose prototype is not `Object.prototype` or `null`).
 */
export function countJson(value: unknown, options: JsonCountOptions = {}): JsonCount | null {
  const sets = options.setsAsArrays === true
  const nonFinite = options.nonFiniteNumbers === true
  let nodes = 0
  let depth = 0
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [v, level] = stack.pop()!
    nodes++
    if (v === null || typeof v === 'boolean' || typeof v === 'string') continue
    if (typeof v === 'number') {
      if (!nonFinite && !Number.isFinite(v)) return null
      continue
    }
    if (typeof v !== 'object') return null
    const members = membersOf(v, sets)
    if (members === null) return null
    if (level + 1 > depth) depth = level + 1
    for (const [key, member] of members) {
      if (key !== null) {
        if (member === undefined) continue
        nodes++
      } else if (member === undefined) return null
      stack.push([member, level + 1])
    }
  }
  return { nodes, depth }
}

/** The members of a container as `[key, value]` (`key` null in an array), or null if not one. */
function membersOf(v: object, sets: boolean): Array<[string | null, unknown]> | null {
  if (Array.isArray(v)) return v.map((m) => [null, m])
  if (v instanceof Set) return sets ? [...v].map((m) => [null, m]) : null
  const proto = Object.getPrototypeOf(v)
  if (proto !== Object.prototype && proto !== null) return null
  if ('toJSON' in v) return null
  return Object.keys(v).map((k) => [k, (v as Record<string, unknown>)[k]])
}
