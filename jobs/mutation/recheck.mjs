#!/usr/bin/env node
// pnpm mutation:recheck --only <package> [--files <src file,...>] [--ids <mutant id,...>] [--tests <test file,...>] [--minutes m]
//
// Stryker 9.6.1's vitest runner records some mutants Survived although the tests it names fail
// against them (stryker-mutator/stryker-js #6192, #6213: a run that completes no test is scored
// Survived), and per-test coverage cannot follow a mutant into a child that is stopped by a
// signal. So a Survived or NoCoverage verdict is re-checked here without Stryker: each such
// mutant of the package's merged report (`reports/mutation/mutation.json`, written by run.mjs)
// is spliced into a throw-away copy of the package (package-copy.mjs; the real `src/` is never
// written), the copy's `dist` is rebuilt when the package has a `stryker.build.mjs` (its child
// processes load `dist`), and the package's own Stryker test set (`stryker.vitest.config.mjs`,
// every test file, `--bail 1`) runs against it. The unmutated copy runs first and must pass.
// A mutant is re-checked only while its file is byte-identical to the source the report was
// measured on. Verdicts go to `reports/mutation/recheck.json` (keyed by file, location and
// replacement, with the source's hash), which run.mjs reads: a mutant the suite kills here
// counts as killed, named with the test that failed. Not in the default run (one suite run per
// mutant); `--minutes` stops starting new mutants after that long, and a later run goes on
// where it stopped. `--tests` runs only those test files: cheaper, and a failure there is a
// failure of the whole suite, so its "killed" stands; its "survived" is recorded as partial
// and a later run without `--tests` checks that mutant again. `--ids` re-checks only the
// mutants with those Stryker ids (ids repeat across slices: use it with `--files`). `--again`
// re-checks them even when a verdict is on disk (a test written since a partial "survived"),
// which deleting the entry cannot do while another recheck of the package is saving.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { copyPackage, removeCopy } from './package-copy.mjs'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The key a verdict is stored under: file, exact location and replacement. */
export function mutantKey(file, mutant) {
  const { start, end } = mutant.location
  return `${file}:${start.line}:${start.column}-${end.line}:${end.column}:${mutant.mutatorName}:${mutant.replacement ?? ''}`
}

export const sha256 = (text) => createHash('sha256').update(text).digest('hex')

// Mutators whose replacement is a binary expression. Stryker swaps the AST node, so
// precedence cannot change; spliced as text, `a ?? b ?? c` with `a ?? b` replaced by
// `a && b` would read `a && b ?? c`, which does not parse (the copy then fails to build and
// the mutant was scored killed). Parenthesized, the text means what Stryker's node meant.
const BINARY_MUTATORS = new Set(['LogicalOperator', 'ArithmeticOperator', 'EqualityOperator'])

/** The text recheck splices in for a mutant: its replacement, parenthesized when binary. */
export function replacementText(mutant) {
  const text = mutant.replacement ?? ''
  return BINARY_MUTATORS.has(mutant.mutatorName) ? `(${text})` : text
}

/**
 * The source with `replacement` put in place of the text at `location` (Stryker's 1-based
 * lines and columns, the end column exclusive).
 */
export function applyMutant(source, location, replacement) {
  const lines = source.split('\n')
  const offset = (at) => {
    let n = 0
    for (let i = 0; i < at.line - 1; i++) n += lines[i].length + 1
    return n + at.column - 1
  }
  const from = offset(location.start)
  const to = offset(location.end)
  if (from < 0 || to < from || to > source.length)
    throw new Error(`location out of range (${JSON.stringify(location)})`)
  return source.slice(0, from) + replacement + source.slice(to)
}

/** The verdicts on disk for a package (empty when none). */
export function readRechecks(packageDir) {
  const file = join(packageDir, 'reports', 'mutation', 'recheck.json')
  if (!existsSync(file)) return {}
  return JSON.parse(readFileSync(file, 'utf8')).verdicts ?? {}
}

/**
 * The verdict recorded for one mutant of a report, or undefined when there is none for this
 * exact source (a changed file voids its verdicts).
 */
export function recheckFor(verdicts, file, source, mutant) {
  const v = verdicts[mutantKey(file, mutant)]
  return v !== undefined && v.sourceHash === sha256(source) ? v : undefined
}

