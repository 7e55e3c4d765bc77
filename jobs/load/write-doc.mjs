// Renders docs/load-and-faults.md from jobs/load/results/*.json and
// jobs/faults/results/*.json (written by at-cap.mjs and faults/run.mjs), so the document
// states exactly what the last runs recorded, with their dates and machines.
//
//   node jobs/load/write-doc.mjs

import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { ROOT } from './lib.mjs'
import { fleetSection } from './render-fleet.mjs'

function load(dir) {
  const folder = `${ROOT}jobs/${dir}/results/`
  if (!existsSync(folder)) return []
  return readdirSync(folder)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({
      file: `jobs/${dir}/results/${f}`,
      ...JSON.parse(readFileSync(folder + f, 'utf8')),
    }))
}

const fmt = (v) => (typeof v === 'object' && v !== null ? `\`${JSON.stringify(v)}\`` : String(v))

function machineLine(run) {
  const m = run.machine
  return `Run ${run.date} at commit ${m.commit} (\`${run.file}\`): Node ${m.node}, ${m.cpu}, ${m.cores} cores, ${m.os}, ${m.memoryGiB} GiB, load average at start ${m.loadAtStart.join(' / ')}.`
}

const out = [
  '# Load and fault runs',
  '',
  'Written by `node jobs/load/write-doc.mjs` (the last step of `pnpm load` and `pnpm faults`)',
  'from the results the runs record. Everything runs on 127.0.0.1, bounded in count and time.',
  'Each figure names the instance it was measured on and its instrument; none is a bound for',
  'other inputs.',
  '',
  '- `pnpm load at-cap [express|mcp|all]` (`jobs/load/at-cap.mjs`): concurrent bodies at the route cap, held in',
  '  flight together (first KiB, 1 s pause, the rest), in waves larger than the 256 MiB in-flight',
  '  budget allows.',
  '- `pnpm faults [abort|slow|stdio|redis|all]` (`jobs/faults/run.mjs`): client abort mid-body, slow',
  '  senders, a stdio peer closing mid-line, Redis stopped during redemption.',
  '',
  '- `pnpm load attacks [mcp|express|all] [label]` (`jobs/load/attacks.mjs`): the fair-admission attacks (endless',
  '  bodies after an early answer, idle sockets declaring large lengths, session filling, held-back',
  '  initializes, continuation minting, unauthenticated bursts), each beside a legitimate client.',
  '- `pnpm load fairness` (`jobs/load/fairness.mjs`): one anonymous address against another (slow',
  '  bodies, session filling, endless bodies on GET/DELETE, input-validation refusal logs).',
  '- `pnpm load fleet` (`jobs/load/fleet.mjs`): three reference servers on one redis-server behind a',
  '  round-robin balancer, one principal at its limits beside other credentials, an instance killed,',
  '  Redis stopped and started again; then three gateways in front of one upstream on that Redis',
  '  (needs `redis-server` on PATH).',
  '',
  'Apps must be built first (`pnpm build`). None of these scripts runs in the test suite.',
  '',
  '## Concurrent at-cap bodies',
]
for (const run of load('load').filter((r) => r.name.startsWith('at-cap'))) {
  out.push('', machineLine(run))
  for (const r of run.results) {
    out.push(
      '',
      `### ${r.target}`,
      '',
      '| measure | value |',
      '| --- | --- |',
      `| bodies | ${r.waves} waves × ${r.concurrentPerWave} concurrent, each ${r.capBytes.toLocaleString('en-US')} bytes (the cap) |`,
      `| answers | ${fmt(r.statuses)} |`,
      `| every request answered with a documented status | ${r.everyRequestAnswered ? 'yes' : `**no**: ${fmt(r.unexpectedStatuses)}`} |`,
      `| RSS baseline (after GC) | ${r.baselineRssMiB} MiB |`,
      `| RSS peak (sampled / kernel VmHWM) | ${r.sampledPeakRssMiB} / ${r.kernelPeakRssMiB} MiB |`,
      `| peak over baseline | ${r.peakOverBaselineMiB} MiB (budget ${r.inFlightBudgetMiB} MiB; above the budget: ${r.peakOverBaselineMinusBudgetMiB} MiB) |`,
      `| heap after GC, before → after the waves | ${r.heapAfterGcMiB.before} → ${r.heapAfterGcMiB.after} MiB |`,
      `| array buffers after GC, before → after | ${r.arrayBuffersAfterGcMiB.before} → ${r.arrayBuffersAfterGcMiB.after} MiB |`,
      `| active handles, before → after | ${fmt(r.activeResources.before)} → ${fmt(r.activeResources.after)} |`,
      `| wave durations | ${r.waveSeconds.join(', ')} s |`,
      '',
      `Instrument: ${r.instrument}.`,
    )
  }
}
const legit = (l) =>
  l === null || l === undefined
    ? '—'
    : `${l.served}/${l.requests} served, p50 ${l.p50Ms} ms, p99 ${l.p99Ms} ms`
