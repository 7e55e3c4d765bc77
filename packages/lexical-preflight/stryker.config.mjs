// Mutation testing of this package (`pnpm --filter @tollgate/lexical-preflight mutation`); not part of the
// default test run. Stryker 9.6.1 is the last line that runs on Node 20.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  // `related: false`: vitest's related-file lookup finds no test from the sandbox copy; the
  // per-test coverage of the dry run still picks each mutant's tests.
  vitest: { configFile: 'stryker.vitest.config.mjs', related: false },
  mutate: ['src/**/*.ts', '!src/index.ts'],
  coverageAnalysis: 'perTest',
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  concurrency: 1,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
}
