/** Powers of ten 1e1 … 1e21, each exactly representable as a double. */
const POW10 = [
  1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
  1e19, 1e20, 1e21,
] as const

/**
 * Length of `JSON.stringify(n)` for a finite number: integers below 10^21 in magnitude by
 * comparison (no string is built; stringify writes them as plain digits), everything else
 * (fractions, exponents) through `String(n)`, which is what stringify writes. `-0` is written
 * `0`.
 */
export function numberByteLength(n: number): number {
  // Small integers are most numbers in JSON: `(n | 0) === n` holds exactly for int32 values
  // (and -0, which `n >= 0` then sends down the non-negative branch, as stringify writes `0`).
  if ((n | 0) === n) return n >= 0 ? int32Digits(n) : int32Digits(-n) + 1
  const digits = integerLength(n)
  return digits > 0 ? digits : String(n).length
}

/**
 * Length of `JSON.stringify(n)` when `n` is an integer below 10^21 in magnitude (digits, and a
 * sign when negative), else 0. Below 10^21 `Number.prototype.toString` writes an integer as
 * its plain decimal digits, so each comparison with an exact power of ten counts one digit.
 */
export function integerLength(n: number): number {
  const a = n < 0 ? -n : n
  if (!(a < 1e21) || !Number.isInteger(a)) return 0
  let digits = 1
  while (a >= POW10[digits - 1]!) digits++
  return n < 0 ? digits + 1 : digits
}

/** Decimal digits of a non-negative integer up to 2^31, by a comparison chain. */
export function int32Digits(a: number): number {
  if (a < 1e5) return a < 10 ? 1 : a < 100 ? 2 : a < 1e3 ? 3 : a < 1e4 ? 4 : 5
  return a < 1e6 ? 6 : a < 1e7 ? 7 : a < 1e8 ? 8 : a < 1e9 ? 9 : 10
}
