// The package loads, inside a test. A module that throws while it loads (a default its own
// brand cannot mark, a table built at import) fails every test file at import, and a runner
// then has no test to report failed: Stryker's vitest runner counts such a run as a surviving
// mutant with no test completed. Here nothing of `src/` is imported statically, so a load-time
// throw is this test's failure instead.
import { expect, it } from 'vitest'

it('loads the package index, with its defaults resolved and a token of the documented length', async () => {
  const pkg = await import('../src/index.js')
  expect(pkg.createContinuations().options).toMatchObject({
    thresholdBytes: pkg.CONTINUATIONS_OPTIONS.defaults.thresholdBytes,
    ttlMs: pkg.CONTINUATIONS_OPTIONS.defaults.ttlMs,
  })
  const token = pkg.createToken()
  expect(token).toHaveLength(pkg.TOKEN_LENGTH)
  expect(pkg.isTokenShape(token)).toBe(true)
  expect(pkg.TIERS).toEqual(['read', 'write', 'admin'])
})
