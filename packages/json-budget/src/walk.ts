import { admissionError } from './codes.js'
import { fastWalk } from './fast-walk.js'
import type { ResolvedJsonLimits } from './limits.js'
import { formatPointer } from './pointer.js'
import { chargeString } from './string-cost.js'
import {
  ARRAY,
  CONTAINER,
  containerKind,
  NOT_JSON,
  OBJECT,
  OVER_BUDGET,
  scalarCost,
  UNSUPPORTED,
  type WalkMode,
} from './value-kind.js'

export type { WalkMode } from './value-kind.js'

/** What a value costs: nodes, nesting depth, and bytes of its compact UTF-8 JSON encoding. */
export interface JsonCharge {
  /** Containers + scalars + object keys. */
  readonly nodes: number
  /** Deepest container nesting (a scalar alone is 0). */
  readonly depth: number
  /** `Buffer.byteLength(JSON.stringify(value))`, computed without encoding. */
  readonly bytes: number
}

/** Result of a walk: the charge, and whether any `Set` was seen (so a copy must lower it). */
export interface WalkResult extends JsonCharge {
  readonly sawSet: boolean
}

/**
 * Walks `root` iteratively (explicit stacks, so no recursion and no stack overflow at any
 * depth) and charges it: first by the unordered {@link fastWalk}, and when that gives up, by
 * the ordered walk (a stack bounded by `maxDepth`), which makes every refusal. Containers are measured before iteration: an
 * array whose length alone passes the node budget is refused without reading an element.
 * A value reached twice by reference is charged twice; a cycle keeps nesting until it passes
 * `maxDepth` and is refused there, never followed further.
 * @throws AdmissionError ERR_JSON_TOO_DEEP, ERR_JSON_TOO_MANY_NODES, ERR_JSON_TOO_LARGE,
 *   ERR_JSON_UNSUPPORTED_VALUE, with a bounded JSON Pointer `path`.
 */
export function walkJson(root: unknown, limits: ResolvedJsonLimits, mode: WalkMode): WalkResult {
  // An admissible value takes the unordered fast walk; anything it gives up on is walked
  // again in document order, which finds the first offender, its path and `observed`.
  if (typeof root === 'object' && root !== null) {
    const fast = fastWalk(root, limits, mode)
    if (fast !== null) return fast
  }
  return walkInOrder(root, limits, mode)
}

/** The ordered walk: the same totals, and the exact place of the first refusal. */
function walkInOrder(root: unknown, limits: ResolvedJsonLimits, mode: WalkMode): WalkResult {
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
  if (code === UNSUPPORTED_CODE) throw admissionError(code, { path })
  // A string refused early is reported by a lower bound (its length plus quotes); a size
  // refusal is only made past the limit, so limit + 1 is a lower bound too: report the larger.
  const seen = code === TOO_LARGE && observed <= limit ? limit + 1 : observed
  throw admissionError(code, { limit, observed: seen, path })
}
