// vitest settings for Stryker's sandbox copy, which cannot reach ../../vitest.shared.mjs.
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The README test reads its tables with tools/repo-checks/src/markdown-table.ts, which the
    // sandbox cannot reach either; it judges documented constants, static mutants Stryker ignores.
    exclude: ['test/readme.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
