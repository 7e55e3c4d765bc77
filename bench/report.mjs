// pnpm bench [--no-run] [--only a,b]
//
// Runs every bench/*.bench.mjs (one at a time, each in its own process, so no benchmark
// measures another's garbage), then writes bench/REPORT.md from bench/results/<name>.json:
// one table per result array, a bar chart of the ratios (bench/charts/<name>.svg, 1.0 = the
// anchor measured in the same run), the date each figure was measured, the machine and the
// commit. A benchmark that writes no results file is reported with the Markdown tables it
// printed, and says so. `--no-run` renders from the results already on disk.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, freemem, loadavg, release, totalmem } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const BENCH = fileURLToPath(new URL('.', import.meta.url))
const RESULTS = join(BENCH, 'results')
const CHARTS = join(BENCH, 'charts')
const MAX_MS_PER_BENCH = 15 * 60 * 1000

// A row names its instance through one of these fields; a row that names none is flagged.
const INSTANCE_KEYS = ['instance', 'input', 'inputs', 'workload', 'document', 'body', 'case']

function parseArgs(argv) {
  const out = { run: true, only: undefined }
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--no-run') out.run = false
    else if (argv[i] === '--only') out.only = (argv[++i] ?? '').split(',')
    else if (argv[i] !== '--') throw new Error(`unknown argument ${argv[i]}`)
  }
  return out
}

function benches(only) {
  return readdirSync(BENCH)
    .filter((f) => f.endsWith('.bench.mjs'))
    .map((f) => basename(f, '.bench.mjs'))
    .filter((name) => only === undefined || only.includes(name))
    .sort()
}

function sh(cmd, args) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return 'unknown'
  }
}

