// preflight(bytes) against the anchor JSON.parse(buf.toString()), same run, named shapes
// (bench/shapes.mjs), and the JS scanner (the WebAssembly scanner's fallback and reference)
// interleaved with them: ROUNDS rounds of anchor / preflight / JS scanner per shape, each figure
// the median of its rounds, the ratios also as min–max over the rounds (BENCH_ROUNDS, default 3). Also: incremental (64 KiB chunks) against
// one-shot, refusals of over-depth and over-node documents against parsing them, and heap growth
// over a 100 MB scan. Run: node bench/lexical-preflight.bench.mjs
import { PerformanceObserver } from 'node:perf_hooks'
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { createPreflight, preflight, resolvePreflightOptions } from '@tollgate/lexical-preflight'
import { machine, medianNs, printTable, writeResults } from './lib.mjs'
import { envelope, manyKeys, records } from './shapes.mjs'

const MB = 1_000_000
const CHUNK = 64 * 1024
const enc = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v))

let seed = 1
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31
  return seed / 2 ** 31
}

const shapes = {
  'a 1 KB tools/call envelope': enc(envelope()),
  'b 100 KB object, many small keys': enc(manyKeys()),
  'c 10 MB ASCII string': enc(JSON.stringify('a'.repeat(10 * MB))),
  'd 10 MB escape-dense string': enc(JSON.stringify('"\\\n\u0001é'.repeat(MB / 1.4))),
  'e 10 MB CJK string': enc(JSON.stringify('中'.repeat((10 * MB) / 3))),
  'f 1,000,000 ints (8-9 digits)': enc(
    Array.from({ length: 1_000_000 }, () => Math.floor(10_000_000 + rand() * 990_000_000)),
  ),
  'g depth-5000 nested arrays': enc(`${'['.repeat(5000)}${']'.repeat(5000)}`),
  'h 10 MB records': enc(records()),
  // Whitespace floods (issue 29 row 10): the WebAssembly scanner skips runs with SIMD compares.
  'w 4 MiB of spaces around []': enc(`${' '.repeat(2 * 2 ** 20)}[]${' '.repeat(2 * 2 ** 20 - 2)}`),
  'x 4 MiB of mixed whitespace around []': enc(
    `${' \n\t\r'.repeat(2 ** 19)}[]${' \n\t\r'.repeat(2 ** 19)}`,
  ),
}
const typical = new Set(['a', 'b', 'c', 'd', 'e', 'h', 'w', 'x'])

const wide = resolvePreflightOptions({ maxNodes: 10_000_000, maxDepth: 10_000, maxBytes: 512 * MB })
// The same limits on the JS scanner: createPreflight gives a maxDepth above what the
// WebAssembly scanner's container bits hold (2^20 levels) to the JS scanner. No shape nests
// deeper than 5,000, so the verdicts and counts are the same.
const wideJs = resolvePreflightOptions({ ...wide, maxDepth: 2 ** 20 + 1 })
const defaults = resolvePreflightOptions()
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const range = (xs) => `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}`

function chunked(buf, options) {
  const scanner = createPreflight(options)
  for (let i = 0; i < buf.length; i += CHUNK) scanner.push(buf.subarray(i, i + CHUNK))
  return scanner.end()
}

function refuses(buf, options) {
  try {
    preflight(buf, options)
  } catch (error) {
    return error.code
  }
  throw new Error('expected a refusal')
}

