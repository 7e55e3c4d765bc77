// pnpm mutation [--only a,b] [--files <glob,...>] [--concurrency n] [--collect]
//
// Runs each package's own `mutation` script (Stryker with the vitest runner, configured by
// the package owner), one package at a time, and saves each run as a slice
// (`reports/mutation/slices/<slug>.json`, see slices.mjs). `--files` (with `--only <one
// package>`) runs Stryker with `--mutate` for just those files, so a package too long for one
// sitting is run file by file; every slice of a package is then merged mechanically into its
// `reports/mutation/mutation.json`, each file whole from its latest slice, and the files of
// `src/` that no slice covered are listed. Then writes, for every package, the score table to
// docs/mutation.md (short: the score, the counts by status, whether the report covers every
// file of the mutate set, the date, commit and machine) and the full account to
// reports/mutation/mutation.md, not committed (each slice's date, commit and machine, the
// mutants killed on recheck, every surviving mutant by file, line and mutator; see pages.mjs).
// `--collect` runs nothing and only merges and reads what is on disk. A report
// Stryker wrote outside this driver (`pnpm --filter <pkg> mutation`) is taken in as a slice
// first. `--incremental` is never passed: it reused stale results here. Not in the default run.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, release } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { DETAILS_PAGE, detailsPage, SUMMARY_PAGE, summaryPage } from './pages.mjs'
import { readRechecks, recheckFor } from './recheck.mjs'
import {
  adoptDirectReport,
  listPackageFiles,
  mergeSlices,
  readSlices,
  saveSlice,
  selectFiles,
  sliceSlug,
  staleFiles,
} from './slices.mjs'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const GOAL = 90
// The six published packages must each report (a missing one fails the run); any other package
// with a `mutation` script is included too.
const EXPECTED = [
  'continuation',
  'http-admission',
  'json-budget',
  'lexical-preflight',
  'mcp-transport',
  'mcp-validation',
]
const DEFAULT_MUTATE = ['src/**/*.ts', '!src/index.ts']
const MAX_MS = 6 * 60 * 60 * 1000

function parseArgs(argv) {
  const out = { collect: false, only: undefined, files: undefined, concurrency: undefined }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--collect') out.collect = true
    else if (a === '--only') out.only = (argv[++i] ?? '').split(',').filter(Boolean)
    else if (a === '--files') out.files = (argv[++i] ?? '').split(',').filter(Boolean)
    else if (a === '--concurrency') {
      // Stryker's test-runner processes, over the package's own setting: on a quiet machine
      // every core, on a shared one fewer.
      const n = Number(argv[++i])
      if (!Number.isInteger(n) || n < 1) throw new Error('--concurrency takes a whole number >= 1')
      out.concurrency = n
    } else if (a === '--incremental')
      throw new Error('--incremental is not supported: it reuses stale results')
    else if (a !== '--') throw new Error(`unknown argument ${a}`)
  }
  if (out.files !== undefined) {
    if (out.only?.length !== 1) throw new Error('--files needs --only <one package>')
    if (out.files.length === 0) throw new Error('--files needs at least one glob')
    // A line range would leave the file half run, and the merge takes files whole.
    const ranged = out.files.find((f) => /:\d+(?::\d+)?-\d+/.test(f))
    if (ranged !== undefined)
      throw new Error(`--files takes whole files, not a line range (${ranged})`)
  }
  return out
}

let args
try {
  args = parseArgs(process.argv.slice(2))
} catch (error) {
  console.error(`mutation: ${error.message}`)
  process.exit(2)
}

function git(argsList) {
  try {
    return execFileSync('git', ['-C', ROOT, ...argsList], { encoding: 'utf8' }).trim()
  } catch {
    return 'unknown'
  }
}

const cpu = cpus()
const MACHINE = `Node ${process.version}, ${cpu[0]?.model ?? 'unknown'}, ${cpu.length} cores, ${process.platform} ${release()}`
const COMMIT = git(['rev-parse', '--short', 'HEAD'])

