import { sourceResolution, tollgateVitestConfig } from '../../vitest.shared.mjs'

// Two projects: `sdk1` runs every test on @modelcontextprotocol/sdk 1.32; `sdk2` runs the wire
// tests again, the same files, on @modelcontextprotocol/server 2.x (test/helpers/sdk-line.ts and
// the stdio fixture read TOLLGATE_SDK_LINE; child processes inherit it).
const WIRE = [
  'test/stdio.test.ts',
  'test/result-budget.test.ts',
  'test/streamable-http.test.ts',
  'test/decorator.test.ts',
  'test/sdk-line.test.ts',
  'test/stdio-eras.test.ts',
  'test/early-answers.test.ts',
  'test/stdio-sdk-clients.test.ts',
]

const shared = tollgateVitestConfig().test ?? {}
const project = { testTimeout: shared.testTimeout, hookTimeout: shared.hookTimeout }

export default tollgateVitestConfig({
  projects: [
    { extends: true, test: { name: 'sdk1', env: { TOLLGATE_SDK_LINE: '1' } } },
    // Not `extends`: an extended project adds its `include` to the root's instead of replacing it.
    {
      ...sourceResolution,
      test: { ...project, name: 'sdk2', include: WIRE, env: { TOLLGATE_SDK_LINE: '2' } },
    },
  ],
})
