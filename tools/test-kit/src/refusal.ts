// Runs code that must refuse and hands the test the refusal it threw, so the test asserts the
// code and limit instead of wrapping each call in try/catch.

/** The brand `@tollgate/json-budget` puts on every AdmissionError (a `Symbol.for` key). */
const BRAND = Symbol.for('tollgate.AdmissionError')

/** What the default guard accepts: a branded AdmissionError, seen structurally. */
export interface BrandedRefusal extends Error {
  readonly code: string
  readonly limit?: number
  readonly observed?: number
  readonly offset?: number
  readonly path?: string
  readonly status?: number
  /** The refusal as plain data (code and details, never the caller's bytes). */
  toJSON(): unknown
}

/**
 * Whether `error` carries the AdmissionError brand and a string `code`. Structural, so the kit
 * needs no tollgate package (a package's own tests may pass its stricter `isAdmissionError`).
 */
export function isBrandedRefusal(error: unknown): error is BrandedRefusal {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { [BRAND]?: unknown })[BRAND] === true &&
    typeof (error as { code?: unknown }).code === 'string'
  )
}

/**
 * The refusal `fn` throws: returns the thrown value when `is` accepts it (default: a branded
 * AdmissionError), rethrows anything else, and fails the test when `fn` returns.
 */
export function refusal<E = BrandedRefusal>(
  fn: () => unknown,
  is: (error: unknown) => error is E = isBrandedRefusal as (error: unknown) => error is E,
): E {
  try {
    fn()
  } catch (error) {
    if (is(error)) return error
    throw error
  }
  throw new Error('expected a refusal')
}
