import type { ResolvedJsonLimits } from './limits.js'
import { int32Digits, integerLength } from './number-cost.js'
import { chargeString, shortStringCost } from './string-cost.js'
import {
  ARRAY,
  CONTAINER,
  containerKind,
  NOT_JSON,
  OBJECT,
  scalarCost,
  type WalkMode,
} from './value-kind.js'

/** The totals of a walk that admitted its value. */
export interface FastWalkResult {
  readonly nodes: number
  readonly depth: number
  readonly bytes: number
  readonly sawSet: boolean
}

/**
 * Charges an admissible value without keeping document order, or returns `null` as soon as
 * anything would be refused (a limit crossed, a value that is not JSON), so that the ordered
 * walk can find the exact place, code and `observed` of the refusal.
 *
 * Why this is sound: nodes, bytes and depth of an admitted value do not depend on the order
 * they are counted in, and every running total only grows, so a value whose totals fit is
 * admitted by the ordered walk too, with the same totals. Every check the ordered walk makes
 * is a lower bound of a final total (an array's length before its members, a string's length
 * before its units, each 4,096-unit chunk), so it refuses exactly when a total does not fit,
 * which is when this walk gives up. The work here is bounded as the ordered walk's is: each
 * total is checked as it grows and the walk stops past a limit; a string that cannot fit is
 * given up on without reading it; an array is given up on from its length.
 *
 * Why it is faster: an object is charged in one pass over its members, its child containers
 * set aside on a stack (one slot per pending container, each a counted node, so the stack is
 * bounded by `maxNodes`), and its members are read with `for…in`: V8 then loads each value
 * through the object's enumeration cache instead of a keyed lookup, and allocates no key
 * array. An array is walked depth first instead: at a member that is a container the walk
 * leaves a slot to resume the array after it, so an array of 76,000 records keeps two slots,
 * not 76,000 (growing that stack was a tenth of the records shape). No recursion: nesting of
 * any depth costs stack slots, not frames. Keys and strings of up to 32 units are costed by
 * {@link shortStringCost} in the loop (one pass, a table load a unit), and a key met at the same
 * position as in the previous object is charged from {@link KEY_MEMO} without reading it.
 */
