#!/usr/bin/env node
// pnpm mutants:named
//
// The named mutants of @tollgate/continuation (the authorization shortcuts its README lists:
// re-authorization skipped, ceiling-only check, capability lens skipped, outer dispatcher name
// recorded, forged action honoured, action never recorded): each is applied to a COPY of
// packages/continuation (package-copy.mjs), the package's suite runs there, and the copy is
// removed; the real `src/` is never written. The unmutated copy runs
// first and must pass, or a "killed" would prove nothing. A mutant that fails no test survived
// and the job exits 1; a mutant whose text is no longer in the source exits 2 (the list must
// follow the code). Not in the default test run (one full suite run per mutant).
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { copyPackage, removeCopy } from './package-copy.mjs'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** The package the named mutants belong to. */
export const PACKAGE_DIR = join(ROOT, 'packages', 'continuation')

export const MUTANTS = [
  {
    name: 're-authorization always true',
    file: 'src/continuations.ts',
    from: 'const dimension = authorizeOnRoute(route, target, permissions)',
    to: 'const dimension = undefined as SurfaceDimension | undefined',
  },
  {
    name: 'ceiling-only check (allow/deny skipped)',
    file: 'src/route-view.ts',
    from: "if (allow.length > 0 && !matchesAny(allow, tool.name)) return 'carve_out'\n  if (matchesAny(deny, tool.name)) return 'carve_out'",
    to: '',
  },
  {
    name: 'capability lens skipped',
    file: 'src/route-view.ts',
    from: "if (!holdsAll(tool, permissions)) return 'capability'",
    to: '',
  },
  {
    name: 'outer dispatcher name bound at mint',
    file: 'src/continuations.ts',
    from: 'const recorded = target.name',
    to: 'const recorded = target.dispatcher ?? target.name',
  },
  {
    name: 'caller-supplied action used at redemption',
    file: 'src/continuations.ts',
    from: 'const dimension = authorizeOnRoute(route, target, permissions)',
    to: "const asked = (context as { action?: unknown }).action\n      const named = typeof asked === 'string' ? target.slice(0, target.lastIndexOf('.') + 1) + asked : target\n      const dimension = authorizeOnRoute(route, named, permissions)",
  },
  {
    name: 'action never recorded',
    file: 'src/continuations.ts',
    from: 'action: target.action,',
    to: 'action: undefined,',
  },
]

/** Writes one mutant into a copy (its first occurrence); throws when its text is not there. Returns the undo. */
export function applyMutant(copy, mutant) {
  const path = join(copy, mutant.file)
  const original = readFileSync(path, 'utf8')
  if (!original.includes(mutant.from)) {
    throw new Error(`cannot apply "${mutant.name}": text not found in ${mutant.file}`)
  }
  writeFileSync(path, original.replace(mutant.from, mutant.to))
  return () => writeFileSync(path, original)
}

/**
 * Runs the package's Stryker vitest configuration in `copy` and returns the failing tests
 * (`file › title`) and the test files that failed to load, relative to the copy.
 */
export function runSuite(copy) {
  const report = join(copy, '.named-mutants-report.json')
  rmSync(report, { force: true })
  spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--config',
      'stryker.vitest.config.mjs',
      '--reporter=json',
      `--outputFile=${report}`,
    ],
    { cwd: copy, stdio: 'ignore', env: { ...process.env } },
  )
  if (!existsSync(report)) return ['(the suite wrote no report)']
  const data = JSON.parse(readFileSync(report, 'utf8'))
  return data.testResults.flatMap((f) => {
    const name = f.name.startsWith(copy) ? f.name.slice(copy.length + 1) : f.name
    const failed = f.assertionResults
      .filter((a) => a.status === 'failed')
      .map((a) => `${name} › ${a.title}`)
    return failed.length === 0 && f.status === 'failed' ? [`${name} (did not load)`] : failed
  })
}

/**
 * Applies each mutant to one copy of `packageDir` in turn (restoring the copy between them),
 * runs `runTests(copy, mutant)` for each (and once first with no mutant, which must fail no
 * test), and removes the copy, even on error. Returns `{ baseline, results: [{ name, failed }] }`.
 */
export function runNamedMutants({
  packageDir = PACKAGE_DIR,
  mutants = MUTANTS,
  runTests = runSuite,
} = {}) {
  const copy = copyPackage(packageDir)
  try {
    const baseline = runTests(copy, undefined)
    if (baseline.length > 0) return { baseline, results: [] }
    const results = []
    for (const mutant of mutants) {
      const restore = applyMutant(copy, mutant)
      try {
        results.push({ name: mutant.name, failed: runTests(copy, mutant) })
      } finally {
        restore()
      }
    }
    return { baseline, results }
  } finally {
    removeCopy(copy)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let outcome
  try {
    outcome = runNamedMutants()
  } catch (error) {
    console.error(error.message)
    process.exit(2)
  }
  if (outcome.baseline.length > 0) {
    console.error('the unmutated copy fails its own suite; no mutant judged:')
    for (const t of outcome.baseline) console.error(`    ${t}`)
    process.exit(2)
  }
  let survived = 0
  for (const { name, failed } of outcome.results) {
    if (failed.length === 0) survived++
    console.log(`${failed.length > 0 ? 'KILLED  ' : 'SURVIVED'} ${name} (${failed.length} failing)`)
    for (const t of failed) console.log(`    ${t}`)
  }
  process.exit(survived > 0 ? 1 : 0)
}
