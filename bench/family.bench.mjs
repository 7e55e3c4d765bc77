// The generated family (bench/family.mjs): documents drawn from a seeded generator over size,
// escape density, script, key count and length, depth, number shape, whitespace and chunk size.
// For each shape, in one process and interleaved with its anchor:
//   - preflight(buf) ÷ JSON.parse(buf.toString()), one-shot;
//   - the same preflight pushed in the shape's chunk size ÷ the same anchor;
//   - chargeJson(v) ÷ Buffer.byteLength(JSON.stringify(v)), twice: on the generator's value
//     (objects built key by key: V8 keeps those with many keys in dictionary mode, as a handler
//     building a result may) and on the same document through JSON.parse (the values a body or
//     `arguments` arrive as: JSON.parse builds fast-mode objects).
// Each figure is the least CPU time (process.cpuUsage) of BLOCKS blocks of about 20 ms, so time
// spent waiting for a shared core does not count. The report gives, per figure, the median and
// the worst ratio over the family with the shape it was worst on: goals are judged on the worst.
// A short run by default (40 shapes up to 1 MiB); the full range (64 B … 64 MiB, 80 shapes):
//   node bench/family.bench.mjs --full      (or BENCH_FAMILY_FULL=1)
// Other flags: --shapes <n>, --seed <n>; --baseline <file> also times the chargeJson exported by
// <file> (a copy of an earlier packages/json-budget/dist/index.js) beside the current one, shape
// by shape in the same process, and reports its median and worst too (an A/B of a change).
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { chargeJson } from '@tollgate/json-budget'
import { createPreflight, preflight, resolvePreflightOptions } from '@tollgate/lexical-preflight'
import { loadNow } from './e2e-family.mjs'
import { documentOf, family } from './family.mjs'
import { machine, printTable, writeResults } from './lib.mjs'

const { values: flags } = parseArgs({
  options: {
    full: { type: 'boolean', default: process.env.BENCH_FAMILY_FULL === '1' },
    shapes: { type: 'string' },
    seed: { type: 'string', default: '2026' },
    baseline: { type: 'string' },
  },
})
const baseline = flags.baseline
  ? (await import(pathToFileURL(flags.baseline).href)).chargeJson
  : null
const full = flags.full
const count = Number(flags.shapes ?? (full ? 80 : 40))
const seed = Number(flags.seed)
const maxBytes = full ? 64 << 20 : 1 << 20
const BLOCKS = 5
const loadBefore = loadNow()

const wide = resolvePreflightOptions({ maxNodes: 1e9, maxDepth: 1000, maxBytes: 2 ** 31 })
const limits = { maxNodes: 1e9, maxDepth: 1000, maxBytes: 2 ** 31 }

const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) * 1000
}

/**
 * Least CPU nanoseconds per call of `fn` over BLOCKS blocks of about 20 ms. The block size comes
 * from a 10 ms warm-up (wall clock), not from one cold call: a cold call of a small input costs
 * a hundred warm ones, and blocks that short are below the CPU clock's resolution.
 */
function cpuNs(fn) {
  const start = performance.now()
  let calls = 0
  do {
    fn()
    calls++
  } while (performance.now() - start < 10)
  const reps = Math.max(1, Math.round((calls * 20) / (performance.now() - start)))
  let best = Number.POSITIVE_INFINITY
  for (let b = 0; b < BLOCKS; b++) {
    const t = cpu()
    for (let i = 0; i < reps; i++) fn()
    best = Math.min(best, (cpu() - t) / reps)
  }
  return best
}

function pushed(buf, size) {
  const scanner = createPreflight(wide)
  for (let i = 0; i < buf.length; i += size) scanner.push(buf.subarray(i, i + size))
  return scanner.end()
}

/** Calls `fn` for about `ms` milliseconds of wall time. */
function warm(fn, ms) {
  const start = performance.now()
  do fn()
  while (performance.now() - start < ms)
}

// Every subject warmed on every shape first, so the first shapes measured do not carry the
// compilation of code the later ones reuse (the anchors are native and need none).
const shapes = family(count, seed, maxBytes).map((shape) => {
  const doc = documentOf(shape, shape.seed)
  return { shape, ...doc, parsed: JSON.parse(doc.bytes.toString()) }
})
for (const { shape, value, bytes, parsed } of shapes) {
  warm(() => preflight(bytes, wide), 10)
  warm(() => pushed(bytes, shape.chunk), 10)
  warm(() => chargeJson(value, limits), 10)
  warm(() => chargeJson(parsed, limits), 10)
  if (baseline !== null) warm(() => baseline(value, limits), 10)
}

