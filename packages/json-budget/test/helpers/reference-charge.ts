// Test-only reference: a frozen copy of the charging algorithm as it stood before the fast
// paths (walk.ts, string-cost.ts and number-cost.ts at commit 89ad8f2), so the differential
// properties compare today's chargeJson with the implementation it replaced.
import { AdmissionError } from '../../src/errors.js'
import {
  type JsonLimitsOptions,
  type ResolvedJsonLimits,
  resolveJsonLimits,
} from '../../src/limits.js'
import { formatPointer } from '../../src/pointer.js'

const STRICT = Object.freeze({ setsAsArrays: false, refuseSymbolKeys: false })

/** The charge of `value` as the replaced implementation computed it (same refusals). */
export function referenceCharge(
  value: unknown,
  limits?: JsonLimitsOptions,
): { nodes: number; depth: number; bytes: number } {
  const { nodes, depth, bytes } = referenceWalk(value, resolveJsonLimits(limits), STRICT)
  return { nodes, depth, bytes }
}

const POW10 = [
  1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
] as const

/**
 * Length of `JSON.stringify(n)` for a finite number: integers below 10^15 by comparison (no
 * string is built), everything else through `String(n)`, which is what stringify writes.
 * `-0` is written `0`.
 */
function numberByteLength(n: number): number {
  const a = n < 0 ? -n : n
  if (a < 1e15 && Number.isInteger(a)) {
    let digits = 1
    while (digits <= 15 && a >= POW10[digits - 1]!) digits++
    return n < 0 ? digits + 1 : digits
  }
  return String(n).length
}

/**
 * The byte cost of strings in compact JSON, computed without encoding them.
 *
 * `JSON.stringify` writes `"` and `\` as two bytes, `\b \t \n \f \r` as two, other C0
 * controls as six (`\u00XX`), a lone surrogate as six (`\uDXXX`, the well-formed stringify of
 * ES2019), a surrogate pair as four UTF-8 bytes, and everything else as its UTF-8 length
 * (U+2028 and U+2029 included: stringify leaves them raw).
 */

const CHUNK = 4096
const SHORT = 32
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/

type WellFormed = { isWellFormed(): boolean }

/** Exact cost of a short string, one code unit at a time. */
function shortCost(s: string): number {
  let cost = 2
  const n = s.length
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) {
      if (c >= 0x20) cost += c === 0x22 || c === 0x5c ? 2 : 1
      else cost += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6
    } else if (c < 0x800) {
      cost += 2
    } else if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        cost += 4
        i++
      } else {
        cost += 6
      }
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      cost += 6
    } else {
      cost += 3
    }
  }
  return cost
}

/** Bytes that escaping adds to the raw UTF-8 length of `s` (quotes, backslashes, controls). */
function escapeExtra(s: string): number {
  let extra = 0
  const n = s.length
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20) extra += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 1 : 5
    else if (c === 0x22 || c === 0x5c) extra += 1
  }
  return extra
}

/** Number of unpaired surrogates in `s`. */
function loneSurrogates(s: string): number {
  let lone = 0
  const n = s.length
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) i++
      else lone++
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      lone++
    }
  }
  return lone
}

/** Exact cost of one chunk without its quotes. */
function chunkCost(chunk: string): number {
  // Buffer.byteLength is the native UTF-8 length; it counts a lone surrogate as the three
  // bytes of U+FFFD, where stringify writes six, hence the correction below.
  let cost = Buffer.byteLength(chunk, 'utf8')
  if (NEEDS_ESCAPE.test(chunk)) cost += escapeExtra(chunk)
  if (!(chunk as unknown as WellFormed).isWellFormed()) cost += 3 * loneSurrogates(chunk)
  return cost
}

/**
 * Charges `s` as compact JSON, in chunks of at most 4,096 code units, and returns its cost
 * (quotes included), or -1 as soon as the running total passes `budget` bytes. A surrogate
 * pair that straddles a chunk edge moves whole into the next chunk, so it is charged once.
 * A string needs at least one byte per code unit, so one that cannot fit is refused without
 * reading it at all.
 */
function chargeString(s: string, budget: number): number {
  const n = s.length
  if (n + 2 > budget) return -1
  if (n <= SHORT) {
    const cost = shortCost(s)
    return cost > budget ? -1 : cost
  }
  let cost = 2
  let start = 0
  while (start < n) {
    let end = start + CHUNK
    if (end >= n) {
      end = n
    } else {
      const last = s.charCodeAt(end - 1)
      if (last >= 0xd800 && last <= 0xdbff) end--
    }
    cost += chunkCost(start === 0 && end === n ? s : s.slice(start, end))
    // What is left needs at least one byte per code unit.
    if (cost + (n - end) > budget) return -1
    start = end
  }
  return cost
}

