import { AdmissionError } from './errors.js'
import type { JsonLimits } from './limits.js'
import { numberByteLength } from './number-cost.js'
import { formatPointer } from './pointer.js'
import { chargeString } from './string-cost.js'

/** What a value costs: nodes, nesting depth, and bytes of its compact UTF-8 JSON encoding. */
export interface JsonCharge {
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
export interface WalkResult extends JsonCharge {
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
export function walkJson(root: unknown, limits: Readonly<JsonLimits>, mode: WalkMode): WalkResult {
  const { maxNodes, maxDepth, maxBytes } = limits
  // Parallel stacks, one slot per open container: the container, its keys (null for an
  // array), the next index, and how many members were written (for commas between keys).
  const containers: unknown[] = []
  const keyLists: (string[] | null)[] = []
  const nextIndex: number[] = []
  const written: number[] = []
  let top = -1
  let nodes = 0
  let bytes = 0
  let depth = 0
  let sawSet = false

  const pathOf = (): string => {
    const segments: (string | number)[] = []
    for (let i = 0; i <= top; i++) {
      const at = nextIndex[i]! - 1
      if (at < 0) break
      const keys = keyLists[i]
      segments.push(keys === null || keys === undefined ? at : keys[at]!)
    }
    return formatPointer(segments)
  }
  const refuse = (
    code: 'ERR_JSON_TOO_DEEP' | 'ERR_JSON_TOO_MANY_NODES' | 'ERR_JSON_TOO_LARGE',
    limit: number,
    observed: number,
  ): never => {
    throw new AdmissionError(code, { limit, observed, path: pathOf() })
  }
  const unsupported = (): never => {
    throw new AdmissionError('ERR_JSON_UNSUPPORTED_VALUE', { path: pathOf() })
  }
  const chargeStr = (s: string): void => {
    const cost = chargeString(s, maxBytes - bytes)
    if (cost < 0) refuse('ERR_JSON_TOO_LARGE', maxBytes, bytes + s.length + 2)
    bytes += cost
  }
  const open = (container: unknown, keys: string[] | null, members: number): void => {
    if (top + 2 > maxDepth) refuse('ERR_JSON_TOO_DEEP', maxDepth, top + 2)
    // Each member costs at least one node (and each object member two): check before reading.
    if (nodes + (keys === null ? members : 0) > maxNodes) {
      refuse('ERR_JSON_TOO_MANY_NODES', maxNodes, nodes + members)
    }
    top++
    containers[top] = container
    keyLists[top] = keys
    nextIndex[top] = 0
    written[top] = 0
    if (top + 1 > depth) depth = top + 1
    // Brackets, and for an array its commas; an object's commas are charged per member
    // because members whose value is undefined are skipped, as stringify skips them.
    bytes += keys === null && members > 0 ? members + 1 : 2
  }

  let value: unknown = root
  let pending = true
  for (;;) {
    if (pending) {
      pending = false
      if (++nodes > maxNodes) refuse('ERR_JSON_TOO_MANY_NODES', maxNodes, nodes)
      switch (typeof value) {
        case 'string':
          chargeStr(value)
          break
        case 'number':
          if (!Number.isFinite(value)) unsupported()
          bytes += numberByteLength(value)
          break
        case 'boolean':
          bytes += value ? 4 : 5
          break
        case 'object': {
          if (value === null) {
            bytes += 4
            break
          }
          const target = value as Record<string, unknown>
          if (typeof target.toJSON === 'function') unsupported()
          if (Array.isArray(target)) {
            open(target, null, target.length)
            break
          }
          const proto = Object.getPrototypeOf(target)
          if (proto === Object.prototype || proto === null) {
            if (mode.refuseSymbolKeys && Object.getOwnPropertySymbols(target).length > 0) {
              unsupported()
            }
            open(target, Object.keys(target), 0)
          } else if (mode.setsAsArrays && target instanceof Set) {
            sawSet = true
            if (nodes + target.size > maxNodes) {
              refuse('ERR_JSON_TOO_MANY_NODES', maxNodes, nodes + target.size)
            }
            const members = Array.from(target)
            open(members, null, members.length)
          } else {
            unsupported()
          }
          break
        }
        default:
          // undefined, function, symbol, bigint: not JSON.
          unsupported()
      }
      if (bytes > maxBytes) refuse('ERR_JSON_TOO_LARGE', maxBytes, bytes)
    }

    // Find the next member to charge, closing finished containers.
    if (top < 0) break
    const container = containers[top] as Record<string, unknown> & unknown[]
    const keys = keyLists[top] as string[] | null
    let i = nextIndex[top]!
    if (keys === null) {
      if (i < container.length) {
        value = container[i]
        nextIndex[top] = i + 1
        if (value === undefined) unsupported()
        pending = true
        continue
      }
    } else {
      while (i < keys.length) {
        const key = keys[i++]!
        const member = container[key]
        if (member === undefined) continue
        nextIndex[top] = i
        if (++nodes > maxNodes) refuse('ERR_JSON_TOO_MANY_NODES', maxNodes, nodes)
        chargeStr(key)
        bytes += written[top]! > 0 ? 2 : 1
        written[top] = written[top]! + 1
        value = member
        pending = true
        break
      }
      if (pending) continue
    }
    containers[top] = undefined
    keyLists[top] = null
    top--
  }
  return { nodes, depth, bytes, sawSet }
}