/**
 * Whether a verdict needs no new run: killed or hung, or survived the same or a wider set. A
 * copy that did not build (an `error`, or a "kill" an earlier version recorded for it) is run
 * again.
 */
function settled(verdict, tests) {
  if (verdict === undefined) return false
  if (verdict.outcome === 'error' || verdict.test === '(build)') return false
  if (verdict.outcome !== 'survived') return true
  return verdict.tests === 'all' || tests.length > 0
}

function parseArgs(argv) {
  const out = {
    only: undefined,
    files: undefined,
    ids: undefined,
    tests: [],
    minutes: Number.POSITIVE_INFINITY,
    again: false,
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--only') out.only = argv[++i]
    else if (a === '--files') out.files = (argv[++i] ?? '').split(',').filter(Boolean)
    else if (a === '--ids') out.ids = (argv[++i] ?? '').split(',').filter(Boolean)
    else if (a === '--tests') out.tests = (argv[++i] ?? '').split(',').filter(Boolean)
    else if (a === '--minutes') out.minutes = Number(argv[++i])
    else if (a === '--again') out.again = true
    else if (a !== '--') throw new Error(`unknown argument ${a}`)
  }
  if (!out.only) throw new Error('--only <package> is required')
  if (!(out.minutes > 0)) throw new Error('--minutes takes a number > 0')
  return out
}

/** Runs the copy's Stryker test set once; 'passed', 'timeout' or the first failing test. */
function runSuite(copy, timeoutMs, tests) {
  const out = join(mkdtempSync(join(tmpdir(), 'recheck-')), 'report.json')
  // spawnSync's own timeout kills only its direct child (npx), which left the vitest under it
  // running the suite after a timeout: the orphans then slowed every later run into a timeout
  // of its own. coreutils `timeout` runs the command in a process group of its own and kills
  // the whole group, workers included; spawnSync's timeout stays as a backstop.
  const seconds = Math.ceil(timeoutMs / 1000)
  const child = spawnSync(
    'timeout',
    [
      '-s',
      'KILL',
      String(seconds),
      'npx',
      'vitest',
      'run',
      '--config',
      'stryker.vitest.config.mjs',
      '--bail',
      '1',
      '--reporter',
      'json',
      '--outputFile',
      out,
      ...tests,
    ],
    { cwd: copy, encoding: 'utf8', timeout: timeoutMs + 30_000, killSignal: 'SIGKILL' },
  )
  try {
    // 137: `timeout` killed the group (128 + SIGKILL).
    if (child.error?.code === 'ETIMEDOUT' || child.signal === 'SIGKILL' || child.status === 137)
      return { outcome: 'timeout' }
    if (!existsSync(out))
      return { outcome: 'failed', test: `(no report; exit ${child.status})`, failed: 0 }
    const report = JSON.parse(readFileSync(out, 'utf8'))
    const failedTests = []
    for (const file of report.testResults ?? []) {
      const rel = file.name.slice(copy.length + 1)
      for (const t of file.assertionResults ?? [])
        if (t.status === 'failed') failedTests.push(`${rel} › ${t.fullName ?? t.title}`)
      // A file that fails to load has no failed test, only its own status.
      if (file.status === 'failed' && (file.assertionResults ?? []).length === 0)
        failedTests.push(
          `${rel} (the file failed: ${(file.message ?? '').split('\n')[0].slice(0, 120)})`,
        )
    }
    if (child.status === 0 && failedTests.length === 0)
      return { outcome: 'passed', tests: report.numPassedTests ?? 0 }
    return {
      outcome: 'failed',
      test: failedTests[0] ?? `(exit ${child.status})`,
      failed: failedTests.length,
    }
  } finally {
    rmSync(join(out, '..'), { recursive: true, force: true })
  }
}

function build(copy) {
  if (!existsSync(join(copy, 'stryker.build.mjs'))) return true
  const child = spawnSync('node', ['stryker.build.mjs'], { cwd: copy, encoding: 'utf8' })
  return child.status === 0
}

