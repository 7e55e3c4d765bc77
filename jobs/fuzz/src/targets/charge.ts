import { chargeJson, isAdmissionError } from '@tollgate/json-budget'
import { anyJsonValue } from '../arbitraries.js'
import type { FuzzTarget } from '../target.js'

/** The charger under test. Replaceable so a test can plant a bug. */
export type ChargeImpl = (value: unknown, limits?: { maxBytes?: number }) => { bytes: number }

/**
 * `chargeJson(v).bytes` must be exactly `Buffer.byteLength(JSON.stringify(v))`, and a byte
 * limit must admit at that figure and refuse one below it with ERR_JSON_TOO_LARGE.
 */
export function judgeCharge(impl: ChargeImpl, value: unknown): string | undefined {
  const expected = Buffer.byteLength(JSON.stringify(value) ?? '')
  let bytes: number
  try {
    bytes = impl(value, { maxBytes: 2 ** 40 }).bytes
  } catch (error) {
    return `refused a plain JSON value: ${isAdmissionError(error) ? error.code : String(error)}`
  }
  if (bytes !== expected) return `charged ${bytes} bytes, JSON.stringify encodes ${expected}`
  try {
    impl(value, { maxBytes: expected })
  } catch (error) {
    return `refused at maxBytes equal to its size (${expected}): ${isAdmissionError(error) ? error.code : String(error)}`
  }
  if (expected > 1) {
    try {
      impl(value, { maxBytes: expected - 1 })
      return `admitted at maxBytes ${expected - 1}, one below its size`
    } catch (error) {
      if (!isAdmissionError(error) || error.code !== 'ERR_JSON_TOO_LARGE') {
        return `one byte over: expected ERR_JSON_TOO_LARGE, got ${isAdmissionError(error) ? error.code : String(error)}`
      }
    }
  }
  return undefined
}

// Corpus form: JSON with tags for what JSON cannot carry (undefined, -0). Lone surrogates
// survive JSON.stringify/JSON.parse as \u escapes.
type Tagged =
  | null
  | boolean
  | number
  | string
  | Tagged[]
  | { $obj: [string, Tagged][] }
  | { $undefined: true }
  | { $num: string }

export function encodeValue(value: unknown): Tagged {
  if (value === undefined) return { $undefined: true }
  if (typeof value === 'number') return Object.is(value, -0) ? { $num: '-0' } : value
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value
  if (Array.isArray(value)) return value.map(encodeValue)
  return { $obj: Object.entries(value as object).map(([k, v]) => [k, encodeValue(v)]) }
}

export function decodeValue(tagged: unknown): unknown {
  if (tagged === null || typeof tagged !== 'object') return tagged
  if (Array.isArray(tagged)) return tagged.map(decodeValue)
  const t = tagged as Record<string, unknown>
  if (t.$undefined === true) return undefined
  if (typeof t.$num === 'string') return Number(t.$num)
  const out: Record<string, unknown> = {}
  for (const [k, v] of (t.$obj as [string, unknown][]) ?? []) {
    Object.defineProperty(out, k, {
      value: decodeValue(v),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return out
}

export const chargeTarget: FuzzTarget<unknown> = {
  name: 'charge-bytes',
  description:
    'chargeJson(v).bytes vs Buffer.byteLength(JSON.stringify(v)), and maxBytes at N and N-1',
  shrink: true,
  minimizeBudget: 0,
  arbitrary: anyJsonValue,
  async unavailable() {
    return typeof chargeJson === 'function'
      ? undefined
      : '@tollgate/json-budget does not export chargeJson'
  },
  async check(value) {
    return judgeCharge(chargeJson, value)
  },
  // fast-check's shrinking already minimizes structured values well; nothing to add.
  async minimize(value) {
    return value
  },
  encode: encodeValue,
  decode: decodeValue,
}
