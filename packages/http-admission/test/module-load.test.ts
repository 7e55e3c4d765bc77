// The package loads, inside a test. A module that throws while it loads (a code table the
// json-budget registry refuses, a default its own validators reject) fails every test file at
// import, and a runner then has no test to report failed: Stryker's vitest runner counts such
// a run as a surviving mutant with no test completed. Here nothing of `src/` is imported
// statically, so a load-time throw is this test's failure instead.
import { refusalCodeSpec } from '@tollgate/json-budget'
import { expect, it } from 'vitest'

it('loads the package index, with http-admission owning its codes and its defaults resolved', async () => {
  const pkg = await import('../src/index.js')
  expect(refusalCodeSpec('ERR_BODY_TOO_LARGE')?.owner).toBe('@tollgate/http-admission')
  expect(Object.keys(pkg.HTTP_ADMISSION_CODES)).toContain('ERR_BODY_MEDIA_TYPE')
  const body = pkg.bodyAdmission()
  expect(Object.isFrozen(body) && Object.isFrozen(body.policy)).toBe(true)
  expect(typeof pkg.admission(body)).toBe('function')
})