const attackRuns = load('load').filter((r) => r.name.startsWith('attacks-'))
if (attackRuns.length > 0) {
  out.push(
    '',
    '## Fair admission: attacks beside a legitimate client',
    '',
    'Each row: the legitimate client alone ("before"), the same client while the attack runs',
    '("during"), and what the attacker got. A run labelled `before` was made on a build without',
    'the fair-admission controls (the attack then succeeds); the unlabelled run is the current build.',
  )
}
for (const run of attackRuns) {
  out.push(
    '',
    `### ${run.target}${run.name.endsWith('-before') ? ' — build without the controls (`before`)' : ''}`,
    '',
    machineLine(run),
    '',
    `Legitimate client: ${run.legitimateClient}.`,
    '',
    '| attack | legitimate client before | legitimate client during | attacker got |',
    '| --- | --- | --- | --- |',
  )
  for (const r of run.results) {
    const args =
      r.serverArgs === undefined
        ? ''
        : ` (server ${r.serverArgs.length === 0 ? 'defaults: build has no session flags' : r.serverArgs.join(' ')})`
    out.push(
      `| ${r.attack}${args} | ${legit(r.before)} | ${legit(r.during)} | ${fmt(r.observed)} |`,
    )
  }
}
const fairnessRuns = load('load').filter((r) => r.name.startsWith('fairness-'))
if (fairnessRuns.length > 0) {
  out.push(
    '',
    '## Fair per caller: the issue 29 rows against the built server',
    '',
    'Each row runs one attack from one anonymous address (127.0.0.2) beside another anonymous',
    'caller (127.0.0.1) and says whether the other caller was still served (`held`) and with what',
    'figures. The run labelled `before` is the same job against a build of the commit before the',
    'fair-per-caller controls: rows 1 and 2 fell there. Its rows 3 and 6 do not reproduce the',
    'original findings (that GET carried no session, so the server answered it itself and closed;',
    "the refused calls were stopped by that build's request quota before validation): those two",
    'rows are held, with their controls removed, by the suite (see SECURITY.md).',
  )
}
for (const run of fairnessRuns) {
  const before = run.name.endsWith('-before')
  out.push('', `### ${run.target}${before ? ' — build before the controls (`before`)' : ''}`)
  out.push('', machineLine(run), '')
  if (run.notRun !== undefined) out.push(`Not run: ${run.notRun}.`, '')
  out.push('| row | attack | verdict | figures |', '| --- | --- | --- | --- |')
  for (const r of run.results) {
    out.push(`| ${r.row} | ${r.attack} | ${r.verdict} | ${fmt(r.figure)} |`)
  }
}
for (const run of load('load').filter((r) => r.name === 'fleet'))
  out.push(...fleetSection(run, machineLine))
out.push('', '## Faults')
for (const run of load('faults')) {
  out.push('', machineLine(run))
  for (const r of run.results) {
    out.push(
      '',
      `### ${r.scenario}`,
      '',
      `Verdict: **${r.pass ? 'pass' : 'FAIL'}**.`,
      '',
      '| measure | value |',
      '| --- | --- |',
    )
    for (const [k, v] of Object.entries(r)) {
      if (k === 'scenario' || k === 'pass') continue
      if (k === 'cases') {
        for (const [name, c] of Object.entries(v)) out.push(`| ${name} | ${fmt(c)} |`)
      } else out.push(`| ${k} | ${fmt(v)} |`)
    }
  }
}
out.push('')
const file = `${ROOT}docs/load-and-faults.md`
const findings = `${ROOT}jobs/load/FINDINGS.md`
if (existsSync(findings)) out.push(readFileSync(findings, 'utf8'))
writeFileSync(file, out.join('\n'))
const biome = `${ROOT}node_modules/.bin/biome`
if (existsSync(biome)) spawnSync(biome, ['format', '--write', file], { stdio: 'ignore' })
console.log('wrote docs/load-and-faults.md')
