// Mutation testing of this package (`pnpm --filter @tollgate/http-admission mutation`); not part of the
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
  // Module-level constants (the defaults and option-name tables, body-parser's type table, the
  // stale-header list, the default budget) are "static" mutants: each would rerun the whole
  // suite, sockets included, which this 2-core machine cannot afford. They are reported as
  // ignored, not as killed; test/readme.test.ts and test/options.test.ts judge those tables.
  ignoreStatic: true,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  concurrency: 1,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
}