/** What a value costs: nodes, nesting depth, and bytes of its compact UTF-8 JSON encoding. */
interface JsonCharge {
  /** Containers + scalars + object keys. */
  readonly nodes: number
  /** Deepest container nesting (a scalar alone is 0). */
  readonly depth: number
  /** `Buffer.byteLength(JSON.stringify(value))`, computed without encoding. */
  readonly bytes: number
}

/** How the walker treats values beyond plain JSON. */
export interface WalkMode {
  /** Lower `Set` to an array (the `rest` profile of `normalizeResult`). */
  readonly setsAsArrays: boolean
  /** Refuse objects that carry symbol keys (stringify would drop them silently). */
  readonly refuseSymbolKeys: boolean
}

/** Result of a walk: the charge, and whether any `Set` was seen (so a copy must lower it). */
interface WalkResult extends JsonCharge {
  readonly sawSet: boolean
}

/**
 * Walks `root` iteratively (an explicit stack bounded by `maxDepth`, so no recursion and no
 * stack overflow at any depth) and charges it. Containers are measured before iteration: an
 * array whose length alone passes the node budget is refused without reading an element.
 * A value reached twice by reference is charged twice; a cycle keeps nesting until it passes
 * `maxDepth` and is refused there, never followed further.
 * @throws AdmissionError ERR_JSON_TOO_DEEP, ERR_JSON_TOO_MANY_NODES, ERR_JSON_TOO_LARGE,
 *   ERR_JSON_UNSUPPORTED_VALUE, with a bounded JSON Pointer `path`.
 */
/** The replaced walk, with its modes (used by normalizeResult too). */
export function referenceWalk(
  root: unknown,
  limits: ResolvedJsonLimits,
  mode: WalkMode,
): WalkResult {
  const { maxNodes, maxDepth, maxBytes } = limits
  // Parallel stacks, one slot per open container: the container, its keys (null for an
  // array), the next index, and how many members were written (for commas between keys).
  // The counters below are plain locals that no closure captures, so they stay in registers
  // in the hot loops (a captured variable lives in a heap context: 3-4x slower here).
  const containers: unknown[] = []
  const keyLists: (string[] | null)[] = []
  const nextIndex: number[] = []
  const written: number[] = []
  let top = -1
  let nodes = 1
  let bytes = 0
  let depth = 0
  let sawSet = false

  if (nodes > maxNodes) fail(TOO_MANY, maxNodes, nodes, keyLists, nextIndex, top)
  const rootCost = scalarCost(root, maxBytes)
  if (rootCost >= 0) {
    if (rootCost > maxBytes) fail(TOO_LARGE, maxBytes, rootCost, keyLists, nextIndex, top)
    return { nodes, depth, bytes: rootCost, sawSet }
  }
  if (rootCost === OVER_BUDGET) {
    fail(TOO_LARGE, maxBytes, (root as string).length + 2, keyLists, nextIndex, top)
  }
  if (rootCost === UNSUPPORTED) fail(UNSUPPORTED_CODE, 0, 0, keyLists, nextIndex, top)
  let entering: object | null = root as object

  for (;;) {
    if (entering !== null) {
      const target = entering as Record<string, unknown>
      entering = null
      const kind = containerKind(target, mode)
      if (kind === NOT_JSON) fail(UNSUPPORTED_CODE, 0, 0, keyLists, nextIndex, top)
      let members: unknown[] | null = null
      let keys: string[] | null = null
      if (kind === ARRAY) {
        members = target as unknown as unknown[]
      } else if (kind === OBJECT) {
        keys = Object.keys(target)
      } else {
        const set = target as unknown as Set<unknown>
        sawSet = true
        if (nodes + set.size > maxNodes) {
          fail(TOO_MANY, maxNodes, nodes + set.size, keyLists, nextIndex, top)
        }
        members = Array.from(set)
      }
      if (top + 2 > maxDepth) fail(TOO_DEEP, maxDepth, top + 2, keyLists, nextIndex, top)
      // Each array member costs at least one node: check the length before reading any.
      if (members !== null && nodes + members.length > maxNodes) {
        fail(TOO_MANY, maxNodes, nodes + members.length, keyLists, nextIndex, top)
      }
      top++
      containers[top] = members ?? target
      keyLists[top] = keys
      nextIndex[top] = 0
      written[top] = 0
      if (top + 1 > depth) depth = top + 1
      // Brackets, and for an array its commas; an object's commas are charged per member
      // because members whose value is undefined are skipped, as stringify skips them.
      bytes += members !== null && members.length > 0 ? members.length + 1 : 2
      if (bytes > maxBytes) fail(TOO_LARGE, maxBytes, bytes, keyLists, nextIndex, top)
    }
    if (top < 0) break

    const keys = keyLists[top] as string[] | null
    let i = nextIndex[top]!
    if (keys === null) {
      const items = containers[top] as unknown[]
      const n = items.length
      while (i < n) {
        const item = items[i++]
        nodes++
        const cost = scalarCost(item, maxBytes - bytes)
        if (cost >= 0 && nodes <= maxNodes) {
          bytes += cost
          if (bytes <= maxBytes) continue
        }
        nextIndex[top] = i
        if (nodes > maxNodes) fail(TOO_MANY, maxNodes, nodes, keyLists, nextIndex, top)
        if (cost === CONTAINER) {
          entering = item as object
          break
        }
        const seen = cost === OVER_BUDGET ? bytes + (item as string).length + 2 : bytes
        if (cost === UNSUPPORTED) fail(UNSUPPORTED_CODE, 0, 0, keyLists, nextIndex, top)
        fail(TOO_LARGE, maxBytes, seen, keyLists, nextIndex, top)
      }
    } else {
      const record = containers[top] as Record<string, unknown>
      const n = keys.length
      let count = written[top]!
      while (i < n) {
        const key = keys[i++]!
        const member = record[key]
        if (member === undefined) continue
        nodes += 2
        const keyCost = chargeString(key, maxBytes - bytes)
        // The colon, and a comma before every member but the first.
        bytes += keyCost + (count > 0 ? 2 : 1)
        count++
        const cost = keyCost < 0 ? OVER_BUDGET : scalarCost(member, maxBytes - bytes)
        if (cost >= 0 && nodes <= maxNodes) {
          bytes += cost
          if (bytes <= maxBytes) continue
        }
        nextIndex[top] = i
        written[top] = count
        if (nodes > maxNodes) fail(TOO_MANY, maxNodes, nodes, keyLists, nextIndex, top)
        if (cost === CONTAINER) {
          entering = member as object
          break
        }
        const seen =
          keyCost < 0
            ? bytes + key.length + 2
            : cost === OVER_BUDGET
              ? bytes + (member as string).length + 2
              : bytes
        if (cost === UNSUPPORTED) fail(UNSUPPORTED_CODE, 0, 0, keyLists, nextIndex, top)
        fail(TOO_LARGE, maxBytes, seen, keyLists, nextIndex, top)
      }
      written[top] = count
    }
    if (entering !== null) continue
    containers[top] = undefined
    keyLists[top] = null
    top--
  }
  return { nodes, depth, bytes, sawSet }
}