function machine() {
  const cpu = cpus()
  return {
    node: process.version,
    cores: cpu.length,
    cpu: cpu[0]?.model ?? 'unknown',
    os: `${process.platform} ${release()}`,
    memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB (${(freemem() / 2 ** 30).toFixed(1)} GiB free at start)`,
    load: loadavg()
      .map((l) => l.toFixed(1))
      .join(' / '),
  }
}

/** Runs one benchmark; returns its exit status, duration and the stdout it printed. */
function runBench(name) {
  const started = Date.now()
  console.log(`bench: running ${name} ...`)
  const run = spawnSync(process.execPath, [join(BENCH, `${name}.bench.mjs`)], {
    cwd: join(BENCH, '..'),
    encoding: 'utf8',
    timeout: MAX_MS_PER_BENCH,
    maxBuffer: 64 * 1024 * 1024,
  })
  const seconds = (Date.now() - started) / 1000
  const status = run.status ?? (run.signal ? `killed (${run.signal})` : 'unknown')
  console.log(`bench: ${name} exited ${status} after ${seconds.toFixed(0)} s`)
  return { status, seconds, stdout: run.stdout ?? '', stderr: run.stderr ?? '' }
}

// ------------------------------------------------------------------ formatting

function formatNumber(n) {
  if (!Number.isFinite(n)) return String(n)
  if (Number.isInteger(n)) return n.toLocaleString('en-US')
  const abs = Math.abs(n)
  if (abs >= 1000) return Math.round(n).toLocaleString('en-US')
  if (abs >= 10) return n.toFixed(1)
  if (abs >= 0.01) return n.toFixed(2)
  return n.toPrecision(2)
}

function cell(value) {
  if (value === undefined || value === null) return ''
  if (typeof value === 'number') return formatNumber(value)
  if (typeof value === 'object') return `\`${JSON.stringify(value)}\``
  return String(value).replace(/\|/g, '\\|').replace(/\n/g, ' ')
}

function table(rows) {
  const keys = []
  for (const row of rows)
    for (const key of Object.keys(row)) if (!keys.includes(key)) keys.push(key)
  const lines = [`| ${keys.join(' | ')} |`, `| ${keys.map(() => '---').join(' | ')} |`]
  for (const row of rows) lines.push(`| ${keys.map((k) => cell(row[k])).join(' | ')} |`)
  return lines.join('\n')
}

function instanceOf(row) {
  for (const key of INSTANCE_KEYS)
    if (row[key] !== undefined && row[key] !== '') return String(row[key])
  return undefined
}

function ratioOf(row) {
  const r = typeof row.ratio === 'number' ? row.ratio : Number.parseFloat(String(row.ratio ?? ''))
  return Number.isFinite(r) ? r : undefined
}

function labelOf(row) {
  const parts = [
    row.store && row.store !== '—' ? row.store : undefined,
    instanceOf(row),
    row.transport,
  ]
  if (row.subject !== undefined) parts.push(String(row.subject))
  return parts.filter(Boolean).join(' · ') || '(instance not named)'
}

function goalOfRow(row) {
  const m = /([<>]=?|≤|≥)\s*([0-9.]+)/.exec(String(row.goal ?? ''))
  return m ? { op: m[1], value: Number(m[2]) } : undefined
}

function goalOf(rows) {
  for (const row of rows) {
    const goal = goalOfRow(row)
    if (goal) return goal
  }
  return undefined
}

/**
 * The row with a `met` column when it states a goal and a ratio: "yes" or "no" for this run's
 * figure (a figure measured once, not a bound). A row that already says `met` keeps its word.
 */
function withMet(row) {
  const goal = goalOfRow(row)
  const ratio = ratioOf(row)
  if (goal === undefined || ratio === undefined || 'met' in row) return row
  const below = goal.op.startsWith('<') || goal.op === '≤'
  const strict = goal.op === '<' || goal.op === '>'
  const met = below
    ? strict
      ? ratio < goal.value
      : ratio <= goal.value
    : strict
      ? ratio > goal.value
      : ratio >= goal.value
  return { ...row, met: met ? 'yes' : 'no' }
}

function escapeXml(text) {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
}

/**
 * A horizontal bar chart of ratios, drawn by hand: one bar per row, a solid line at 1.0 (the
 * anchor) and a dashed line at the goal when the rows state one.
 */
function barChart(title, rows, goal) {
  const bars = rows
    .map((row) => ({ label: labelOf(row), ratio: ratioOf(row) }))
    .filter((b) => b.ratio !== undefined)
  if (bars.length === 0) return undefined
  const labelWidth = 430
  const plotWidth = 360
  const barHeight = 18
  const gap = 8
  const top = 44
  const height = top + bars.length * (barHeight + gap) + 36
  const max = Math.max(1.2, goal?.value ?? 0, ...bars.map((b) => b.ratio)) * 1.1
  const x = (v) => labelWidth + (v / max) * plotWidth
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${labelWidth + plotWidth + 70}" height="${height}" font-family="sans-serif" font-size="12">`,
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="10" y="20" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
    `<text x="10" y="36" fill="#555">ratio = subject / anchor measured in the same run (1.0 = anchor)</text>`,
  ]
  bars.forEach((bar, i) => {
    const y = top + i * (barHeight + gap)
    const label = bar.label.length > 68 ? `${bar.label.slice(0, 65)}...` : bar.label
    parts.push(
      `<text x="${labelWidth - 8}" y="${y + 13}" text-anchor="end">${escapeXml(label)}</text>`,
      `<rect x="${labelWidth}" y="${y}" width="${Math.max(1, x(bar.ratio) - labelWidth).toFixed(1)}" height="${barHeight}" fill="#4a7ab5"/>`,
      `<text x="${(x(bar.ratio) + 4).toFixed(1)}" y="${y + 13}">${formatNumber(bar.ratio)}</text>`,
    )
  })
  const bottom = top + bars.length * (barHeight + gap)
  parts.push(
    `<line x1="${x(1).toFixed(1)}" y1="${top - 4}" x2="${x(1).toFixed(1)}" y2="${bottom}" stroke="black"/>`,
    `<text x="${x(1).toFixed(1)}" y="${bottom + 14}" text-anchor="middle">1.0 anchor</text>`,
  )
  if (goal !== undefined) {
    parts.push(
      `<line x1="${x(goal.value).toFixed(1)}" y1="${top - 4}" x2="${x(goal.value).toFixed(1)}" y2="${bottom}" stroke="#c0392b" stroke-dasharray="4 3"/>`,
      `<text x="${x(goal.value).toFixed(1)}" y="${bottom + 28}" text-anchor="middle" fill="#c0392b">goal ${escapeXml(goal.op)} ${goal.value}</text>`,
    )
  }
  parts.push('</svg>', '')
  return parts.join('\n')
}

