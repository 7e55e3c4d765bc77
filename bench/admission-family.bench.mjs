// admission() ÷ express.json() over the generated family (bench/family.mjs), end to end.
//
// Two Express 5 apps in this process on 127.0.0.1: `admission(bodyAdmission(...))` and
// `express.json({ limit: '64mb' })`, each in front of the same handler (answers the length of
// the parsed array, which the client checks, so a refusal is never timed as a fast call). The
// body admission raises `maxNodes` to 10,000,000 and `maxDepth` to 200 so every shape of the
// family is admitted (its defaults, 100,000 nodes and depth 64, refuse some 1 MiB shapes; a
// refusal is not the cost measured here); every other option is its default (preflight on,
// duplicate and `__proto__` keys refused, the in-flight budget).
// Inputs: FAMILY shapes drawn with SEED from bench/family.mjs, sizes 64 B … 1 MiB (each shape's
// text, as the generator writes it with its whitespace), plus the fixed 10 MB row of
// bench/http-admission.bench.mjs (10,000 records with a 1 KB text). The family's chunk-size
// dimension is not used: the body is written whole and the kernel segments it.
// Client: one keep-alive raw socket per server (bench/raw-http.mjs), calls interleaved one by
// one with the order flipped every call; per shape ROUNDS rounds of about 250 ms
// of CPU. Each call's cost is the CPU time of this process (client and server: user + system)
// from the write to the answer's last byte, so waiting for a shared core does not count; the
// wall time is recorded beside it.
// Figure: express.json median CPU time per call ÷ admission() median CPU time per call (a throughput
// ratio; goal ≥ 1.0), the median over rounds; the summary gives the median and the worst over
// the family, naming the shape of the worst. Load average recorded before and after the run.
//
// Run: node bench/admission-family.bench.mjs (packages built). BENCH_FAMILY_SHAPES (16),
// BENCH_FAMILY_SEED (2026), BENCH_ROUNDS (3) override; BENCH_NO_10MB=1 skips the fixed row.
import { createServer } from 'node:http'
import { admission, bodyAdmission } from '@tollgate/http-admission'
import express from 'express'
import { clientsFor, interleaved, loadNow, summarize } from './e2e-family.mjs'
import { documentOf, family } from './family.mjs'
import { machine, printTable, writeResults } from './lib.mjs'
import { requestBytes } from './raw-http.mjs'

const COUNT = Number(process.env.BENCH_FAMILY_SHAPES ?? 16)
const SEED = Number(process.env.BENCH_FAMILY_SEED ?? 2026)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const MAX_BYTES = 1 << 20
const loadBefore = loadNow()

function app(middleware) {
  const out = express()
  out.post('/', middleware, (req, res) => {
    res.json({ n: Array.isArray(req.body) ? req.body.length : -1 })
  })
  out.use((err, _req, res, _next) => res.status(err.status ?? 500).end())
  return out
}

async function listen(handler) {
  const server = createServer(handler)
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: server.address().port }
}

/** 10 MB: 10,000 records with a 1 KB text field (bench/http-admission.bench.mjs's row). */
function records10m() {
  const text = 'lorem ipsum dolor sit amet '.repeat(38).slice(0, 1000)
  const rows = Array.from({ length: 10_000 }, (_, i) => ({ id: i, title: `note ${i}`, body: text }))
  return { value: rows, bytes: Buffer.from(JSON.stringify(rows)) }
}

const subject = await listen(app(admission(bodyAdmission({ maxNodes: 10_000_000, maxDepth: 200 }))))
const anchor = await listen(app(express.json({ limit: '64mb' })))
const clients = await clientsFor(anchor.port, subject.port)
const headers = { 'content-type': 'application/json' }

const inputs = family(COUNT, SEED, MAX_BYTES).map((shape) => ({
  instance: shape.name,
  ...documentOf(shape, shape.seed),
}))
if (process.env.BENCH_NO_10MB !== '1')
  inputs.push({ instance: '10 MB array of 10,000 records (fixed row)', ...records10m() })

const rows = []
for (const { instance, value, bytes } of inputs) {
  const requests = {
    anchor: requestBytes(anchor.port, '/', headers, bytes),
    subject: requestBytes(subject.port, '/', headers, bytes),
  }
  const expected = `{"n":${value.length}}`
  const accept = (leg, answer) => {
    if (answer.status !== 200 || answer.body.toString() !== expected)
      throw new Error(`${leg} on ${instance}: ${answer.status} ${answer.body.toString()}`)
  }
  const big = bytes.length > 4 << 20
  const m = await interleaved(clients, requests, accept, {
    rounds: ROUNDS,
    roundMs: big ? 1500 : 250,
    minCalls: big ? 5 : 9,
  })
  rows.push({
    instance,
    bytes: bytes.length,
    subject: 'admission(bodyAdmission({ maxNodes: 1e7, maxDepth: 200 }))',
    anchor: "express.json({ limit: '64mb' })",
    expressJsonCpuUs: m.anchorNs / 1e3,
    admissionCpuUs: m.subjectNs / 1e3,
    expressJsonWallUs: m.anchorWallNs / 1e3,
    admissionWallUs: m.subjectWallNs / 1e3,
    calls: m.calls,
    ratio: m.ratio,
    ratioRange: `${Math.min(...m.ratios).toFixed(2)}–${Math.max(...m.ratios).toFixed(2)}`,
    goal: '≥ 1.0',
  })
  process.stdout.write('.')
}
process.stdout.write('\n')
clients.anchor.close()
clients.subject.close()
anchor.server.close()
subject.server.close()

const familyRows = rows.filter((r) => !r.instance.includes('fixed row'))
const summary = [
  summarize('admission() ÷ express.json(), family (64 B … 1 MiB)', familyRows, '≥ 1.0'),
]
const loadAfter = loadNow()
console.log(`machine: ${JSON.stringify(machine())}; load ${loadBefore} → ${loadAfter}`)
console.log(`family: ${COUNT} shapes, seed ${SEED}, sizes up to ${MAX_BYTES} bytes`)
printTable(
  ['figure', 'median', 'worst', 'worst on', 'goal'],
  summary.map((s) => [s.figure, s.median.toFixed(3), s.worst.toFixed(3), s.instance, s.goal]),
)
console.log('')
printTable(
  ['shape', 'bytes', 'express.json CPU µs', 'admission CPU µs', 'ratio', 'per round'],
  rows.map((r) => [
    r.instance,
    r.bytes.toLocaleString('en-US'),
    r.expressJsonCpuUs.toFixed(0),
    r.admissionCpuUs.toFixed(0),
    r.ratio.toFixed(3),
    r.ratioRange,
  ]),
)
writeResults('admission-family', rows, {
  summary,
  seed: SEED,
  count: COUNT,
  maxBytes: MAX_BYTES,
  load: { before: loadBefore, after: loadAfter },
})
process.exit(0)
