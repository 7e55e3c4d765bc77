// The package loads, inside a test. A module that throws while it loads (a code table the
// json-budget registry refuses, a default its own validators reject) fails every test file at
// import, and a runner then has no test to report failed: Stryker's vitest runner counts such
// a run as a surviving mutant with no test completed. Here nothing of `src/` is imported
// statically, so a load-time throw is this test's failure instead.
import { refusalCodeSpec } from '@tollgate/json-budget'
import { expect, it } from 'vitest'

it('loads the package index, with lexical-preflight owning its codes and both scanners agreeing', async () => {
  const pkg = await import('../src/index.js')
  expect(refusalCodeSpec('ERR_JSON_SYNTAX')?.owner).toBe('@tollgate/lexical-preflight')
  expect(Object.keys(pkg.PREFLIGHT_CODES).length).toBeGreaterThan(0)
  const bytes = new TextEncoder().encode('{"a":[1,"x",true]}')
  // The default options take the WebAssembly scanner; a key policy takes the JS one.
  expect(pkg.preflight(bytes)).toEqual({ nodes: 6, depth: 2, bytes: 18 })
  expect(pkg.preflight(bytes, { duplicateKeys: 'refuse' })).toEqual({
    nodes: 6,
    depth: 2,
    bytes: 18,
  })
})
