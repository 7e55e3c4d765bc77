// The package loads, inside a test. A module that throws while it loads (a code table its own
// registry refuses, a brand that cannot mark the defaults) fails every test file at import,
// and a runner then has no test to report failed: Stryker's vitest runner counts such a run as
// a surviving mutant with no test completed. Here nothing of `src/` is imported statically, so
// a load-time throw is this test's failure instead.
import { expect, it } from 'vitest'

it('loads the package index, with json-budget owning its codes', async () => {
  const pkg = await import('../src/index.js')
  expect(pkg.refusalCodeSpec('ERR_JSON_TOO_DEEP')?.owner).toBe('@tollgate/json-budget')
  expect(Object.keys(pkg.JSON_BUDGET_CODES)).toHaveLength(4)
  expect(pkg.chargeJson({ a: [1, 2] })).toEqual({ nodes: 5, depth: 2, bytes: 11 })
})
