// Preloaded (`--import`) into every child process a test starts during Stryker's dry run (see
// stryker.child-mutants.mjs): when the child exits, it writes the mutant coverage its
// instrumented code recorded to the folder the test worker reads. A child killed by a signal
// writes nothing, so what only it reached stays "no coverage": the run can undercount the
// child tests, never credit them with a mutant they did not reach.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

const dir = process.env.TOLLGATE_STRYKER_CHILD_COVERAGE
const namespace = process.env.TOLLGATE_STRYKER_NAMESPACE ?? '__stryker__'
if (dir !== undefined) {
  process.on('exit', () => {
    const coverage = globalThis[namespace]?.mutantCoverage
    if (coverage === undefined) return
    writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(coverage))
  })
}
