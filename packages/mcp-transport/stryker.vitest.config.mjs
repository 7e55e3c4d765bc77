// vitest settings for Stryker's sandbox copy, which cannot reach ../../vitest.shared.mjs. The
// two projects of vitest.config.ts: every test on @modelcontextprotocol/sdk 1.32 (`sdk1`), the
// wire tests again on @modelcontextprotocol/server 2.x (`sdk2`). Nothing is left out: the
// real-socket and child-process tests are in the run. stryker.child-mutants.mjs carries the
// active mutant into, and the coverage out of, the child processes.
import { FastFirstSequencer } from '@tollgate/test-kit/fast-first-sequencer'
import { defineConfig } from 'vitest/config'

// Stryker runs each mutant's tests with `bail: 1`; the sequencer (shortest file first, per
// project) lets a mutant an in-process test kills bail before the 64 MiB child-process tests.

const WIRE = [
  'test/stdio.test.ts',
  'test/result-budget.test.ts',
  'test/streamable-http.test.ts',
  'test/decorator.test.ts',
  'test/sdk-line.test.ts',
]
const shared = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  setupFiles: ['./stryker.child-mutants.mjs'],
}

export default defineConfig({
  test: {
    sequence: { sequencer: FastFirstSequencer },
    projects: [
      {
        test: {
          ...shared,
          name: 'sdk1',
          include: ['test/**/*.test.ts'],
          env: { TOLLGATE_SDK_LINE: '1' },
        },
      },
      { test: { ...shared, name: 'sdk2', include: WIRE, env: { TOLLGATE_SDK_LINE: '2' } } },
    ],
  },
})
