import { numberByteLength } from './number-cost.js'
import { chargeString } from './string-cost.js'

/** How the walker treats values beyond plain JSON. */
export interface WalkMode {
  /** Lower `Set` to an array (the `rest` profile of `normalizeResult`). */
  readonly setsAsArrays: boolean
  /** Refuse objects that carry symbol keys (stringify would drop them silently). */
  readonly refuseSymbolKeys: boolean
}

/** {@link scalarCost}: the value is a non-null object, to be walked as a container. */
export const CONTAINER = -2
/** {@link scalarCost}: a string that does not fit the budget. */
export const OVER_BUDGET = -1
/** {@link scalarCost}: a value that is not JSON. */
export const UNSUPPORTED = -3

/**
 * Cost of a scalar in compact JSON, or a marker: {@link CONTAINER} for a non-null object,
 * {@link OVER_BUDGET} for a string that does not fit `budget`, {@link UNSUPPORTED} for a value
 * that is not JSON (`undefined`, functions, symbols, `BigInt`, non-finite numbers).
 */
export function scalarCost(value: unknown, budget: number): number {
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

/** {@link containerKind}: an object that is not JSON (refused). */
export const NOT_JSON = 0
/** {@link containerKind}: an array. */
export const ARRAY = 1
/** {@link containerKind}: a plain object (prototype `Object.prototype` or `null`). */
export const OBJECT = 2
/** {@link containerKind}: a `Set`, walked as an array in the `rest` profile. */
export const SET = 3

/**
 * What kind of container an object is for the walk, or {@link NOT_JSON}. An array's `toJSON` is
 * read with a property load (arrays come in a handful of shapes, so its cache holds); any other
 * object's with `Reflect.get`, the same [[Get]] (getters and proxy traps run alike) without the
 * cache: on records of thousands of distinct key sets that cache missed on nearly every object,
 * about 140 ns each, as much as the anchor spends on a whole record, where `Reflect.get` costs
 * about 11 ns (19,878 records of 2,601 key sets, Node 20).
 */
export function containerKind(target: Record<string, unknown>, mode: WalkMode): number {
  if (Array.isArray(target)) return typeof target.toJSON === 'function' ? NOT_JSON : ARRAY
  if (typeof Reflect.get(target, 'toJSON') === 'function') return NOT_JSON
  const proto = Object.getPrototypeOf(target)
  if (proto === Object.prototype || proto === null) {
    if (mode.refuseSymbolKeys && Object.getOwnPropertySymbols(target).length > 0) return NOT_JSON
    return OBJECT
  }
  if (mode.setsAsArrays && target instanceof Set) return SET
  return NOT_JSON
}
