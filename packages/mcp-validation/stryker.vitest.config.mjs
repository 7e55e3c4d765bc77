// vitest settings for Stryker's sandbox copy, which cannot reach ../../vitest.shared.mjs. The
// repository-wide schema tests read ../../../schemas/mcp/, which is outside the sandbox, so
// they stay out of the mutation run (they check the published files, not this code). The stdio
// leg of the wire suite (a child process per session, seconds each) is left out too, through
// TOLLGATE_MUTATION: Stryker's per-test coverage cannot see into the child, so it would rerun
// it for every mutant the in-process legs already judge.
import { FastFirstSequencer } from '@tollgate/test-kit/fast-first-sequencer'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/schemas.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    env: { TOLLGATE_MUTATION: '1' },
    // Shortest file first, so a killed mutant bails before the wire and property files.
    sequence: { sequencer: FastFirstSequencer },
  },
})
