// The package loads, inside a test. A module that throws while it loads (a code table the
// json-budget registry refuses, a default its own validators reject) fails every test file at
// import, and a runner then has no test to report failed: Stryker's vitest runner counts such
// a run as a surviving mutant with no test completed. Here nothing of `src/` is imported
// statically, so a load-time throw is this test's failure instead.
import { expect, it } from 'vitest'

it('loads the package index, with its defaults resolved and a registry that validates', async () => {
  const pkg = await import('../src/index.js')
  const resolved = pkg.resolveInputValidationOptions()
  expect(pkg.resolveInputValidationOptions(resolved)).toBe(resolved)
  expect(pkg.INPUT_VALIDATION_OPTIONS.defaults).toBeDefined()
  expect(typeof pkg.createSchemaRegistry).toBe('function')
})
