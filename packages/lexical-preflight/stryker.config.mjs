// Mutation testing of this package (`pnpm --filter @tollgate/lexical-preflight mutation`); not part of the
// default test run. Stryker 9.6.1 is the last line that runs on Node 20.
// The shared settings are @tollgate/test-kit's strykerConfig(); what differs here is why.
// `related: false`: vitest's related-file lookup finds no test from the sandbox copy; the
// per-test coverage of the dry run still picks each mutant's tests.
import { strykerConfig } from '@tollgate/test-kit/stryker-config'

export default strykerConfig({ related: false })
