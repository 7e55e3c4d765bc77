// http-admission: admission() and the json() drop-in vs express.json({ limit: '64mb' }),
// measured in the same run.
//
// 1. Throughput: autocannon (in this process) against an Express 5 server in a child process
//    on 127.0.0.1, one child per parser (admission() with its defaults, json({ limit: '64mb' }),
//    express.json({ limit: '64mb' })), the order rotated per repetition so each parser runs
//    first, second and third equally often; median of REPS runs of DURATION_S seconds each
//    after a warm-up. One row per (body, subject): ratio = subject req/s ÷ express.json req/s
//    (goal ≥ 1.0).
// 2. Peak memory per at-cap request: one fresh child process per (parser, instance) receives
//    one 64 MiB body (the default REST cap = express.json's '64mb'). Instrument: the kernel's
//    resident-set high-water mark of the child (Linux /proc/self/status VmHWM), reset to the
//    current RSS just before the request (write 5 to /proc/self/clear_refs, after a full GC);
//    peak = VmHWM after the request − VmRSS before it, over the wire bytes. It counts
//    everything the request made resident (heap, Buffers, the parsed value) at its true peak,
//    not a sample. (getrusage's ru_maxrss is not used: it survives exec, so a child inherits
//    the parent's peak.)
//
// Run: node bench/http-admission.bench.mjs   (packages must be built; --throughput-only or
// --memory-only runs one half)
import { fork } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { machine, printTable, writeResults } from './lib.mjs'

const SELF = fileURLToPath(import.meta.url)
const MiB = 1024 * 1024
const REPS = Number(process.env.BENCH_REPS ?? 9)
const DURATION_S = Number(process.env.BENCH_DURATION ?? 2)

// ---------------------------------------------------------------- inputs

/** 1 KB: a JSON-RPC tools/call envelope. */
function envelope1k() {
  const base = {
    jsonrpc: '2.0',
    id: 42,
    method: 'tools/call',
    params: {
      name: 'search_notes',
      arguments: { projectId: 'proj-1', query: '', limit: 10, tags: ['a', 'b'] },
    },
  }
  const pad = 1024 - Buffer.byteLength(JSON.stringify(base))
  base.params.arguments.query = 'q'.repeat(pad)
  return Buffer.from(JSON.stringify(base))
}

/** 100 KB: an object with many small keys. */
function wide100k() {
  const out = {}
  let i = 0
  while (Buffer.byteLength(JSON.stringify(out)) < 100 * 1024 - 40) out[`key_${i++}`] = i % 997
  return Buffer.from(JSON.stringify(out))
}

/** 10 MB: 10,000 records with a 1 KB text field (70,001 nodes, under the 100,000 default). */
function records10m() {
  const text = 'lorem ipsum dolor sit amet '.repeat(38).slice(0, 1000)
  const rows = Array.from({ length: 10_000 }, (_, i) => ({ id: i, title: `note ${i}`, body: text }))
  return Buffer.from(JSON.stringify(rows))
}

/** The at-cap memory instances: each exactly 64 MiB on the wire. */
const MEMORY_INSTANCES = {
  ascii: '["..."]: one string of ASCII letters',
  twoByte: 'one string of 2-byte UTF-8 (é)',
  cjk: 'one string of 3-byte UTF-8 (CJK 漢)',
  astral: 'one string of 4-byte UTF-8 (😀)',
  escapeDense: 'one string of \\u00XX and \\" escapes',
  smallValues: 'an array of single-digit numbers ([0,1,2,...])',
}

function atCap(name, size = 64 * MiB) {
  // express.json() is strict (an object or array at the top), so each string sits in `[...]`.
  const fillString = (unit) => {
    const buf = Buffer.alloc(size)
    buf[0] = 0x5b
    buf[1] = 0x22
    const u = Buffer.from(unit)
    const inner = size - 4
    const whole = Math.floor(inner / u.length) * u.length
    for (let i = 0; i < whole; i += u.length) u.copy(buf, 2 + i)
    buf.fill(0x61, 2 + whole, size - 2) // pad the remainder with ASCII
    buf[size - 2] = 0x22
    buf[size - 1] = 0x5d
    return buf
  }
  switch (name) {
    case 'ascii':
      return fillString('abcdefgh')
    case 'twoByte':
      return fillString('é')
    case 'cjk':
      return fillString('漢')
    case 'astral':
      return fillString('😀')
    case 'escapeDense':
      return fillString('\\u00e9\\"')
    case 'smallValues': {
      const buf = Buffer.alloc(size, 0x20)
      buf[0] = 0x5b
      let i = 1
      let d = 0
      while (i + 2 < size - 1) {
        buf[i] = 0x30 + (d++ % 10)
        buf[i + 1] = 0x2c
        i += 2
      }
      buf[i] = 0x30
      buf[size - 1] = 0x5d
      return buf
    }
  }
  throw new Error(name)
}

