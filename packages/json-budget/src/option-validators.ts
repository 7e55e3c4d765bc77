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

/**
 * One validator per option of `O`: it receives a value that is not `undefined` and throws a
 * `TypeError` naming the option when the value is wrong. Typed against the options interface,
 * so an option without a validator does not compile, and the set of known option names is
 * derived from the table rather than written a second time.
 */
export type OptionValidators<O> = {
  readonly [K in keyof Required<O>]: (value: unknown, name: K & string) => void
}

/** The option names a validator table knows. */
export function knownOptions<O>(validators: OptionValidators<O>): ReadonlySet<string> {
  return new Set(Object.keys(validators))
}

/**
 * Checks `input` against `validators`: `undefined` is no options; anything else must be an
 * object whose own keys each have a validator, and each value that is not `undefined` passes
 * its validator. `where` names the function in the message (`'admission'`).
 * @throws TypeError naming `where` and the option (an unknown name is cut to 64 characters).
 */
export function checkOptions<O>(
  input: unknown,
  validators: OptionValidators<O>,
  where: string,
): asserts input is O | undefined {
  if (input === undefined) return
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new TypeError(`${where}: options must be an object`)
  }
  const table = validators as Record<string, (value: unknown, name: string) => void>
  for (const key of Object.keys(input)) {
    const validate = Object.hasOwn(table, key) ? table[key] : undefined
    if (validate === undefined) throw new TypeError(`${where}: unknown option ${key.slice(0, 64)}`)
    const value = (input as Record<string, unknown>)[key]
    if (value !== undefined) validate(value, key)
  }
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
