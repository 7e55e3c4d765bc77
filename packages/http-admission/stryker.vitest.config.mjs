// vitest settings for Stryker's sandbox copy, which cannot reach ../../vitest.shared.mjs.
import { FastFirstSequencer } from '@tollgate/test-kit/fast-first-sequencer'
import { defineConfig } from 'vitest/config'

// `TOLLGATE_MUTATION_IN_PROCESS=1` (the `mutation:core` script) leaves out the two files that
// go through real sockets (node:http and Express): every mutant of the core, the options and
// the budget is covered by nearly every test, so each would rerun them. Without them a mutant
// is judged by the in-process tests alone, which can only lower the score, never raise it.
const inProcess = process.env.TOLLGATE_MUTATION_IN_PROCESS === '1'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Shortest file first (a file that failed last first): `test/large-body.test.ts` (real
    // 64 MiB bodies, ~30 s) covers every mutant of the read path, and vitest's own order ran it
    // first for each of them, so a mutant an in-process test kills waited for it.
    sequence: { sequencer: FastFirstSequencer },
    exclude: inProcess ? ['test/node-server.test.ts', 'test/middleware.test.ts'] : [],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The one slow socket test (a real 64 MiB body through Express, ~6 s) is always left out
    // of the sandbox. The same cap arithmetic is judged in process by test/core.test.ts ›
    // "admits a body of exactly maxBytes and refuses maxBytes + 1 with ERR_BODY_TOO_LARGE", the
    // default by test/options.test.ts › "fills every default and freezes the result".
    testNamePattern: /^(?!.*admits a body of exactly the default 64 MiB cap).*$/,
  },
})
