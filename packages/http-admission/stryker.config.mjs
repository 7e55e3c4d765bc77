// Mutation testing of this package (`pnpm --filter @tollgate/http-admission mutation`); not part of the
// default test run. Stryker 9.6.1 is the last line that runs on Node 20.
// The shared settings are @tollgate/test-kit's strykerConfig(); what differs here is why.
// `related: false`: vitest's related-file lookup finds no test from the sandbox copy; the
// per-test coverage of the dry run still picks each mutant's tests.
// Module-level constants (the defaults and option-name tables, body-parser's type table, the
// stale-header list, the default budget) are "static" mutants: each would rerun the whole
// suite, sockets included, which this 2-core machine cannot afford. They are reported as
// ignored, not as killed; test/readme.test.ts and test/options.test.ts judge those tables.
import { strykerConfig } from '@tollgate/test-kit/stryker-config'

export default strykerConfig({ related: false, ignoreStatic: true })