// ---------------------------------------------------------------- children

async function appFor(parser) {
  const { default: express } = await import('express')
  const { admission, bodyAdmission, createInFlightBudget, json } = await import(
    '@tollgate/http-admission'
  )
  const app = express()
  // The memory instances hold far more than 100,000 nodes ([0,1,...] has 33 million), so
  // that mode raises maxNodes; throughput runs use the defaults.
  const memory = process.env.BENCH_MODE === 'memory'
  const middleware =
    parser === 'admission'
      ? admission(
          bodyAdmission(
            memory
              ? {
                  maxNodes: 50_000_000,
                  budget: createInFlightBudget(256 * MiB),
                  timeoutMs: 120_000,
                }
              : {},
          ),
        )
      : parser === 'json'
        ? json({ limit: '64mb' })
        : express.json({ limit: '64mb' })
  let last
  app.post('/', middleware, (req, res) => {
    last = req.body
    res.json({ ok: true })
  })
  // autocannon cuts connections mid-body when a run ends; answer quietly instead of logging.
  app.use((err, _req, res, _next) => res.status(err.status ?? 500).end())
  return { app, keep: () => last }
}

async function child(parser) {
  const { app, keep } = await appFor(parser)
  const server = app.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }))
  process.on('message', (msg) => {
    if (msg === 'reset') {
      globalThis.gc?.()
      writeFileSync('/proc/self/clear_refs', '5')
      process.send({ bytes: procStatus('VmRSS') })
    } else if (msg === 'peak') {
      process.send({ bytes: procStatus('VmHWM'), keep: typeof keep() })
    }
  })
}

/** A `/proc/self/status` field in bytes (Linux reports kB). */
function procStatus(field) {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`))
  return Number(line.split(/\s+/)[1]) * 1024
}

function startChild(parser, mode) {
  return new Promise((resolve) => {
    const proc = fork(SELF, [`--child=${parser}`], {
      env: { ...process.env, BENCH_MODE: mode },
      execArgv: ['--expose-gc', '--max-old-space-size=4096'],
    })
    proc.once('message', ({ port }) => resolve({ proc, port }))
  })
}

const ask = (proc, msg) =>
  new Promise((resolve) => {
    proc.once('message', resolve)
    proc.send(msg)
  })

function post(port, body) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

// ---------------------------------------------------------------- measurements

function cannon(port, body, connections, seconds) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `http://127.0.0.1:${port}/`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        connections,
        duration: seconds,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    )
  })
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** The throughput subjects, each measured against express.json() in the same run. */
const SUBJECTS = { admission: 'admission()', json: "json({ limit: '64mb' })" }
const ANCHOR = 'express.json'

