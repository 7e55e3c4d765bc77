const POW10 = [
  1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
] as const

/**
 * Length of `JSON.stringify(n)` for a finite number: integers below 10^15 by comparison (no
 * string is built), everything else through `String(n)`, which is what stringify writes.
 * `-0` is written `0`.
 */
export function numberByteLength(n: number): number {
  // Small integers are most numbers in JSON: `(n | 0) === n` holds exactly for int32 values
  // (and -0, which `n >= 0` then sends down the non-negative branch, as stringify writes `0`).
  if ((n | 0) === n) return n >= 0 ? int32Digits(n) : int32Digits(-n) + 1
  const a = n < 0 ? -n : n
  if (a < 1e15 && Number.isInteger(a)) {
    let digits = 1
    while (digits <= 15 && a >= POW10[digits - 1]!) digits++
    return n < 0 ? digits + 1 : digits
  }
  return String(n).length
}

/** Decimal digits of a non-negative integer up to 2^31, by a comparison chain. */
export function int32Digits(a: number): number {
  if (a < 1e5) return a < 10 ? 1 : a < 100 ? 2 : a < 1e3 ? 3 : a < 1e4 ? 4 : 5
  return a < 1e6 ? 6 : a < 1e7 ? 7 : a < 1e8 ? 8 : a < 1e9 ? 9 : 10
}
