import { sourceResolution, tollgateVitestConfig } from '../../vitest.shared.mjs'

// The test files share no mutable state (each builds its own servers; the fixture registry is
// read-only), so they share one module graph per worker instead of re-importing the SDK, zod and
// Ajv per file: the import phase was most of this package's wall time on 2 cores.
//
// Two projects: `sdk1` runs every test on @modelcontextprotocol/sdk 1.32; `sdk2` runs the wire
// tests again, the same files, on @modelcontextprotocol/server 2.x (test/helpers/sdk-line.ts
// reads TOLLGATE_SDK_LINE; the stdio child inherits it).
const WIRE = [
  'test/wire.test.ts',
  'test/tools-list.test.ts',
  'test/agreement.test.ts',
  'test/sdk-line.test.ts',
  'test/reused-id.test.ts',
  'test/server-request-id.test.ts',
  'test/era-2026.test.ts',
  'test/unpublished-tools.test.ts',
  'test/schemas-command.test.ts',
]

const shared = tollgateVitestConfig().test ?? {}
const project = {
  testTimeout: shared.testTimeout,
  hookTimeout: shared.hookTimeout,
  isolate: false,
}

export default tollgateVitestConfig({
  isolate: false,
  projects: [
    { extends: true, test: { name: 'sdk1', env: { TOLLGATE_SDK_LINE: '1' } } },
    // Not `extends`: an extended project adds its `include` to the root's instead of replacing it.
    {
      ...sourceResolution,
      test: { ...project, name: 'sdk2', include: WIRE, env: { TOLLGATE_SDK_LINE: '2' } },
    },
  ],
})
