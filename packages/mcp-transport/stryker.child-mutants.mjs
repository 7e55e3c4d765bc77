// vitest setup file of the Stryker run (stryker.vitest.config.mjs): makes the child processes
// the tests spawn part of the mutation run.
//
// Stryker switches mutants through a global in the test worker, which a child process does
// not share; its instrumented code reads the mutant from the __STRYKER_ACTIVE_MUTANT__
// environment variable instead, so in a mutant run the variable is set before every hook and
// test (children inherit the environment). In the dry run, where Stryker records which tests
// reach which mutant, each child is started with stryker.child-preload.mjs, which writes the
// coverage of the instrumented `dist` it ran when it exits; after each test that coverage is
// added to that test (and, for a child that outlives its test, to every test of the file), so
// the child-process tests are chosen for the mutants only they reach. Outside a Stryker run
// (`inject` gives no mode) this file does nothing.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, beforeEach, inject } from 'vitest'

const ACTIVE = '__STRYKER_ACTIVE_MUTANT__'
const mode = inject('mode')
const namespace = inject('globalNamespace') ?? '__stryker__'
const ns = globalThis[namespace] ?? (globalThis[namespace] = {})

if (mode === 'mutant') {
  // Stryker's own setup file comes first, so its hooks have set the mutant when these run.
  const share = () => {
    if (ns.activeMutant === undefined) delete process.env[ACTIVE]
    else process.env[ACTIVE] = String(ns.activeMutant)
  }
  share()
  beforeAll(share)
  beforeEach(share)
} else if (mode === 'dry-run') {
  delete process.env[ACTIVE]
  // Created here so Stryker's per-file report and this file share one object.
  ns.mutantCoverage ??= { static: {}, perTest: {} }
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-stryker-child-'))
  const preload = fileURLToPath(new URL('./stryker.child-preload.mjs', import.meta.url))
  process.env.TOLLGATE_STRYKER_CHILD_COVERAGE = dir
  process.env.TOLLGATE_STRYKER_NAMESPACE = namespace
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import ${preload}`.trim()

  const seen = new Set()
  let current
  const absorb = (testIds) => {
    for (const name of readdirSync(dir)) {
      const file = join(dir, name)
      const coverage = JSON.parse(readFileSync(file, 'utf8'))
      rmSync(file)
      // In the child no test was running, so what it reached is under `static` there.
      const reached = [coverage.static ?? {}, ...Object.values(coverage.perTest ?? {})]
      for (const id of testIds) {
        const into = (ns.mutantCoverage.perTest[id] ??= {})
        for (const hits of reached) {
          for (const [mutant, count] of Object.entries(hits)) {
            into[mutant] = (into[mutant] ?? 0) + count
          }
        }
      }
    }
  }
  beforeEach(() => {
    // Stryker's beforeEach (its setup file is first) has named the test by now.
    current = ns.currentTestId
    if (current !== undefined) seen.add(current)
  })
  afterEach(() => {
    if (current !== undefined) absorb([current])
    current = undefined
  })
  afterAll(() => {
    absorb([...seen])
    rmSync(dir, { recursive: true, force: true })
  })
}