const CONTAINER = -2
const OVER_BUDGET = -1
const UNSUPPORTED = -3

/**
 * Cost of a scalar in compact JSON, or a marker: {@link CONTAINER} for a non-null object,
 * {@link OVER_BUDGET} for a string that does not fit `budget`, {@link UNSUPPORTED} for a value
 * that is not JSON (`undefined`, functions, symbols, `BigInt`, non-finite numbers).
 */
function scalarCost(value: unknown, budget: number): number {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? numberByteLength(value) : UNSUPPORTED
    case 'string':
      return chargeString(value, budget)
    case 'boolean':
      return value ? 4 : 5
    case 'object':
      return value === null ? 4 : CONTAINER
    default:
      return UNSUPPORTED
  }
}

const NOT_JSON = 0
const ARRAY = 1
const OBJECT = 2
const SET = 3

/** What kind of container an object is for the walk, or {@link NOT_JSON}. */
function containerKind(target: Record<string, unknown>, mode: WalkMode): number {
  if (typeof target.toJSON === 'function') return NOT_JSON
  if (Array.isArray(target)) return ARRAY
  const proto = Object.getPrototypeOf(target)
  if (proto === Object.prototype || proto === null) {
    if (mode.refuseSymbolKeys && Object.getOwnPropertySymbols(target).length > 0) return NOT_JSON
    return OBJECT
  }
  if (mode.setsAsArrays && target instanceof Set) return SET
  return NOT_JSON
}

const TOO_DEEP = 'ERR_JSON_TOO_DEEP'
const TOO_MANY = 'ERR_JSON_TOO_MANY_NODES'
const TOO_LARGE = 'ERR_JSON_TOO_LARGE'
const UNSUPPORTED_CODE = 'ERR_JSON_UNSUPPORTED_VALUE'

/** Throws the refusal with the bounded JSON Pointer of the place the walk stopped. */
function fail(
  code: typeof TOO_DEEP | typeof TOO_MANY | typeof TOO_LARGE | typeof UNSUPPORTED_CODE,
  limit: number,
  observed: number,
  keyLists: readonly (string[] | null)[],
  nextIndex: readonly number[],
  top: number,
): never {
  const segments: (string | number)[] = []
  for (let i = 0; i <= top; i++) {
    const at = nextIndex[i]! - 1
    if (at < 0) break
    const keys = keyLists[i]
    segments.push(keys === null || keys === undefined ? at : keys[at]!)
  }
  const path = formatPointer(segments)
  if (code === UNSUPPORTED_CODE) throw new AdmissionError(code, { path })
  // A string refused early is reported by a lower bound (its length plus quotes); a size
  // refusal is only made past the limit, so limit + 1 is a lower bound too: report the larger.
  const seen = code === TOO_LARGE && observed <= limit ? limit + 1 : observed
  throw new AdmissionError(code, { limit, observed: seen, path })
}