export function fastWalk(
  root: object,
  limits: ResolvedJsonLimits,
  mode: WalkMode,
): FastWalkResult | null {
  const { maxNodes, maxDepth, maxBytes } = limits
  // for…in also enumerates inherited enumerable properties; the plain objects walked here
  // inherit only from Object.prototype, so when it has none, for…in sees exactly the own
  // enumerable string keys, in Object.keys order. Checked again at the end in case a getter
  // changed it during the walk.
  if (maxDepth < 1 || maxNodes < 1 || inheritsEnumerable()) return null
  // Parallel stacks: the container, its nesting level, and for an array left at a member that
  // is a container, the index to resume at (0: not entered yet).
  const pending: object[] = [root]
  const levels: number[] = [1]
  const resume: number[] = [0]
  let top = 0
  let nodes = 1
  let bytes = 0
  let depth = 0
  let sawSet = false
  // Numbers that are not integers below 10^21 (fractions, exponents) wait here, each charged
  // one byte for now, and are measured a batch at a time with one JSON.stringify of the batch;
  // see batchBytes. Allocated on the first such number; per call, so a re-entrant call is safe.
  let batch: number[] | null = null
  let batched = 0
  // Integers past int32 and below 10^21 are counted by comparisons, not batched: a single large
  // integer in a small document cost a stringify of its batch (a third of a 64 B document).
  let digits = 0

  while (top >= 0) {
    const target = pending[top] as Record<string, unknown>
    const level = levels[top]!
    let i = resume[top]!
    pending[top] = EMPTY
    top--
    if (level > depth) depth = level
    let members: unknown[]
    let n: number
    if (i > 0) {
      // An array resumed after a container member: it was measured when entered.
      members = target as unknown as unknown[]
      n = members.length
    } else {
      const kind = containerKind(target, mode)
      if (kind === NOT_JSON) return null
      if (kind === OBJECT) {
        // Braces; the colon and a comma before every member but the first are charged per
        // member, as undefined-valued members are skipped, as stringify skips them.
        bytes += 2
        let comma = 0
        let slot = 0
        for (const key in target) {
          const member = target[key]
          if (member === undefined) continue
          nodes += 2
          let keyCost: number
          if (slot < KEY_MEMO_SLOTS && KEY_MEMO.keys[slot] === key) {
            keyCost = KEY_MEMO.costs[slot]!
          } else {
            keyCost = shortStringCost(key)
            if (keyCost < 0) keyCost = chargeString(key, maxBytes - bytes)
            if (keyCost < 0) return null
            if (slot < KEY_MEMO_SLOTS && key.length <= KEY_MEMO_UNITS) {
              KEY_MEMO.keys[slot] = key
              KEY_MEMO.costs[slot] = keyCost
            }
          }
          slot++
          bytes += keyCost + 1 + comma
          comma = 1
          if (typeof member === 'number') {
            if ((member | 0) === member) {
              bytes += member >= 0 ? int32Digits(member) : int32Digits(-member) + 1
            } else if ((digits = integerLength(member)) > 0) {
              bytes += digits
            } else {
              if (!Number.isFinite(member)) return null
              if (batch === null) batch = []
              batch[batched++] = member
              bytes++
              if (batched === BATCH) {
                bytes += batchBytes(batch, batched) - batched
                batched = 0
              }
            }
          } else if (typeof member === 'string') {
            let cost = shortStringCost(member)
            if (cost < 0) cost = chargeString(member, maxBytes - bytes)
            if (cost < 0) return null
            bytes += cost
          } else {
            const cost = scalarCost(member, maxBytes - bytes)
            if (cost >= 0) {
              bytes += cost
            } else if (cost === CONTAINER) {
              if (level >= maxDepth) return null
              top++
              pending[top] = member as object
              levels[top] = level + 1
              resume[top] = 0
            } else {
              return null
            }
          }
          if (bytes > maxBytes || nodes > maxNodes) return null
        }
        // An object without members is checked here: its braces alone may not fit.
        if (bytes > maxBytes) return null
        continue
      }
      if (kind === ARRAY) {
        members = target as unknown as unknown[]
      } else {
        const set = target as unknown as Set<unknown>
        sawSet = true
        if (nodes + set.size > maxNodes) return null
        members = Array.from(set)
      }
      n = members.length
      // Each member costs at least one node: give up from the length before reading any.
      nodes += n
      if (nodes > maxNodes) return null
      bytes += n > 0 ? n + 1 : 2
      if (bytes > maxBytes) return null
    }
    for (; i < n; i++) {
      const member = members[i]
      // Arrays of small integers are common and long: their digits are counted here, before
      // the general scalar dispatch (measured: the 1M-integer shape 0.51-0.58 -> 0.27-0.32
      // of the anchor once the walk has also seen objects and strings).
      if (typeof member === 'number') {
        if ((member | 0) === member) {
          bytes += member >= 0 ? int32Digits(member) : int32Digits(-member) + 1
        } else if ((digits = integerLength(member)) > 0) {
          bytes += digits
        } else {
          if (!Number.isFinite(member)) return null
          if (batch === null) batch = []
          batch[batched++] = member
          bytes++
          if (batched === BATCH) {
            bytes += batchBytes(batch, batched) - batched
            batched = 0
          }
        }
      } else if (typeof member === 'string') {
        let cost = shortStringCost(member)
        if (cost < 0) cost = chargeString(member, maxBytes - bytes)
        if (cost < 0) return null
        bytes += cost
      } else {
        const cost = scalarCost(member, maxBytes - bytes)
        if (cost >= 0) {
          bytes += cost
        } else if (cost === CONTAINER) {
          if (level >= maxDepth) return null
          // Depth first: resume this array after the member (a Set resumes its copy).
          if (i + 1 < n) {
            top++
            pending[top] = members
            levels[top] = level
            resume[top] = i + 1
          }
          top++
          pending[top] = member as object
          levels[top] = level + 1
          resume[top] = 0
          break
        } else {
          return null
        }
      }
      if (bytes > maxBytes) return null
    }
  }
  if (batched > 0) {
    bytes += batchBytes(batch as number[], batched) - batched
    if (bytes > maxBytes) return null
  }
  if (inheritsEnumerable()) return null
  return { nodes, depth, bytes, sawSet }
}

// The key memo: slot i holds the key last charged as the i-th member of an object, and its
// cost. Records share their keys in the same order, and for…in hands out the same interned
// key strings, so the check is one comparison of identical strings. Module-wide so a call
// allocates nothing for it; consistent under re-entrance (a getter that calls chargeJson)
// because each key and its cost are written together with no user code between, and a cost
// depends only on its key. Only keys of at most 12 units are kept: V8 copies strings that
// short instead of slicing them, so the memo never holds a large string alive.
const KEY_MEMO_SLOTS = 16
const KEY_MEMO_UNITS = 12
// Every slot starts as the empty key with its cost, `""`: the memo never holds a wrong pair.
const KEY_MEMO = {
  keys: Array.from({ length: KEY_MEMO_SLOTS }, () => ''),
  costs: Array.from({ length: KEY_MEMO_SLOTS }, () => 2),
}

// Numbers measured per batch: bounds the batch's memory (32 KiB of doubles, a string of at
// most ~100 KB) and how far the running total may lag behind the exact one.
const BATCH = 4096

/**
 * Total length of the first `count` numbers of `batch` as stringify writes them. One
 * `JSON.stringify` of an array of finite numbers is `[`, each number as `String(n)` writes it,
 * commas, `]`; V8 formats them into its output buffer without a string per number, which
 * measured 5.2 ms where 76,000 `String(n)` calls took 9.3 ms. A `toJSON` reachable from the
 * batch array (a polluted prototype) would change what stringify writes: then each number is
 * measured on its own.
 */
function batchBytes(batch: number[], count: number): number {
  if (batch.length !== count) batch.length = count
  if (typeof (batch as unknown as { toJSON?: unknown }).toJSON === 'function') {
    let total = 0
    for (let i = 0; i < count; i++) total += String(batch[i]).length
    return total
  }
  return JSON.stringify(batch).length - count - 1
}

// What a consumed stack slot holds, so the stack keeps no reference to a walked value.
const EMPTY = {}

/** Whether `Object.prototype` has an enumerable string-keyed property (polluted). */
function inheritsEnumerable(): boolean {
  for (const _ in EMPTY) return true
  return false
}