const fmt = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} µs`)
const rows = []
for (const [instance, buf] of Object.entries(shapes)) {
  const expected = preflight(buf, wide)
  const again = chunked(buf, wide)
  const js = preflight(buf, wideJs)
  if (expected.nodes !== again.nodes || expected.depth !== again.depth) {
    throw new Error(`chunked counts differ on ${instance}`)
  }
  if (expected.nodes !== js.nodes || expected.depth !== js.depth) {
    throw new Error(`JS scanner counts differ on ${instance}`)
  }
  const rounds = []
  for (let r = 0; r < ROUNDS; r++) {
    const a = await medianNs(() => JSON.parse(buf.toString()))
    const w = await medianNs(() => preflight(buf, wide))
    const j = await medianNs(() => preflight(buf, wideJs))
    rounds.push({ anchorNs: a, subjectNs: w, jsNs: j, ratio: w / a, jsRatio: j / a })
  }
  const anchorNs = median(rounds.map((r) => r.anchorNs))
  const oneShotNs = median(rounds.map((r) => r.subjectNs))
  const chunkedNs = await medianNs(() => chunked(buf, wide))
  const goal = typical.has(instance[0]) ? '<= 0.25' : '<= 0.9'
  rows.push({
    instance,
    bytes: buf.length,
    anchor: 'JSON.parse(buf.toString())',
    anchorNs,
    subject: 'preflight(buf)',
    subjectNs: oneShotNs,
    ratio: median(rounds.map((r) => r.ratio)),
    ratioRange: range(rounds.map((r) => r.ratio)),
    jsScannerRatio: median(rounds.map((r) => r.jsRatio)),
    jsScannerRatioRange: range(rounds.map((r) => r.jsRatio)),
    rounds,
    goal,
    chunkedNs,
    chunkedRatio: chunkedNs / oneShotNs,
  })
}

console.log(`machine: ${JSON.stringify(machine())}`)
console.log(
  `\naccepted documents (ratio = preflight / JSON.parse, median of ${ROUNDS} interleaved rounds; JS scanner = the fallback on the same input; incremental = 64 KiB chunks / one-shot)`,
)
printTable(
  [
    'instance',
    'bytes',
    'JSON.parse p50',
    'preflight p50',
    'ratio',
    'ratio range',
    'JS scanner ratio (range)',
    'goal',
    'incremental p50',
    'incr / one-shot',
  ],
  rows.map((r) => [
    r.instance,
    r.bytes.toLocaleString('en-US'),
    fmt(r.anchorNs),
    fmt(r.subjectNs),
    r.ratio.toFixed(3),
    r.ratioRange,
    `${r.jsScannerRatio.toFixed(3)} (${r.jsScannerRatioRange})`,
    r.goal,
    fmt(r.chunkedNs),
    r.chunkedRatio.toFixed(3),
  ]),
)

// Refusals under the default limits (64 deep, 100,000 nodes): the preflight stops at the first
// byte past the limit; the anchor parses the whole document.
const refusalRows = []
for (const [key, instance] of [
  ['g depth-5000 nested arrays', 'g depth-5000 (maxDepth 64)'],
  ['f 1,000,000 ints (8-9 digits)', 'f 1M ints (maxNodes 100,000)'],
  ['h 10 MB records', 'h 10 MB records (maxNodes 100,000)'],
  ['b 100 KB object, many small keys', 'b 100 KB many keys (maxNodes 100,000: admitted)'],
]) {
  const buf = shapes[key]
  const admitted = instance.includes('admitted')
  const code = admitted ? 'admitted' : refuses(buf, defaults)
  const anchorNs = await medianNs(() => JSON.parse(buf.toString()))
  const subjectNs = await medianNs(() => {
    try {
      preflight(buf, defaults)
    } catch {}
  })
  refusalRows.push({ instance, code, anchorNs, subjectNs, ratio: subjectNs / anchorNs })
}
console.log(
  '\nrefusals under default limits (ratio = refusal / JSON.parse of the whole document, goal <= 0.1)',
)
printTable(
  ['instance', 'outcome', 'JSON.parse p50', 'preflight p50', 'ratio'],
  refusalRows
    .filter((r) => r.code !== 'admitted')
    .map((r) => [r.instance, r.code, fmt(r.anchorNs), fmt(r.subjectNs), r.ratio.toFixed(3)]),
)

// Heap over a 100 MB scan: one 1 MiB block of records pushed 100 times in 64 KiB views, with
// maxBytes 2^31 (above V8's small-integer range). heapUsed also counts V8's own code and
// compilation metadata, so growth is reported per heap space: new_space is what the scan
// allocated; code_space and old_space move with (re)compilation. Five consecutive scans after a
// warm-up one, each from a fresh GC, with no GC during the scan.
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc')
const record = '{"id":123456,"name":"record-123456","tags":["x","y"],"score":17.5,"ok":true},'
const block = Buffer.from(record.repeat(Math.floor((1024 * 1024) / record.length)))
let gcEvents = 0
const observer = new PerformanceObserver((list) => {
  gcEvents += list.getEntries().length
})
observer.observe({ entryTypes: ['gc'] })
const big = resolvePreflightOptions({ maxNodes: 1e9, maxDepth: 64, maxBytes: 2 ** 31 })
// The 64 KiB views are made before measuring, so the figure is the scanner's own allocation.
const views = []
for (let i = 0; i < block.length; i += CHUNK) views.push(block.subarray(i, i + CHUNK))
const open = Buffer.from('[')
const close = Buffer.from('0]')
function scan100() {
  const scanner = createPreflight(big)
  scanner.push(open)
  for (let k = 0; k < 100; k++) for (let j = 0; j < views.length; j++) scanner.push(views[j])
  scanner.push(close)
  return scanner.end()
}
const spaces = () =>
  Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]))
scan100() // warm-up: V8 compiles this path
const scans = []
let scanned = null
for (let round = 0; round < 5; round++) {
  gc()
  await new Promise((r) => setTimeout(r, 20))
  gcEvents = 0
  const spacesBefore = spaces()
  const before = process.memoryUsage().heapUsed
  scanned = scan100()
  const grew = process.memoryUsage().heapUsed - before
  const spacesAfter = spaces()
  await new Promise((r) => setTimeout(r, 20))
  const gcDuring = gcEvents
  gc()
  scans.push({
    heapUsedGrowthBytes: grew,
    newSpaceBytes: spacesAfter.new_space - spacesBefore.new_space,
    codeSpaceBytes: spacesAfter.code_space - spacesBefore.code_space,
    oldSpaceBytes: spacesAfter.old_space - spacesBefore.old_space,
    retainedAfterGcBytes: process.memoryUsage().heapUsed - before,
    gcEventsDuringScan: gcDuring,
  })
}
observer.disconnect()
const pick = (k) => scans.map((s) => s[k])
const heap = {
  scannedBytes: scanned.bytes,
  nodes: scanned.nodes,
  maxBytes: 2 ** 31,
  heapUsedGrowthBytes: {
    min: Math.min(...pick('heapUsedGrowthBytes')),
    max: Math.max(...pick('heapUsedGrowthBytes')),
  },
  newSpaceBytes: {
    min: Math.min(...pick('newSpaceBytes')),
    max: Math.max(...pick('newSpaceBytes')),
  },
  scans,
}
console.log(
  `\nheap over a ${(scanned.bytes / MB).toFixed(1)} MB scan (64 KiB chunks), 5 scans after a warm-up:`,
)
printTable(
  [
    'scan',
    'heapUsed growth',
    'new_space',
    'code_space',
    'old_space',
    'retained after GC',
    'GCs during',
  ],
  scans.map((s, i) => [
    i + 1,
    s.heapUsedGrowthBytes.toLocaleString('en-US'),
    s.newSpaceBytes.toLocaleString('en-US'),
    s.codeSpaceBytes.toLocaleString('en-US'),
    s.oldSpaceBytes.toLocaleString('en-US'),
    s.retainedAfterGcBytes.toLocaleString('en-US'),
    s.gcEventsDuringScan,
  ]),
)

// Per-request setup: heap allocated by createPreflight(resolved) alone, and by a whole one-shot
// preflight of a 7-byte document (10,000 of each, averaged, no GC in between).
const tiny = Buffer.from('{"a":1}')
for (let j = 0; j < 1e4; j++) preflight(tiny, defaults)
gc()
let setupBefore = process.memoryUsage().heapUsed
for (let j = 0; j < 1e4; j++) createPreflight(defaults)
const createBytes = (process.memoryUsage().heapUsed - setupBefore) / 1e4
gc()
setupBefore = process.memoryUsage().heapUsed
for (let j = 0; j < 1e4; j++) preflight(tiny, defaults)
const tinyBytes = (process.memoryUsage().heapUsed - setupBefore) / 1e4
const setup = { createPreflightBytes: createBytes, preflightTinyBytes: tinyBytes }
console.log(`\nper-request allocation: ${JSON.stringify(setup)}`)

writeResults('lexical-preflight', rows, { refusals: refusalRows, heap, setup })
