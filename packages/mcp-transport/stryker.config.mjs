// Mutation testing of this package (`pnpm mutation --only mcp-transport` at the root, or
// `pnpm --filter @tollgate/mcp-transport mutation`); not part of the default test run.
// Stryker 9.6.1 is the last line that runs on Node 20.
//
// The whole suite runs, the real-socket tests and the child-process (stdio) tests included:
// the security properties live there. A child runs the package's `dist`, so the sandbox's
// `dist` is rebuilt from the instrumented source (`buildCommand`), and
// stryker.child-mutants.mjs hands each child the active mutant and brings the child's
// coverage back to the test that spawned it; without both, Stryker would run no child test
// for any mutant.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  // `related: false`: vitest's related-file lookup finds no test from the sandbox copy; the
  // per-test coverage of the dry run still picks each mutant's tests.
  vitest: { configFile: 'stryker.vitest.config.mjs', related: false },
  buildCommand: 'node stryker.build.mjs',
  // Every file with runtime code. The entries (`index.ts`, `decorator.ts`) only re-export and
  // `mcp-types.ts` only declares types: Stryker makes no mutant of them, and listing them made
  // the merged report name them as files no slice covered.
  mutate: ['src/**/*.ts', '!src/index.ts', '!src/decorator.ts', '!src/mcp-types.ts'],
  coverageAnalysis: 'perTest',
  // Module-level constants (defaults, option-name tables) are "static" mutants: each would
  // rerun the whole suite, children included, which this 2-core machine cannot afford. They
  // are reported as ignored, not as killed; test/readme.test.ts judges the defaults.
  ignoreStatic: true,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  // Two runners (each one vitest worker, its children one at a time): the child-process tests
  // wait on pipes and child start-up as much as on CPU, so a second runner nearly doubles the
  // rate on this 2-core machine without starving the others' jobs.
  concurrency: 2,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
}
