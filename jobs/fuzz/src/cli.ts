import { arch, cpus, platform } from 'node:os'
import { runFuzz } from './run.js'
import { TARGETS } from './targets/index.js'

// pnpm fuzz [seconds] [--seed N] [--target name,name] [--batch N]
// The seed is printed first; the same seed and targets replay the same inputs in the same order
// (the HTTP and stdio targets add socket and stream timing, which the inputs do not depend on).
function parseArgs(argv: readonly string[]) {
  let seconds = 60
  let seed = Date.now() % 2 ** 31
  let names: string[] | undefined
  let batch = 100
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ''
    if (arg === '--') continue
    if (arg === '--seed') seed = Number(argv[++i])
    else if (arg === '--target') names = (argv[++i] ?? '').split(',')
    else if (arg === '--batch') batch = Number(argv[++i])
    else if (/^\d+(\.\d+)?$/.test(arg)) seconds = Number(arg)
    else
      throw new Error(
        `unknown argument ${arg}; usage: pnpm fuzz [seconds] [--seed N] [--target a,b] [--batch N]`,
      )
  }
  if (!Number.isSafeInteger(seed)) throw new Error('--seed must be an integer')
  return { seconds, seed, names, batch }
}

const args = parseArgs(process.argv.slice(2))
const targets =
  args.names === undefined ? TARGETS : TARGETS.filter((t) => args.names?.includes(t.name))
if (targets.length === 0)
  throw new Error(`no such target; targets: ${TARGETS.map((t) => t.name).join(', ')}`)
console.log(
  `fuzz: ${args.seconds}s, seed ${args.seed}, targets ${targets.map((t) => t.name).join(', ')}`,
)
console.log(
  `fuzz: node ${process.version}, ${platform()}-${arch()}, ${cpus()[0]?.model ?? 'unknown CPU'}`,
)
console.log(
  `fuzz: reproduce with: pnpm fuzz ${args.seconds} --seed ${args.seed}${args.names ? ` --target ${args.names.join(',')}` : ''}`,
)
const summary = await runFuzz({
  seconds: args.seconds,
  seed: args.seed,
  targets,
  batchRuns: args.batch,
  log: (line) => console.log(line),
})
for (const [name, count] of Object.entries(summary.inputs))
  console.log(`fuzz: ${name}: ${count} inputs`)
for (const [name, reason] of Object.entries(summary.skipped))
  console.log(`fuzz: ${name}: skipped (${reason})`)
if (summary.failures.length > 0) {
  console.log(
    `fuzz: ${summary.failures.length} target(s) failed; minimized inputs saved under jobs/fuzz/corpus/`,
  )
  process.exit(1)
}
console.log('fuzz: no disagreement found')
