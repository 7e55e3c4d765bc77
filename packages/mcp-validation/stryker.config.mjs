// Mutation testing of this package (`pnpm --filter @tollgate/mcp-validation mutation`); not part
// of the default test run. Stryker 9.6.1 is the last line that runs on Node 20.
// The shared settings are @tollgate/test-kit's strykerConfig(); what differs here is why.
// Module-level constants (the keyword tables, the shared-file list) are "static" mutants: each
// would rerun the whole suite, stdio children included, which a 2-core CI cannot afford. They
// are reported as ignored, not as killed.
import { strykerConfig } from '@tollgate/test-kit/stryker-config'

export default strykerConfig({ concurrency: 2, ignoreStatic: true })
