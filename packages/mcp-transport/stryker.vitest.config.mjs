// vitest settings for Stryker's sandbox copy, which cannot reach ../../vitest.shared.mjs. The
// two projects of vitest.config.ts: every test on @modelcontextprotocol/sdk 1.32 (`sdk1`), the
// wire tests again on @modelcontextprotocol/server 2.x (`sdk2`). Nothing is left out: the
// real-socket and child-process tests are in the run. stryker.child-mutants.mjs carries the
// active mutant into, and the coverage out of, the child processes.
import { relative } from 'node:path'
import { defineConfig } from 'vitest/config'
import { BaseSequencer } from 'vitest/node'

// Stryker runs each mutant's tests with `bail: 1`, so a mutant is killed as soon as one of its
// test files fails. vitest's own order runs the longest files first (the 64 MiB child-process
// tests), so a mutant an in-process test kills in milliseconds waited a minute for them. Same
// files, same tests, only the order changes: per project (sdk1, then sdk2), a file that failed
// in the previous run first (the neighbouring mutant's killer), then the shortest first. A
// surviving mutant still runs every test that covers it.
class FastFirstSequencer extends BaseSequencer {
  async sort(files) {
    const { cache, config } = this.ctx
    const state = (file) =>
      cache.getFileTestResults(`${file.project.name}:${relative(config.root, file.moduleId)}`)
    return [...files].sort((a, b) => {
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1
      const sa = state(a)
      const sb = state(b)
      if (Boolean(sa?.failed) !== Boolean(sb?.failed)) return sa?.failed ? -1 : 1
      return (sa?.duration ?? 0) - (sb?.duration ?? 0)
    })
  }
}

const WIRE = [
  'test/stdio.test.ts',
  'test/result-budget.test.ts',
  'test/streamable-http.test.ts',
  'test/decorator.test.ts',
  'test/sdk-line.test.ts',
]
const shared = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  setupFiles: ['./stryker.child-mutants.mjs'],
}

export default defineConfig({
  test: {
    sequence: { sequencer: FastFirstSequencer },
    projects: [
      {
        test: {
          ...shared,
          name: 'sdk1',
          include: ['test/**/*.test.ts'],
          env: { TOLLGATE_SDK_LINE: '1' },
        },
      },
      { test: { ...shared, name: 'sdk2', include: WIRE, env: { TOLLGATE_SDK_LINE: '2' } } },
    ],
  },
})