function packages() {
  return readdirSync(join(ROOT, 'packages'))
    .filter((name) => existsSync(join(ROOT, 'packages', name, 'package.json')))
    .map((name) => {
      const pkg = JSON.parse(readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8'))
      return { dir: name, name: pkg.name, script: pkg.scripts?.mutation }
    })
    .filter((p) => EXPECTED.includes(p.dir) || p.script)
    .sort((a, b) => a.dir.localeCompare(b.dir))
}

/** The package's mutate set: its stryker.config.mjs `mutate` patterns over its files. */
async function expectedFiles(dir) {
  const config = join(dir, 'stryker.config.mjs')
  const patterns = existsSync(config)
    ? ((await import(pathToFileURL(config).href)).default?.mutate ?? DEFAULT_MUTATE)
    : DEFAULT_MUTATE
  return selectFiles(listPackageFiles(dir), patterns)
}

/** Runs the package's `mutation` script (for `files` only, when given); saves the slice. */
function runSlice(pkg, dir, files, expected) {
  const reportFile = join(dir, 'reports', 'mutation', 'mutation.json')
  // Gone before the run, so a run that writes no report cannot pass off an old one as its own.
  rmSync(reportFile, { force: true })
  const extra = files === undefined ? [] : ['--mutate', files.join(',')]
  if (args.concurrency !== undefined) extra.push('--concurrency', String(args.concurrency))
  console.log(`mutation: ${pkg.name}${files ? ` (${files.length} file(s))` : ''} ...`)
  const started = Date.now()
  const child = spawnSync('npx', ['-y', 'pnpm@12.4.2', 'run', 'mutation', ...extra], {
    cwd: dir,
    stdio: 'inherit',
    timeout: MAX_MS,
  })
  const run = {
    status: child.status ?? child.signal ?? 'unknown',
    minutes: (Date.now() - started) / 60_000,
  }
  if (run.status === 0 && existsSync(reportFile)) {
    const report = JSON.parse(readFileSync(reportFile, 'utf8'))
    const slug = sliceSlug(args.files)
    saveSlice(dir, report, {
      slug,
      mutate: args.files ?? ['(the package configuration)'],
      files: files ?? expected,
      date: new Date().toISOString(),
      commit: COMMIT,
      machine: MACHINE,
      minutes: Number(run.minutes.toFixed(1)),
    })
    run.slice = slug
  }
  return run
}

/**
 * Reads a merged Stryker report and counts mutants by status. A Survived or NoCoverage mutant
 * that recheck.mjs applied to a copy and the suite then failed (or hung) is counted as killed
 * (or timed out) on recheck, for the exact source it was measured on; the Stryker-only score
 * is kept beside it.
 */
function readReport(report, verdicts) {
  const counts = {}
  const survivors = []
  let rechecked = 0
  let recheckKilled = 0
  const recheckKills = []
  for (const [path, entry] of Object.entries(report.files ?? {})) {
    for (const m of entry.mutants ?? []) {
      let status = m.status
      if (status === 'Survived' || status === 'NoCoverage') {
        const v = recheckFor(verdicts, path, entry.source ?? '', m)
        if (v !== undefined) {
          rechecked++
          if (v.outcome === 'killed' || v.outcome === 'timeout') {
            recheckKilled++
            recheckKills.push({
              file: path,
              line: m.location?.start?.line ?? 0,
              mutator: m.mutatorName,
              replacement: m.replacement ?? '',
              outcome: v.outcome,
              test: v.test ?? '',
            })
            status = v.outcome === 'killed' ? 'Killed' : 'Timeout'
          }
        }
      }
      counts[status] = (counts[status] ?? 0) + 1
      if (status === 'Survived' || status === 'NoCoverage') {
        survivors.push({
          status,
          file: path,
          line: m.location?.start?.line ?? 0,
          mutator: m.mutatorName,
        })
      }
    }
  }
  const score = (c) => {
    const detected = (c.Killed ?? 0) + (c.Timeout ?? 0)
    const valid = detected + (c.Survived ?? 0) + (c.NoCoverage ?? 0)
    return valid === 0 ? Number.NaN : (100 * detected) / valid
  }
  const strykerCounts = { ...counts }
  strykerCounts.Survived = (strykerCounts.Survived ?? 0) + recheckKilled
  strykerCounts.Killed = (strykerCounts.Killed ?? 0) - recheckKilled
  const detected = (counts.Killed ?? 0) + (counts.Timeout ?? 0)
  return {
    counts,
    survivors,
    rechecked,
    recheckKilled,
    recheckKills,
    score: score(counts),
    strykerScore: score(strykerCounts),
    coveredScore:
      detected + (counts.Survived ?? 0) === 0
        ? Number.NaN
        : (100 * detected) / (detected + (counts.Survived ?? 0)),
    meta: report.tollgate,
  }
}

const unknown = (args.only ?? []).filter((dir) => !packages().some((p) => p.dir === dir))
if (unknown.length > 0) {
  console.error(`mutation: --only names no package: ${unknown.join(', ')}`)
  process.exit(2)
}

const results = []
for (const pkg of packages()) {
  const dir = join(ROOT, 'packages', pkg.dir)
  const expected = await expectedFiles(dir)
  adoptDirectReport(dir)
  let run
  if (!args.collect && pkg.script && (args.only === undefined || args.only.includes(pkg.dir))) {
    let files
    if (args.files !== undefined) {
      files = selectFiles(expected, args.files)
      if (files.length === 0) {
        console.error(
          `mutation: --files ${args.files.join(',')} selects no file of ${pkg.dir}'s mutate set`,
        )
        process.exit(2)
      }
    }
    run = runSlice(pkg, dir, files, expected)
  }
  const slices = readSlices(dir)
  let report
  if (slices.length > 0) {
    const merged = mergeSlices(slices, expected)
    writeFileSync(
      join(dir, 'reports', 'mutation', 'mutation.json'),
      `${JSON.stringify(merged, null, 2)}\n`,
    )
    report = readReport(merged, readRechecks(dir))
    report.stale = staleFiles(merged, (file) => {
      const path = join(dir, file)
      return existsSync(path) ? readFileSync(path, 'utf8') : undefined
    })
  }
  results.push({ pkg, run, report, expected })
}

const header = { goal: GOAL, date: new Date().toISOString(), commit: COMMIT, machine: MACHINE }
const biome = join(ROOT, 'node_modules', '.bin', 'biome')
for (const [page, text] of [
  [SUMMARY_PAGE, summaryPage(results, header)],
  [DETAILS_PAGE, detailsPage(results, header)],
]) {
  const file = join(ROOT, page)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, text)
  if (existsSync(biome)) spawnSync(biome, ['format', '--write', file], { stdio: 'ignore' })
}
console.log(`mutation: wrote ${SUMMARY_PAGE} and ${DETAILS_PAGE} (${results.length} packages)`)
if (results.some((r) => r.run !== undefined && r.run.status !== 0)) process.exitCode = 1
