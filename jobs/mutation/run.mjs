// pnpm mutation [--only a,b] [--collect]
//
// Runs each package's own `mutation` script (Stryker with the vitest runner, configured by
// the package owner), one package at a time, then reads every package's Stryker JSON report
// (reports/mutation/mutation.json) and writes docs/mutation.md: per package the score, the
// counts by status, the date and the machine, and every surviving mutant by file, line and
// mutator, with whether the package README has a section accounting for survivors.
// `--collect` skips running and only reads the reports already on disk. Not in the default run.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { cpus, release } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const GOAL = 90
// The packages issue 9 names; any other package with a `mutation` script is included too.
const EXPECTED = [
  'json-budget',
  'lexical-preflight',
  'http-admission',
  'mcp-validation',
  'continuation',
]
const MAX_MS = 60 * 60 * 1000

const args = process.argv.slice(2)
const collectOnly = args.includes('--collect')
const onlyIndex = args.indexOf('--only')
const only = onlyIndex >= 0 ? (args[onlyIndex + 1] ?? '').split(',') : undefined

function packages() {
  return readdirSync(join(ROOT, 'packages'))
    .filter((name) => existsSync(join(ROOT, 'packages', name, 'package.json')))
    .map((name) => {
      const pkg = JSON.parse(readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8'))
      return { dir: name, name: pkg.name, script: pkg.scripts?.mutation }
    })
    .filter((p) =>
      only === undefined ? EXPECTED.includes(p.dir) || p.script : only.includes(p.dir),
    )
    .sort((a, b) => a.dir.localeCompare(b.dir))
}

function git(argsList) {
  try {
    return execFileSync('git', ['-C', ROOT, ...argsList], { encoding: 'utf8' }).trim()
  } catch {
    return 'unknown'
  }
}

/** Reads a Stryker mutation-testing-report-schema JSON and counts mutants by status. */
function readReport(file) {
  const report = JSON.parse(readFileSync(file, 'utf8'))
  const counts = {}
  const survivors = []
  for (const [path, entry] of Object.entries(report.files ?? {})) {
    for (const m of entry.mutants ?? []) {
      counts[m.status] = (counts[m.status] ?? 0) + 1
      if (m.status === 'Survived' || m.status === 'NoCoverage') {
        survivors.push({
          status: m.status,
          where: `${path.replace(/^.*?src\//, 'src/')}:${m.location?.start?.line ?? '?'}`,
          mutator: m.mutatorName,
          replacement: String(m.replacement ?? '')
            .replace(/\s+/g, ' ')
            .slice(0, 60),
        })
      }
    }
  }
  const detected = (counts.Killed ?? 0) + (counts.Timeout ?? 0)
  const undetected = (counts.Survived ?? 0) + (counts.NoCoverage ?? 0)
  const valid = detected + undetected
  return {
    counts,
    survivors,
    score: valid === 0 ? Number.NaN : (100 * detected) / valid,
    coveredScore:
      detected + (counts.Survived ?? 0) === 0
        ? Number.NaN
        : (100 * detected) / (detected + (counts.Survived ?? 0)),
    date: statSync(file).mtime.toISOString(),
  }
}

const results = []
for (const pkg of packages()) {
  const dir = join(ROOT, 'packages', pkg.dir)
  const reportFile = join(dir, 'reports', 'mutation', 'mutation.json')
  let run
  if (!collectOnly && pkg.script) {
    console.log(`mutation: ${pkg.name} ...`)
    const started = Date.now()
    const child = spawnSync('npx', ['pnpm@12.4.2', 'run', 'mutation'], {
      cwd: dir,
      stdio: 'inherit',
      timeout: MAX_MS,
    })
    run = {
      status: child.status ?? child.signal ?? 'unknown',
      minutes: (Date.now() - started) / 60_000,
    }
  }
  const readme = existsSync(join(dir, 'README.md'))
    ? readFileSync(join(dir, 'README.md'), 'utf8')
    : ''
  const readmeSection = /^#+ .*(surviv|mutation)/im.test(readme)
  results.push({
    pkg,
    run,
    report: existsSync(reportFile) ? readReport(reportFile) : undefined,
    readmeSection,
  })
}

const cpu = cpus()
const lines = [
  '# Mutation testing',
  '',
  "Written by `pnpm mutation` (`scripts/mutation.mjs`), which runs each package's own Stryker",
  'configuration (vitest runner) and reads its JSON report; not part of the default test run.',
  `Goal: a score of at least ${GOAL}% per package, and every surviving mutant accounted for in the`,
  'package README (why it is equivalent, or which test now kills it).',
  '',
  'Score = (killed + timed out) / (killed + timed out + survived + no coverage); the covered',
  'score leaves out mutants no test reaches. A killed mutant proves the assertion, not the',
  'fixture (seed ADR-011 §7.6): the tests that kill security mutants go through the production',
  'path.',
  '',
  `Collected ${new Date().toISOString()} at commit ${git(['rev-parse', '--short', 'HEAD'])} on Node ${process.version}, ${cpu[0]?.model ?? 'unknown'}, ${cpu.length} cores, ${process.platform} ${release()}.`,
  '',
  '| package | score | covered score | killed | timeout | survived | no coverage | errors | report date | this run | README accounts for survivors |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
]
const pct = (n) => (Number.isFinite(n) ? `${n.toFixed(1)}%` : '—')
for (const { pkg, run, report, readmeSection } of results) {
  const c = report?.counts ?? {}
  const ran =
    run === undefined
      ? pkg.script
        ? 'not run (--collect)'
        : 'no `mutation` script'
      : `exit ${run.status}, ${run.minutes.toFixed(1)} min`
  lines.push(
    `| ${pkg.name} | ${report ? `${pct(report.score)}${report.score >= GOAL ? '' : ' (below goal)'}` : '**no report**'} | ${pct(report?.coveredScore)} | ${c.Killed ?? 0} | ${c.Timeout ?? 0} | ${c.Survived ?? 0} | ${c.NoCoverage ?? 0} | ${(c.RuntimeError ?? 0) + (c.CompileError ?? 0)} | ${report?.date ?? '—'} | ${ran} | ${report && (c.Survived ?? 0) + (c.NoCoverage ?? 0) > 0 ? (readmeSection ? 'a section exists' : '**no section**') : '—'} |`,
  )
}
for (const { pkg, report } of results) {
  if (!report || report.survivors.length === 0) continue
  // Grouped by file: how many survived or were never reached, and on which lines (with the
  // mutators), so a README can account for each.
  const byFile = new Map()
  for (const s of report.survivors) {
    const [file, line] = s.where.split(':')
    const entry = byFile.get(file) ?? { survived: 0, noCoverage: 0, lines: new Map() }
    if (s.status === 'Survived') entry.survived++
    else entry.noCoverage++
    const at = entry.lines.get(Number(line)) ?? new Set()
    at.add(s.mutator)
    entry.lines.set(Number(line), at)
    byFile.set(file, entry)
  }
  lines.push(
    '',
    `## ${pkg.name}: surviving mutants`,
    '',
    '| file | survived | no coverage | lines (mutators) |',
    '| --- | --- | --- | --- |',
  )
  for (const [file, e] of [...byFile].sort(([a], [b]) => a.localeCompare(b))) {
    const where = [...e.lines]
      .sort(([a], [b]) => a - b)
      .map(([line, mutators]) => `${line} (${[...mutators].join(', ')})`)
      .join('; ')
    lines.push(`| \`packages/${pkg.dir}/${file}\` | ${e.survived} | ${e.noCoverage} | ${where} |`)
  }
}
const missing = results.filter((r) => !r.report).map((r) => r.pkg.name)
if (missing.length > 0) {
  lines.push(
    '',
    `No report yet for: ${missing.join(', ')} (run \`pnpm mutation --only <dir>\` once the package has a \`mutation\` script).`,
  )
}
lines.push('')
const file = join(ROOT, 'docs', 'mutation.md')
writeFileSync(file, lines.join('\n'))
const biome = join(ROOT, 'node_modules', '.bin', 'biome')
if (existsSync(biome)) spawnSync(biome, ['format', '--write', file], { stdio: 'ignore' })
console.log(`mutation: wrote docs/mutation.md (${results.length} packages)`)
if (results.some((r) => r.run !== undefined && r.run.status !== 0)) process.exitCode = 1
