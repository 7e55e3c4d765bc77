// The `dist` of Stryker's sandbox, built from the instrumented `src/` so that the child
// processes the tests spawn (which import `dist`) run the mutants too. tsup.config.ts cannot
// be used there: it imports ../../tsup.shared.mjs, which the sandbox cannot reach. Same
// formats and target; no types (no test reads them from the sandbox).
import { build } from 'tsup'

await build({
  config: false,
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: false,
  clean: true,
  sourcemap: false,
  target: 'node20',
  silent: true,
})
