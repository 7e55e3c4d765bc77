// vitest settings for Stryker's sandbox copy, which cannot reach ../../vitest.shared.mjs.
import { FastFirstSequencer } from '@tollgate/test-kit/fast-first-sequencer'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // 120 s, not 30: under Stryker's per-test coverage every statement of the JS scanner also
    // counts itself, and the differential test (the whole JSONTestSuite under random chunkings,
    // through both scanners) ran past 30 s in the dry run on a loaded 2-core machine. A mutant's
    // own time limit is Stryker's, from the dry run's times.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Shortest file first, so a mutant the unit tests kill does not wait for the corpus and
    // differential files (see @tollgate/test-kit/fast-first-sequencer).
    sequence: { sequencer: FastFirstSequencer },
  },
})
