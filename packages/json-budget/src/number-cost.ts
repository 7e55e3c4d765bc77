const POW10 = [
  1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
] as const

/**
 * Length of `JSON.stringify(n)` for a finite number: integers below 10^15 by comparison (no
 * string is built), everything else through `String(n)`, which is what stringify writes.
 * `-0` is written `0`.
 */
export function numberByteLength(n: number): number {
  const a = n < 0 ? -n : n
  if (a < 1e15 && Number.isInteger(a)) {
    let digits = 1
    while (digits <= 15 && a >= POW10[digits - 1]!) digits++
    return n < 0 ? digits + 1 : digits
  }
  return String(n).length
}
