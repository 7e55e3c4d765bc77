// The `dist` of Stryker's sandbox, built from the instrumented `src/` so that the child
// processes the tests spawn (which import `dist`) run the mutants too. tsup.config.ts cannot
// be used there: it imports ../../tsup.shared.mjs, which the sandbox cannot reach. Same
// formats, entries and target; no types (no test reads them from the sandbox). Both entries:
// test/exports.test.ts imports the `./decorator` subpath in a child, which loads
// dist/decorator.js (without it the dry run fails on ERR_MODULE_NOT_FOUND).
import { build } from 'tsup'

await build({
  config: false,
  entry: ['src/index.ts', 'src/decorator.ts'],
  format: ['esm', 'cjs'],
  dts: false,
  clean: true,
  sourcemap: false,
  target: 'node20',
  silent: true,
})