async function throughput() {
  const inputs = [
    ['1 KB tools/call envelope', envelope1k(), 10],
    ['100 KB object, many small keys', wide100k(), 10],
    ['10 MB array of 10,000 records', records10m(), 4],
  ]
  const parsers = [...Object.keys(SUBJECTS), ANCHOR]
  const servers = {}
  for (const parser of parsers) servers[parser] = await startChild(parser, 'throughput')
  const rows = []
  for (const [name, body, connections] of inputs) {
    const runs = Object.fromEntries(parsers.map((p) => [p, []]))
    for (const parser of parsers) {
      await cannon(servers[parser].port, body, connections, 1) // warm-up
    }
    for (let rep = 0; rep < REPS; rep++) {
      // Rotated, so no parser always runs right after the same one.
      const order = parsers.map((_, i) => parsers[(i + rep) % parsers.length])
      for (const parser of order) {
        const r = await cannon(servers[parser].port, body, connections, DURATION_S)
        if (r.non2xx > 0 || r.errors > 0)
          throw new Error(`${parser} ${name}: ${r.non2xx} non-2xx, ${r.errors} errors`)
        runs[parser].push({ rps: r.requests.average, p99: r.latency.p99, p50: r.latency.p50 })
      }
    }
    const pick = (parser) => ({
      rps: median(runs[parser].map((x) => x.rps)),
      p50: median(runs[parser].map((x) => x.p50)),
      p99: median(runs[parser].map((x) => x.p99)),
      // Every repetition's req/s, so the spread of a loaded machine shows beside the median.
      range: [
        Math.min(...runs[parser].map((x) => x.rps)),
        Math.max(...runs[parser].map((x) => x.rps)),
      ],
    })
    const e = pick(ANCHOR)
    for (const [parser, subject] of Object.entries(SUBJECTS)) {
      const a = pick(parser)
      // Per repetition, each subject against the anchor measured next to it.
      const perRep = runs[parser].map((x, i) => x.rps / runs[ANCHOR][i].rps)
      rows.push({
        instance: name,
        subject,
        anchor: "express.json({ limit: '64mb' })",
        bytes: body.length,
        connections,
        [parser]: a,
        expressJson: e,
        ratio: a.rps / e.rps,
        ratioRange: `${Math.min(...perRep).toFixed(2)}–${Math.max(...perRep).toFixed(2)}`,
        goal: '≥ 1.0',
      })
    }
  }
  for (const { proc } of Object.values(servers)) proc.kill()
  return rows
}

async function memory() {
  const rows = []
  for (const name of Object.keys(MEMORY_INSTANCES)) {
    const body = atCap(name)
    const row = { instance: name, description: MEMORY_INSTANCES[name], wireBytes: body.length }
    for (const parser of ['admission', 'express.json']) {
      const { proc, port } = await startChild(parser, 'memory')
      await post(port, Buffer.from('{"warm":[1,2,3]}'))
      const before = (await ask(proc, 'reset')).bytes
      const status = await post(port, body)
      const after = (await ask(proc, 'peak')).bytes
      proc.kill()
      if (status !== 200) throw new Error(`${parser} ${name}: status ${status}`)
      row[parser === 'admission' ? 'admission' : 'expressJson'] = (after - before) / body.length
    }
    rows.push(row)
  }
  return rows
}

// ---------------------------------------------------------------- main

const childArg = process.argv.find((a) => a.startsWith('--child='))
if (childArg) {
  await child(childArg.slice('--child='.length))
} else if (process.argv.includes('--memory-only')) {
  console.log(await memory())
} else {
  const m = machine()
  console.log(`node ${m.node}, ${m.cores} cores, ${m.cpu}`)
  const tp = await throughput()
  printTable(
    [
      'body',
      'subject',
      'connections',
      'subject req/s',
      'express.json req/s',
      'ratio',
      'ratio per repetition',
      'subject p50/p99 ms',
      'express.json p50/p99 ms',
    ],
    tp.map((r) => {
      const a = r.admission ?? r.json
      return [
        r.instance,
        r.subject,
        r.connections,
        a.rps.toFixed(0),
        r.expressJson.rps.toFixed(0),
        `${r.ratio.toFixed(2)}x`,
        r.ratioRange,
        `${a.p50}/${a.p99}`,
        `${r.expressJson.p50}/${r.expressJson.p99}`,
      ]
    }),
  )
  if (process.argv.includes('--throughput-only')) {
    if (process.env.BENCH_WRITE === '1')
      writeResults('http-admission', tp, { reps: REPS, durationSeconds: DURATION_S })
    process.exit(0)
  }
  const mem = await memory()
  printTable(
    [
      'instance (64 MiB on the wire)',
      'admission peak RSS / wire byte',
      'express.json peak RSS / wire byte',
    ],
    mem.map((r) => [
      `${r.instance}: ${r.description}`,
      r.admission.toFixed(2),
      r.expressJson.toFixed(2),
    ]),
  )
  writeResults('http-admission', tp, { memory: mem, reps: REPS, durationSeconds: DURATION_S })
}
