// One assertion for the `expect(r.ok).toBe(false); if (!r.ok) ...` pair: it fails the test on
// an admitted result and narrows the type, so the lines after it read the failure directly.
import { expect } from 'vitest'

/** A result union as the packages return them: `{ ok: true, ... } | { ok: false, ... }`. */
export interface OkResult {
  readonly ok: boolean
}

/**
 * Asserts `result.ok === false` and narrows `result` to its failure member; with `code`, also
 * asserts the failure's code, read from `result.error.code` or else `result.code` (the two
 * shapes a failure carries its code in), failing when the failure carries neither.
 */
export function expectRefused<R extends OkResult>(
  result: R,
  code?: string,
): asserts result is Extract<R, { ok: false }> {
  expect(result.ok, 'expected a refusal, got an admitted result').toBe(false)
  if (code === undefined) return
  const failure = result as { error?: { code?: unknown }; code?: unknown }
  const actual =
    typeof failure.error === 'object' && failure.error !== null && 'code' in failure.error
      ? failure.error.code
      : failure.code
  expect(actual, 'the refusal code').toBe(code)
}
