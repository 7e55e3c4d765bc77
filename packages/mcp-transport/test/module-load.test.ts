// The package loads, inside a test. A module that throws while it loads (a code table the
// json-budget registry refuses, a default its own validators reject) fails every test file at
// import, and a runner then has no test to report failed: Stryker's vitest runner counts such
// a run as a surviving mutant with no test completed. Here nothing of `src/` is imported
// statically, so a load-time throw is this test's failure instead.
import { refusalCodeSpec } from '@tollgate/json-budget'
import { expect, it } from 'vitest'

it('loads the package index and its decorator entry, with mcp-transport owning its codes', async () => {
  const pkg = await import('../src/index.js')
  await import('../src/decorator.js')
  expect(refusalCodeSpec('ERR_HOST_NOT_ALLOWED')?.owner).toBe('@tollgate/mcp-transport')
  expect(Object.keys(pkg.MCP_TRANSPORT_CODES)).toContain('ERR_LINE_TOO_LARGE')
})
