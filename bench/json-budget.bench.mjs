// chargeJson(v) against the anchor Buffer.byteLength(JSON.stringify(v)), same run, named shapes.
// Flags (for an A/B of a change, on a shared machine):
//   --baseline <file>  also time the chargeJson exported by <file> (a copy of an earlier
//                      packages/json-budget/dist/index.js), interleaved with the anchor and the
//                      subject shape by shape, and print its ratio beside the subject's;
//   --rounds <n>       repeat every measurement n times (default 1) and print each ratio's range;
//   --cpu-time         time by this process's CPU time (process.cpuUsage), the least of 15
//                      blocks of calls (about 20 ms each), instead of mitata's wall-clock p50:
//                      time the process waits for a core does not count, so the figure holds on
//                      a machine others are loading (GC helper threads do count).
// The results file holds the last round's figures for the subject.
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { chargeJson } from '@tollgate/json-budget'
import { machine, medianNs, printTable, writeResults } from './lib.mjs'
import { envelope, manyKeys, records } from './shapes.mjs'

const { values: flags } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '1' },
    'cpu-time': { type: 'boolean', default: false },
  },
})
const rounds = Number(flags.rounds)
if (!Number.isInteger(rounds) || rounds < 1)
  throw new TypeError('--rounds must be a positive integer')
const baseline = flags.baseline
  ? (await import(pathToFileURL(flags.baseline).href)).chargeJson
  : null

/** Least CPU nanoseconds per call of `fn` over `blocks` blocks of calls (about 20 ms each). */
function cpuNs(fn, blocks) {
  const now = () => {
    const u = process.cpuUsage()
    return (u.user + u.system) * 1000
  }
  fn()
  const start = now()
  fn()
  const once = Math.max(now() - start, 1000)
  const reps = Math.max(1, Math.round(2e7 / once))
  let best = Number.POSITIVE_INFINITY
  for (let block = 0; block < blocks; block++) {
    const t = now()
    for (let i = 0; i < reps; i++) fn()
    best = Math.min(best, (now() - t) / reps)
  }
  return best
}
// The 200 MiB anchor takes about a second a call: three blocks of one call are enough there.
const time = flags['cpu-time']
  ? async (fn, minMs) => cpuNs(fn, minMs === undefined ? 15 : 3)
  : (fn, minMs) => medianNs(fn, minMs)

const MB = 1_000_000

/** About `units` code units of log lines, each with a quote pair, a tab, backslashes, a newline. */
function logLines(units) {
  let out = ''
  for (let i = 0; out.length < units; i++) {
    out += `2026-12-04T23:${String(i % 60).padStart(2, '0')}:00Z INFO request "GET /api/v1/items?id=${i}" took ${i % 97} ms\tuser=\\corp\\alice\n`
  }
  // One flat string, as a parsed body holds.
  return JSON.parse(JSON.stringify(out))
}
const shapes = {
  'a 1 KB tools/call envelope': envelope(),
  'b 100 KB object of many keys': manyKeys(),
  'c 10 MB ASCII string': 'a'.repeat(10 * MB),
  'd 10 MB escape-dense string': '"\\\n\u0001'.repeat((10 * MB) / 4),
  'e 10 MB CJK string': '中'.repeat((10 * MB) / 3),
  'f 1,000,000 small integers': Array.from({ length: 1_000_000 }, (_, i) => i % 100),
  'h 10 MB of records': records(),
  // Text with escapes (issue 32): log lines with quotes, tabs, backslashes and newlines.
  'l 100 KB of log lines with escapes': logLines(100_000),
}

const limits = { maxNodes: 10_000_000, maxDepth: 64, maxBytes: 512 * 1024 * 1024 }
const rows = []
const ranges = new Map()
const record = (instance, key, ratio) => {
  const r = ranges.get(instance) ?? { subject: [], baseline: [] }
  r[key].push(ratio)
  ranges.set(instance, r)
}
for (let round = 0; round < rounds; round++) {
  rows.length = 0
  for (const [instance, value] of Object.entries(shapes)) {
    const expected = Buffer.byteLength(JSON.stringify(value))
    if (chargeJson(value, limits).bytes !== expected) throw new Error(`mismatch on ${instance}`)
    const anchor = await time(() => Buffer.byteLength(JSON.stringify(value)))
    if (baseline !== null) {
      const before = await time(() => baseline(value, limits))
      record(instance, 'baseline', before / anchor)
    }
    const subject = await time(() => chargeJson(value, limits))
    record(instance, 'subject', subject / anchor)
    rows.push({
      instance,
      bytes: expected,
      anchor: 'Buffer.byteLength(JSON.stringify(v))',
      anchorNs: anchor,
      subject: 'chargeJson(v)',
      subjectNs: subject,
      ratio: subject / anchor,
      goal: '<= 0.5',
    })
  }

  // Refusing a string over the limit: chargeJson refuses a 200 MiB string under the 64 MiB
  // default without reading it; the anchor encodes it to learn its size.
  const huge = 'x'.repeat(200 * 1024 * 1024)
  const anchorHuge = await time(() => Buffer.byteLength(JSON.stringify(huge)), 1000)
  const subjectHuge = await time(() => {
    try {
      chargeJson(huge)
    } catch {}
  })
  rows.push({
    instance: 'r refused 200 MiB ASCII string (64 MiB limit)',
    bytes: 200 * 1024 * 1024 + 2,
    anchor: 'Buffer.byteLength(JSON.stringify(v))',
    anchorNs: anchorHuge,
    subject: 'chargeJson(v) refusal',
    subjectNs: subjectHuge,
    ratio: subjectHuge / anchorHuge,
    goal: '<= 0.01 (100x cheaper)',
  })
}

const fmt = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} µs`)
console.log(`machine: ${JSON.stringify(machine())}`)
printTable(
  ['instance', 'bytes', 'anchor p50', 'chargeJson p50', 'ratio', 'goal'],
  rows.map((r) => [
    r.instance,
    r.bytes.toLocaleString('en-US'),
    fmt(r.anchorNs),
    fmt(r.subjectNs),
    r.ratio.toFixed(3),
    r.goal,
  ]),
)
if (rounds > 1 || baseline !== null) {
  const span = (xs) =>
    xs.length === 0 ? '-' : `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`
  console.log(`\nratio ranges over ${rounds} round(s), each measured interleaved with its anchor:`)
  printTable(
    ['instance', 'baseline ratio', 'chargeJson ratio'],
    [...ranges].map(([instance, r]) => [instance, span(r.baseline), span(r.subject)]),
  )
}
writeResults('json-budget', rows)
