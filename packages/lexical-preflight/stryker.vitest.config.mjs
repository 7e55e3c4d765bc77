// vitest settings for Stryker's sandbox copy, which cannot reach ../../vitest.shared.mjs.
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
