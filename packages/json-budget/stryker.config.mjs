// Mutation testing of this package (`pnpm --filter @tollgate/json-budget mutation`); not part
// of the default test run. Stryker 9.6.1 is the last line that runs on Node 20.
// The shared settings are @tollgate/test-kit's strykerConfig(); what differs here is why.
//
// `ignoreStatic` stays off (the shared default). json-budget's module-level code is behaviour,
// not scaffolding: its refusal-code table (`codes.ts`, registered when the package loads), the
// normalize profiles (`rest` lowers a Set, both refuse symbol keys), the limit defaults and
// `ADMISSION_DEFAULTS`, the code shape its registry admits. Ignoring static mutants would drop
// every one of them from the score, and with them the registration path `codes.ts` runs at
// load. They are killed instead: `test/vocabulary.test.ts` and `test/limits.test.ts` pin the
// tables row by row, and `test/module-load.test.ts` imports the package inside a test, so a
// mutant that makes a module throw while it loads (a code table the registry refuses) fails
// that test. Without it such a run fails every test file at import and Stryker's vitest runner,
// finding no test result, reports the mutant as survived. The cost is time: a static mutant
// reloads and runs the whole suite.
import { strykerConfig } from '@tollgate/test-kit/stryker-config'

export default strykerConfig()