const rows = []
for (const { shape, value, bytes, parsed } of shapes) {
  const whole = preflight(bytes, wide)
  const again = pushed(bytes, shape.chunk)
  if (whole.nodes !== again.nodes) throw new Error(`chunked counts differ on ${shape.name}`)
  const expected = Buffer.byteLength(JSON.stringify(value))
  if (chargeJson(value, limits).bytes !== expected) throw new Error(`bytes differ: ${shape.name}`)
  // Not `expected`: the `runs` whitespace also widens commas inside strings, so the parsed
  // document is its own value.
  if (chargeJson(parsed, limits).bytes !== Buffer.byteLength(JSON.stringify(parsed)))
    throw new Error(`parsed bytes differ: ${shape.name}`)
  const parse = cpuNs(() => JSON.parse(bytes.toString()))
  const oneShot = cpuNs(() => preflight(bytes, wide))
  const chunked = cpuNs(() => pushed(bytes, shape.chunk))
  const stringify = cpuNs(() => Buffer.byteLength(JSON.stringify(value)))
  const charge = cpuNs(() => chargeJson(value, limits))
  const stringifyParsed = cpuNs(() => Buffer.byteLength(JSON.stringify(parsed)))
  const chargeParsed = cpuNs(() => chargeJson(parsed, limits))
  const before = baseline === null ? null : cpuNs(() => baseline(value, limits))
  rows.push({
    instance: shape.name,
    bytes: bytes.length,
    anchor: 'JSON.parse(buf.toString()) / Buffer.byteLength(JSON.stringify(v))',
    subject: 'preflight(buf) / pushed in chunks / chargeJson(v)',
    parseNs: parse,
    preflightRatio: oneShot / parse,
    chunkedRatio: chunked / parse,
    stringifyNs: stringify,
    chargeRatio: charge / stringify,
    chargeParsedRatio: chargeParsed / stringifyParsed,
    ...(before === null ? {} : { baselineChargeRatio: before / stringify }),
  })
  process.stdout.write('.')
}
process.stdout.write('\n')

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const worst = (key) => rows.reduce((w, r) => (r[key] > w[key] ? r : w))
const figures = [
  ['preflight ÷ JSON.parse (one-shot)', 'preflightRatio', '<= 0.25'],
  ['preflight in the chunk size ÷ JSON.parse', 'chunkedRatio', '-'],
  ['chargeJson ÷ byteLength(JSON.stringify), generator values', 'chargeRatio', '<= 0.5'],
  ['chargeJson ÷ byteLength(JSON.stringify), JSON.parse values', 'chargeParsedRatio', '<= 0.5'],
  ...(baseline === null
    ? []
    : [['baseline chargeJson ÷ byteLength(JSON.stringify)', 'baselineChargeRatio', '-']]),
]
// Each summary row names its instance: the shape the worst ratio was measured on, the one the
// goal is judged on (the median is over the whole family).
const summary = figures.map(([figure, key, goal]) => ({
  figure,
  instance: worst(key).instance,
  median: median(rows.map((r) => r[key])),
  worst: worst(key)[key],
  goal,
}))

console.log(`machine: ${JSON.stringify(machine())}`)
console.log(`family: ${count} shapes, seed ${seed}, sizes up to ${maxBytes} bytes`)
printTable(
  ['figure', 'median', 'worst', 'worst on', 'goal'],
  summary.map((s) => [s.figure, s.median.toFixed(3), s.worst.toFixed(3), s.instance, s.goal]),
)
console.log('')
printTable(
  [
    'shape',
    'bytes',
    'preflight',
    'chunked',
    'chargeJson',
    'chargeJson (parsed)',
    ...(baseline ? ['baseline'] : []),
  ],
  rows.map((r) => [
    r.instance,
    r.bytes.toLocaleString('en-US'),
    r.preflightRatio.toFixed(3),
    r.chunkedRatio.toFixed(3),
    r.chargeRatio.toFixed(3),
    r.chargeParsedRatio.toFixed(3),
    ...(baseline ? [r.baselineChargeRatio.toFixed(3)] : []),
  ]),
)
writeResults('family', rows, {
  summary,
  seed,
  count,
  maxBytes,
  load: { before: loadBefore, after: loadNow() },
})
