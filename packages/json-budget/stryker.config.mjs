// Mutation testing of this package (`pnpm --filter @tollgate/json-budget mutation`); not part
// of the default test run. Stryker 9.6.1 is the last line that runs on Node 20.
// The shared settings are @tollgate/test-kit's strykerConfig(); what differs here is why.
import { strykerConfig } from '@tollgate/test-kit/stryker-config'

export default strykerConfig()
