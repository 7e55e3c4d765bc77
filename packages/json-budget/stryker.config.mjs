// Mutation testing of this package (`pnpm --filter @tollgate/json-budget mutation`); not part
// of the default test run. Stryker 9.6.1 is the last line that runs on Node 20.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'stryker.vitest.config.mjs' },
  mutate: ['src/**/*.ts', '!src/index.ts'],
  coverageAnalysis: 'perTest',
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  concurrency: 1,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
}
