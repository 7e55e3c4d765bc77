// Mutation testing of this package (`pnpm --filter @tollgate/lexical-preflight mutation`); not part of the
// default test run. Stryker 9.6.1 is the last line that runs on Node 20.
// The shared settings are @tollgate/test-kit's strykerConfig(); what differs here is why.
// `related: false`: vitest's related-file lookup finds no test from the sandbox copy; the
// per-test coverage of the dry run still picks each mutant's tests.
// `src/wasm-bytes.ts` is left out of the mutate set: it is the WebAssembly module as base64
// text, generated from `assembly/`. Stryker would turn each of its string pieces into a static
// mutant (every test, for a module that then fails to load). The module's source is mutated by
// `jobs/mutation/assembly-mutants.mjs` instead; `src/wasm-instance.ts` and `src/wasm-scanner.ts`,
// the TypeScript that loads and drives it, are in the set.
// `disableTypeChecks: false`: by default Stryker writes `// @ts-nocheck` at the top of every
// source file of its sandbox, and `test/wasm-build.test.ts` (which compares `src/wasm-bytes.ts`
// with a fresh build, byte for byte) then fails the dry run. vitest strips types without
// checking them, so the header has nothing to do here.
import { strykerConfig } from '@tollgate/test-kit/stryker-config'

export default {
  ...strykerConfig({ related: false }),
  mutate: ['src/**/*.ts', '!src/index.ts', '!src/wasm-bytes.ts'],
  disableTypeChecks: false,
}
