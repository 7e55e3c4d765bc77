// Shared vitest settings: every package writes a JSON report so the root test script can
// print one totals line (`tests: N passed, N failed`) for CI.
import { defineConfig } from 'vitest/config'

/** @param {import('vitest/config').UserConfig['test']} [test] */
export function tollgateVitestConfig(test = {}) {
  return defineConfig({
    test: {
      include: ['test/**/*.test.ts'],
      reporters: ['default', ['json', { outputFile: '.vitest-report.json' }]],
      testTimeout: 30_000,
      passWithNoTests: true,
      hookTimeout: 30_000,
      ...test,
    },
  })
}