/** The Markdown tables a benchmark printed, for one that wrote no results file. */
function printedTables(stdout) {
  return stdout
    .split('\n')
    .filter((line) => line.trim().startsWith('|'))
    .join('\n')
}

// ------------------------------------------------------------------ report

/** The benchmark's own header comment: its method, anchors, inputs and instruments. */
function headerComment(name) {
  const lines = readFileSync(join(BENCH, `${name}.bench.mjs`), 'utf8').split('\n')
  const out = []
  for (const line of lines) {
    if (!line.startsWith('//')) break
    out.push(line.replace(/^\/\/ ?/, ''))
  }
  return out.join('\n').trim()
}

function section(name, results, run) {
  const lines = [`## ${name}`, '']
  lines.push(`Command: \`node bench/${name}.bench.mjs\`.`)
  const header = headerComment(name)
  if (header) {
    lines.push('', "Method, anchors and instruments, from the benchmark's header:", '')
    lines.push(...header.split('\n').map((l) => (l ? `> ${l}` : '>')))
  }
  if (run !== undefined)
    lines.push(`This report's run: exit ${run.status}, ${run.seconds.toFixed(0)} s.`)
  if (results === undefined) {
    lines.push(
      '',
      `**No \`bench/results/${name}.json\` was written**, so no figure here is machine-read.`,
    )
    if (run?.stdout) {
      const printed = printedTables(run.stdout)
      lines.push('', printed ? `What it printed:\n\n${printed}` : 'It printed no table.')
    }
    return lines.join('\n')
  }
  const m = results.machine ?? {}
  lines.push(
    `Measured ${results.date ?? '(date not recorded)'} on Node ${m.node ?? '?'}, ${m.cores ?? '?'} cores, ${m.cpu ?? '?'}.`,
  )
  const arrays = Object.entries(results).filter(
    ([, v]) =>
      Array.isArray(v) &&
      v.length > 0 &&
      v.every((r) => r && typeof r === 'object' && !Array.isArray(r)),
  )
  const scalars = Object.entries(results).filter(
    ([k, v]) =>
      !['name', 'date', 'machine'].includes(k) &&
      !(Array.isArray(v) && arrays.some(([a]) => a === k)),
  )
  for (const [key, rows] of arrays) {
    lines.push('', `### ${name}: ${key}`, '', table(rows.map(withMet)))
    const unnamed = rows.filter((row) => instanceOf(row) === undefined)
    if (unnamed.length > 0) {
      lines.push(
        '',
        `**${unnamed.length} of ${rows.length} rows name no instance** (no ${INSTANCE_KEYS.map((k) => `\`${k}\``).join('/')} field): a figure without its instance is not a bound.`,
      )
    }
    const chart = barChart(`${name}: ${key}`, rows, goalOf(rows))
    if (chart !== undefined) {
      const file = `${name}${key === 'rows' ? '' : `-${key}`}.svg`
      writeFileSync(join(CHARTS, file), chart)
      lines.push('', `![${name} ${key} ratios](charts/${file})`)
    }
  }
  for (const [key, value] of scalars) lines.push('', `${key}: \`${JSON.stringify(value)}\``)
  return lines.join('\n')
}

// The benchmarks that draw their inputs from the generated family (bench/family.mjs) and write
// a `summary` of figures: median and worst over the family, the worst with its shape.
const FAMILY_BENCHES = ['family', 'admission-family', 'mcp-family']

/**
 * The report's first table: every worst-of-family figure, the goal it is judged on and the
 * shape it was worst on, with the load average of its run when the benchmark recorded it; then
 * the measured causes of the gaps (bench/family-causes.md, written from profiles, not by a run).
 */
