// Shared vitest settings: every package writes a JSON report so the root test script can
// print one totals line (`tests: N passed, N failed`) for CI.
import { defaultServerConditions } from 'vite'
import { defineConfig } from 'vitest/config'

/** The export condition each package's `exports` lists first, pointing at its TypeScript source. */
export const SOURCE_CONDITION = '@tollgate/source'

/**
 * Vite settings that resolve a workspace import (`@tollgate/json-budget`) to the package's
 * `src/`, so a test runs the source of its dependencies, not their last build.
 */
export const sourceResolution = {
  plugins: [
    {
      // vitest also hands the SSR conditions to each test worker as `node --conditions`, which
      // would send Node's own resolution there (a test that `require`s a package's dist CJS,
      // which requires its dependencies by name) to `.ts` files Node 20 cannot load. Only vite
      // resolves through the source condition; Node in a worker resolves as a user's install
      // does. The environment keeps its own copy of the list.
      name: 'tollgate:source-condition-in-vite-only',
      configResolved(config) {
        const conditions = config.ssr?.resolve?.conditions
        if (conditions === undefined) return
        config.ssr.resolve = {
          ...config.ssr.resolve,
          conditions: conditions.filter((condition) => condition !== SOURCE_CONDITION),
        }
      },
    },
  ],
  environments: {
    ssr: {
      resolve: {
        conditions: [
          SOURCE_CONDITION,
          ...defaultServerConditions.filter((condition) => condition !== 'module'),
        ],
      },
    },
  },
}

/** @param {import('vitest/config').UserConfig['test']} [test] */
export function tollgateVitestConfig(test = {}) {
  return defineConfig({
    ...sourceResolution,
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
