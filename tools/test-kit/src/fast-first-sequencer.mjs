// A vitest sequencer for the Stryker sandboxes (`stryker.vitest.config.mjs`). Plain JavaScript:
// those configs are loaded by Node, which (20.x) cannot import TypeScript.
import { relative } from 'node:path'
import { BaseSequencer } from 'vitest/node'

/**
 * Runs the test files of each project (in project-name order) with the one that failed in the
 * previous run first, then the shortest first. Stryker runs each mutant's tests with `bail: 1`,
 * so a mutant is killed as soon as one test file fails; vitest's own order puts the longest
 * files first (the real 64 MiB bodies, the child processes), so a mutant an in-process test
 * kills in milliseconds waited half a minute for them. Same files and tests, only the order
 * changes: a surviving mutant still runs every test that covers it.
 */
export class FastFirstSequencer extends BaseSequencer {
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
