import { tollgateVitestConfig } from '../../vitest.shared.mjs'

// The test files share no mutable state (each builds its own servers; the fixture registry is
// read-only), so they share one module graph per worker instead of re-importing the SDK, zod and
// Ajv per file: the import phase was most of this package's wall time on 2 cores.
export default tollgateVitestConfig({ isolate: false })
