// The Stryker settings every package's mutation run shares. Plain JavaScript: Stryker loads its
// config with Node, which (20.x) cannot import TypeScript. Not in the default test run.

/**
 * A package's Stryker options: the vitest runner on `stryker.vitest.config.mjs` (the sandbox
 * copy cannot reach the root vitest.shared.mjs), every `src/` file but the index mutated,
 * per-test coverage, clear-text, progress and JSON reports (`reports/mutation/mutation.json`),
 * thresholds 90/80 with no break, `.stryker-tmp` removed after the run.
 *
 * @param {object} [options]
 * @param {number} [options.concurrency] test-runner processes. Default: 1.
 * @param {boolean} [options.related] vitest's related-file lookup; `false` where it finds no
 *   test from the sandbox copy. Default: vitest's (on).
 * @param {boolean} [options.ignoreStatic] report static mutants as ignored. Default: `false`.
 * @returns {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export function strykerConfig({ concurrency = 1, related, ignoreStatic } = {}) {
  return {
    testRunner: 'vitest',
    plugins: ['@stryker-mutator/vitest-runner'],
    vitest:
      related === undefined
        ? { configFile: 'stryker.vitest.config.mjs' }
        : { configFile: 'stryker.vitest.config.mjs', related },
    mutate: ['src/**/*.ts', '!src/index.ts'],
    coverageAnalysis: 'perTest',
    ...(ignoreStatic === undefined ? {} : { ignoreStatic }),
    reporters: ['clear-text', 'progress', 'json'],
    jsonReporter: { fileName: 'reports/mutation/mutation.json' },
    thresholds: { high: 90, low: 80, break: null },
    concurrency,
    tempDirName: '.stryker-tmp',
    cleanTempDir: 'always',
  }
}