function worstOfFamily() {
  const rows = []
  for (const name of FAMILY_BENCHES) {
    const file = join(RESULTS, `${name}.json`)
    if (!existsSync(file)) continue
    const results = JSON.parse(readFileSync(file, 'utf8'))
    for (const s of results.summary ?? []) {
      rows.push({
        figure: s.figure,
        median: s.median,
        worst: s.worst,
        goal: s.goal,
        'worst on': s.instance,
        measured: `${results.date ?? '?'} (${results.count ?? '?'} shapes, seed ${results.seed ?? '?'})`,
        load: results.load ? `${results.load.before} → ${results.load.after}` : 'not recorded',
      })
    }
  }
  if (rows.length === 0) return []
  const lines = [
    '## Worst of the generated family',
    '',
    'Goals are judged on the worst ratio over the family (bench/family.mjs), not on the fixed',
    'shapes; each row names the shape its worst was measured on. Load average: 1/5/15 min, before',
    '→ after the run.',
    '',
    table(rows),
  ]
  const causes = join(BENCH, 'family-causes.md')
  if (existsSync(causes)) lines.push('', readFileSync(causes, 'utf8').trim())
  return lines
}

const args = parseArgs(process.argv.slice(2))
const names = benches(args.only)
const runs = {}
const started = new Date()
const host = machine()
if (args.run) {
  for (const name of names) runs[name] = runBench(name)
}
mkdirSync(CHARTS, { recursive: true })
const commit = sh('git', ['-C', BENCH, 'rev-parse', '--short', 'HEAD'])
const dirty =
  sh('git', ['-C', BENCH, 'status', '--porcelain', '--', '../packages', '../apps']) !== ''
const out = [
  '# Benchmark report',
  '',
  'Written by `pnpm bench` (`bench/report.mjs`); do not edit by hand. Every figure is a',
  'ratio against its anchor measured in the same run of the same benchmark, and every row names',
  'the instance it was measured on: a figure holds for that instance, not for inputs in general.',
  'Each section gives its own measurement date (from its results file).',
  '',
  `Report written ${new Date().toISOString()}${args.run ? `, after running every benchmark from ${started.toISOString()}` : ' from the results on disk (--no-run)'}.`,
  `Commit ${commit}${dirty ? ' (with uncommitted changes under packages/ or apps/)' : ''}.`,
  '',
  '| machine | |',
  '| --- | --- |',
  `| Node | ${host.node} |`,
  `| CPU | ${host.cpu}, ${host.cores} cores |`,
  `| OS | ${host.os} |`,
  `| memory | ${host.memory} |`,
  `| load average at start (1/5/15 min) | ${host.load} |`,
  '',
  'The machine is shared: absolute figures are noisy; the ratios, taken in one process over',
  'alternating rounds, are what the benchmarks record.',
  '',
  ...worstOfFamily(),
  '',
  '## Benchmarks',
  '',
  '| benchmark | results file | measured |',
  '| --- | --- | --- |',
]
const sections = []
for (const name of names) {
  const file = join(RESULTS, `${name}.json`)
  const results = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined
  out.push(
    `| ${name} | ${results ? `\`bench/results/${name}.json\`` : '**none**'} | ${results?.date ?? '—'} |`,
  )
  sections.push(section(name, results, runs[name]))
}
out.push('', ...sections.flatMap((s) => [s, '']))
writeFileSync(join(BENCH, 'REPORT.md'), out.join('\n'))
// The repository's formatter pads Markdown tables; format the report as it would, so a fresh
// report passes `biome check` without a hand edit.
const biome = join(BENCH, '..', 'node_modules', '.bin', 'biome')
if (existsSync(biome))
  spawnSync(biome, ['format', '--write', join(BENCH, 'REPORT.md')], { stdio: 'ignore' })
console.log(
  `bench: wrote bench/REPORT.md and ${readdirSync(CHARTS).length} chart(s) in bench/charts/`,
)
const failed = Object.entries(runs).filter(([, r]) => r.status !== 0)
if (failed.length > 0) {
  console.log(`bench: ${failed.map(([n, r]) => `${n} (${r.status})`).join(', ')} did not exit 0`)
  process.exitCode = 1
}
