/**
 * Checks that `value` is a positive safe integer (or 0 when `allowZero`), for
 * use by every package that validates a numeric option once, at construction.
 * @throws TypeError naming the option, never its value's source.
 */
export function assertLimit(name: string, value: unknown, allowZero = false): number {
  // `Number.isSafeInteger` is false for every value that is not a number (no coercion), so it
  // is the type check too.
  if (!Number.isSafeInteger(value) || (value as number) < 0 || (value === 0 && !allowZero)) {
    throw new TypeError(
      `${name} must be a ${allowZero ? 'non-negative' : 'positive'} safe integer, got ${describe(value)}`,
    )
  }
  return value as number
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value)
  return typeof value
}

/** A validator: a positive safe integer (`allowZero` admits 0), as {@link assertLimit} checks. */
export function integerOption(allowZero = false): (value: unknown, name: string) => void {
  return (value, name) => {
    assertLimit(name, value, allowZero)
  }
}

/** A validator: one of `allowed` (compared with `===`); the message lists `allowed`, not the value. */
export function oneOfOption<T>(allowed: readonly T[]): (value: unknown, name: string) => void {
  return (value, name) => {
    if (!allowed.includes(value as T)) {
      throw new TypeError(
        `${name} must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`,
      )
    }
  }
}

/** A validator: a boolean. */
export function booleanOption(value: unknown, name: string): void {
  if (typeof value !== 'boolean') throw new TypeError(`${name} must be a boolean`)
}

/** A validator: a function. */
export function functionOption(value: unknown, name: string): void {
  if (typeof value !== 'function') throw new TypeError(`${name} must be a function`)
}
