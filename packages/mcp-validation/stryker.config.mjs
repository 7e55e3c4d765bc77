// Mutation testing of this package (`pnpm --filter @tollgate/mcp-validation mutation`); not part
// of the default test run. Stryker 9.6.1 is the last line that runs on Node 20.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'stryker.vitest.config.mjs' },
  mutate: ['src/**/*.ts', '!src/index.ts'],
  coverageAnalysis: 'perTest',
  // Module-level constants (the keyword tables, the shared-file list) are "static" mutants: each
  // would rerun the whole suite, stdio children included, which a 2-core CI cannot afford. They
  // are reported as ignored, not as killed.
  ignoreStatic: true,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  concurrency: 2,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
}