async function main() {
  const args = parseArgs(process.argv.slice(2))
  const packageDir = join(ROOT, 'packages', args.only)
  const reportFile = join(packageDir, 'reports', 'mutation', 'mutation.json')
  if (!existsSync(reportFile))
    throw new Error(
      `no merged report at ${reportFile}: run \`node jobs/mutation/run.mjs --collect\``,
    )
  const report = JSON.parse(readFileSync(reportFile, 'utf8'))
  const verdictFile = join(packageDir, 'reports', 'mutation', 'recheck.json')
  const verdicts = readRechecks(packageDir)
  // Merged with what is on disk at each save, not written from the start's read alone: two
  // rechecks of one package (other files, or other --tests) may run side by side, and each
  // would otherwise drop the verdicts the other saved since it started.
  // Only the verdict recorded since the last save is written over the disk's: a later run's
  // verdict for a mutant this run decided earlier is kept.
  const mine = new Set()
  const save = () => {
    const merged = { ...readRechecks(packageDir) }
    for (const key of mine) merged[key] = verdicts[key]
    mine.clear()
    Object.assign(verdicts, merged)
    writeFileSync(
      verdictFile,
      `${JSON.stringify({ package: args.only, verdicts: merged }, null, 2)}\n`,
    )
  }

  const todo = []
  let stale = 0
  for (const [file, entry] of Object.entries(report.files ?? {})) {
    if (args.files && !args.files.includes(file)) continue
    const current = readFileSync(join(packageDir, file), 'utf8')
    const open = (entry.mutants ?? []).filter(
      (m) =>
        (m.status === 'Survived' || m.status === 'NoCoverage') &&
        (args.ids === undefined || args.ids.includes(m.id)) &&
        ((args.again && args.ids !== undefined) ||
          !settled(recheckFor(verdicts, file, entry.source, m), args.tests)),
    )
    if (open.length === 0) continue
    if (current !== entry.source) {
      stale += open.length
      continue
    }
    for (const m of open) todo.push({ file, source: entry.source, mutant: m })
  }
  console.log(
    `recheck: ${args.only}: ${todo.length} mutant(s) to re-check${stale ? `; ${stale} left: their file changed since the run` : ''}`,
  )
  if (todo.length === 0) return

  const copy = copyPackage(packageDir)
  try {
    const started = Date.now()
    if (!build(copy)) throw new Error('the unmutated copy does not build')
    const baseline = runSuite(copy, 30 * 60_000, args.tests)
    if (baseline.outcome !== 'passed')
      throw new Error(`the unmutated copy fails (${baseline.test ?? baseline.outcome})`)
    const baseMs = Date.now() - started
    // A mutant that makes the suite run three times as long as the clean run (plus a minute for
    // a loaded machine) is taken as hung: Stryker's own Timeout, which counts as detected.
    const timeoutMs = baseMs * 3 + 60_000
    console.log(
      `recheck: clean run passed in ${(baseMs / 1000).toFixed(0)} s (${baseline.tests} tests)`,
    )
    let done = 0
    for (const { file, source, mutant } of todo) {
      if ((Date.now() - started) / 60_000 > args.minutes) {
        console.log(`recheck: --minutes ${args.minutes} reached; ${todo.length - done} left`)
        break
      }
      const target = join(copy, file)
      const t0 = Date.now()
      let verdict
      try {
        writeFileSync(target, applyMutant(source, mutant.location, replacementText(mutant)))
        // Stryker ran this mutant, so it compiles there: a copy that does not build is a splice
        // that went wrong, which says nothing of the tests. Recorded as an error, not a kill.
        verdict = build(copy)
          ? runSuite(copy, timeoutMs, args.tests)
          : { outcome: 'error', test: '(the mutated copy does not build)' }
      } finally {
        writeFileSync(target, source)
      }
      mine.add(mutantKey(file, mutant))
      verdicts[mutantKey(file, mutant)] = {
        sourceHash: sha256(source),
        stryker: mutant.status,
        outcome:
          verdict.outcome === 'failed'
            ? 'killed'
            : verdict.outcome === 'timeout' || verdict.outcome === 'error'
              ? verdict.outcome
              : 'survived',
        ...(verdict.test ? { test: verdict.test } : {}),
        tests: args.tests.length === 0 ? 'all' : args.tests,
        seconds: Math.round((Date.now() - t0) / 1000),
        date: new Date().toISOString(),
      }
      save()
      done++
      const v = verdicts[mutantKey(file, mutant)]
      console.log(
        `recheck: ${done}/${todo.length} ${file}:${mutant.location.start.line} ${mutant.mutatorName} → ${v.outcome}${v.test ? ` (${v.test})` : ''} ${v.seconds} s`,
      )
    }
    build(copy)
  } finally {
    removeCopy(copy)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(`recheck: ${error.message}`)
    process.exit(2)
  })
}
