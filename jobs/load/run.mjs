// pnpm load [at-cap|attacks|fairness|fleet|all] [express|mcp|all] [label]
//
// The load job: runs the at-cap waves (at-cap.mjs) and/or the fair-admission attack matrix
// (attacks.mjs, and the issue-29 rows in fairness.mjs) and/or the three-instance fleet row
// (fleet.mjs: three servers and three gateways on one redis-server) against the built apps (`pnpm build` first), each in its own process so one
// run's garbage is not measured by the next, then renders docs/load-and-faults.md from every
// result on disk (write-doc.mjs). The label names an attacks run (`before`). Not in the
// default test run; exits non-zero when a run fails its own check.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const JOBS = ['at-cap', 'attacks', 'fairness', 'fleet']
const [job = 'all', target = 'all', label] = process.argv.slice(2).filter((a) => a !== '--')
if (job !== 'all' && !JOBS.includes(job)) {
  console.error(`load: unknown job ${job} (expected ${JOBS.join(', ')} or all)`)
  process.exit(2)
}

function node(script, args) {
  const file = fileURLToPath(new URL(script, import.meta.url))
  const started = Date.now()
  const run = spawnSync(process.execPath, [file, ...args], { stdio: 'inherit' })
  const seconds = ((Date.now() - started) / 1000).toFixed(0)
  console.log(
    `load: ${script} ${args.join(' ')} exited ${run.status ?? run.signal} after ${seconds} s`,
  )
  return run.status ?? 1
}

let status = 0
for (const name of job === 'all' ? JOBS : [job]) {
  const labelled = label === undefined ? [] : [label]
  const args =
    name === 'fleet'
      ? []
      : name === 'fairness'
        ? labelled
        : name === 'attacks'
          ? [target, ...labelled]
          : [target]
  status = node(`./${name}.mjs`, args) || status
}
status = node('./write-doc.mjs', []) || status
process.exitCode = status
