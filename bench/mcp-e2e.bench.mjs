// MCP end to end over real transports, each server in its own child process on 127.0.0.1
// (bench/mcp-e2e-servers.mjs), SDK 1.32.2, one session per server, answers as plain JSON
// (`enableJsonResponse: true`).
//
// 1. rows: a guarded Streamable HTTP server ÷ the SDK's documented Express setup. Anchor:
//    `express()` + `express.json({ limit: '1mb' })` + `transport.handleRequest(req, res, req.body)`
//    (plus `releaseFinishedJsonResponses` after each request, so SDK 1.32.2's retention of every
//    JSON-mode body does not slow the anchor down: see the servers file). Subject: `express()` +
//    `mcpExpressHandler` (Host/Origin, MCP-Protocol-Version, admitMcpBody with its preflight,
//    handleMcpRequest) and the server connected to `resultBudget(withInputValidation(t, registry))`.
//    The tool is `echo` (returns its `text`; schema `text` string, maxLength 200,000), called with
//    arguments of exactly 1,024 and 102,400 bytes of JSON. Load: autocannon in this process,
//    CONNECTIONS keep-alive connections, `tools/call` with the session id and
//    MCP-Protocol-Version headers and a unique JSON-RPC id per request, DURATION_S seconds per
//    leg after a warm-up, anchor and guarded alternating (order flipped each round), ROUNDS
//    rounds. Figure: guarded req/s ÷ anchor req/s per round; the row gives the median round.
// 2. validation: `withInputValidation` round trip ÷ undecorated, SDK Client → transport → server
//    → handler → Client, for the three inputs of bench/mcp-validation.bench.mjs, over the SDK's
//    stdio transports (a child process per server, real pipes), over Streamable HTTP (the anchor
//    server above, with and without the decorator) and in memory (InMemoryTransport, in this
//    process). Calls interleaved one by one, order alternating; figure = median per-call time.
//
// Run: node bench/mcp-e2e.bench.mjs   (packages built; BENCH_DURATION, BENCH_ROUNDS,
// BENCH_CALLS, BENCH_SIZES override; BENCH_PROF_DIR=dir runs the HTTP children with --cpu-prof;
// BENCH_SKIP_VALIDATION=1 runs part 1 only; a partial
// run writes no results file)
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { chargeJson } from '@tollgate/json-budget'
import {
  checkToolCall,
  loadSchemaRegistry,
  resolveInputValidationOptions,
  withInputValidation,
} from '@tollgate/mcp-validation'
import {
  INITIALIZED_NOTIFICATION,
  initializeRequest,
  MCP_POST_HEADERS,
} from '@tollgate/test-kit/mcp-initialize'
import autocannon from 'autocannon'
import { medianNs, printTable, writeResults } from './lib.mjs'
import { buildServer, SCHEMAS } from './mcp-e2e-servers.mjs'
import { VALIDATION_INPUTS } from './mcp-shapes.mjs'

const SERVERS = fileURLToPath(new URL('./mcp-e2e-servers.mjs', import.meta.url))
const DURATION_S = Number(process.env.BENCH_DURATION ?? 2)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11)
const CALLS = Number(process.env.BENCH_CALLS ?? 2000)
const CONNECTIONS = 8
const SIZES = (process.env.BENCH_SIZES ?? '1024,102400').split(',').map(Number)
const PROTOCOL = '2025-11-25'

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

// ---------------------------------------------------------------- servers

function startHttp(kind, label = kind) {
  const execArgv = process.env.BENCH_PROF_DIR
    ? [
        '--cpu-prof',
        '--cpu-prof-dir',
        process.env.BENCH_PROF_DIR,
        '--cpu-prof-name',
        `${label}.cpuprofile`,
      ]
    : []
  const child = fork(SERVERS, ['http', kind], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('message', ({ port }) =>
      resolve({ kind, child, url: `http://127.0.0.1:${port}/mcp` }),
    )
  })
}

function stopHttp(server) {
  return new Promise((resolve) => {
    server.child.once('exit', resolve)
    server.child.send('exit')
  })
}

/** Asks the child for one figure: 'heap' → heapUsed bytes, 'cpu' → its CPU time in µs. */
function ask(server, what) {
  return new Promise((resolve) => {
    server.child.once('message', (msg) => resolve(what === 'heap' ? msg.heapUsed : msg.cpuUs))
    server.child.send(what)
  })
}

/** Opens the one session: initialize, then notifications/initialized. */
async function openSession(server) {
  const init = await fetch(server.url, {
    method: 'POST',
    headers: MCP_POST_HEADERS,
    body: JSON.stringify(initializeRequest(0, 'bench', PROTOCOL)),
  })
  const session = init.headers.get('mcp-session-id')
  const body = await init.json()
  if (!session || body.result?.protocolVersion !== PROTOCOL)
    throw new Error(`${server.kind}: initialize answered ${init.status} ${JSON.stringify(body)}`)
  server.headers = {
    ...MCP_POST_HEADERS,
    'mcp-session-id': session,
    'mcp-protocol-version': PROTOCOL,
  }
  const done = await fetch(server.url, {
    method: 'POST',
    headers: server.headers,
    body: JSON.stringify(INITIALIZED_NOTIFICATION),
  })
  if (done.status !== 202) throw new Error(`${server.kind}: initialized answered ${done.status}`)
}

// ---------------------------------------------------------------- 1. throughput

/** `{"text":"..."}` of exactly `bytes` bytes of JSON. */
function echoArguments(bytes) {
  const filler = 'lorem ipsum dolor sit amet, consectetur adipiscing elit '
  const n = bytes - Buffer.byteLength('{"text":""}')
  return { text: filler.repeat(Math.ceil(n / filler.length)).slice(0, n) }
}

function callBody(id, args) {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'echo', arguments: args },
  })
}

/** One tools/call through fetch: checks the server answers the echo, not an error. */
async function checkEcho(server, args) {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: server.headers,
    body: callBody(1, args),
  })
  const body = await res.json()
  const text = body.result?.content?.[0]?.text
  if (res.status !== 200 || body.result?.isError || text !== args.text)
    throw new Error(
      `${server.kind}: echo answered ${res.status} ${JSON.stringify(body).slice(0, 300)}`,
    )
}

/** req/s of one autocannon leg; every request carries a fresh JSON-RPC id. */
async function leg(server, args, seconds) {
  // The SDK routes a JSON response by request id, so concurrent requests need distinct ids.
  const whole = callBody(0, args)
  const cut = whole.indexOf('"id":0') + '"id":'.length
  const head = whole.slice(0, cut)
  const tail = whole.slice(cut + 1)
  let next = 1
  const cpuBefore = await ask(server, 'cpu')
  const result = await autocannon({
    url: server.url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: server.headers,
        setupRequest: (req) => ({ ...req, body: `${head}${next++}${tail}` }),
      },
    ],
  })
  const bad = result.non2xx + result.errors + result.timeouts
  if (bad > 0)
    throw new Error(
      `${server.kind}: ${bad} failed requests (${JSON.stringify({ non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts })})`,
    )
  const cpuUs = (await ask(server, 'cpu')) - cpuBefore
  return { rps: result.requests.average, cpuUsPerRequest: cpuUs / result.requests.total }
}

async function throughput(anchor, guarded) {
  const rows = []
  for (const bytes of SIZES) {
    const args = echoArguments(bytes)
    for (const server of [anchor, guarded]) {
      await checkEcho(server, args)
      await leg(server, args, 1)
    }
    const rounds = []
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? [anchor, guarded] : [guarded, anchor]
      const m = {}
      for (const server of order) m[server.kind] = await leg(server, args, DURATION_S)
      rounds.push({
        anchor: m.anchor.rps,
        guarded: m.guarded.rps,
        ratio: m.guarded.rps / m.anchor.rps,
        cpuRatio: m.anchor.cpuUsPerRequest / m.guarded.cpuUsPerRequest,
        anchorCpuUs: m.anchor.cpuUsPerRequest,
        guardedCpuUs: m.guarded.cpuUsPerRequest,
      })
    }
    // The server's CPU time per request is what its throughput is bounded by, and it moves far
    // less with the machine's load than req/s does: reported beside, as anchor ÷ guarded.
    const cpu = [...rounds].sort((a, b) => a.cpuRatio - b.cpuRatio)[Math.floor(rounds.length / 2)]
    const ratios = rounds.map((r) => r.ratio)
    // The median round (for an even count, the upper middle): its req/s and its ratio.
    const mid = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)]
    // Breakdown, in this process: what the guarded server adds per request that the anchor
    // does not do at all (the argument check with its charge, and the result budget's charge).
    const registry = loadSchemaRegistry(SCHEMAS)
    const options = resolveInputValidationOptions()
    const call = { name: 'echo', arguments: args }
    const result = { content: [{ type: 'text', text: args.text }] }
    rows.push({
      instance: `tools/call echo, ${bytes.toLocaleString('en-US')} B of arguments`,
      anchor: 'express.json() + handleRequest (SDK documented setup)',
      anchorRps: mid.anchor,
      subject: 'mcpExpressHandler + resultBudget + withInputValidation',
      subjectRps: mid.guarded,
      ratio: mid.ratio,
      roundRatios: ratios.map((x) => Number(x.toFixed(3))),
      anchorCpuUsPerRequest: cpu.anchorCpuUs,
      subjectCpuUsPerRequest: cpu.guardedCpuUs,
      cpuRatio: cpu.cpuRatio,
      roundCpuRatios: rounds.map((r) => Number(r.cpuRatio.toFixed(3))),
      // Server time per request the guarded server spends beyond the anchor's (1 / req/s each).
      gapUs: (1 / mid.guarded - 1 / mid.anchor) * 1e6,
      checkToolCallUs: (await medianNs(() => checkToolCall(registry, call, options))) / 1e3,
      chargeArgumentsUs: (await medianNs(() => chargeJson(args))) / 1e3,
      chargeResultUs: (await medianNs(() => chargeJson(result))) / 1e3,
      goal: '>= 0.95',
    })
  }
  return rows
}

// ---------------------------------------------------------------- 2. validation round trips

const inputs = VALIDATION_INPUTS

async function client(transport) {
  const c = new Client({ name: 'bench', version: '1.0.0' })
  await c.connect(transport)
  return c
}

/** Pairs of clients (undecorated, decorated) per transport. */
async function clientPairs(anchor, validated) {
  const registry = loadSchemaRegistry(SCHEMAS)
  const memory = async (decorated) => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await buildServer().connect(decorated ? withInputValidation(serverSide, registry) : serverSide)
    return client(clientSide)
  }
  const stdio = (kind) =>
    client(
      new StdioClientTransport({
        command: process.execPath,
        args: [SERVERS, 'stdio', kind],
        stderr: 'inherit',
      }),
    )
  const http = (server) => client(new StreamableHTTPClientTransport(new URL(server.url)))
  return {
    'stdio (child process, SDK StdioServerTransport)': [
      await stdio('plain'),
      await stdio('validated'),
    ],
    'Streamable HTTP (express.json + handleRequest)': [await http(anchor), await http(validated)],
    'in memory (InMemoryTransport)': [await memory(false), await memory(true)],
  }
}

async function timeOne(fn) {
  const start = process.hrtime.bigint()
  const r = await fn()
  if (r.isError) throw new Error(JSON.stringify(r))
  return Number(process.hrtime.bigint() - start)
}

async function validation(anchor, validated) {
  const pairs = await clientPairs(anchor, validated)
  const rows = []
  for (const [instance, call] of Object.entries(inputs)) {
    for (const [transport, [plain, decorated]] of Object.entries(pairs)) {
      const anchors = []
      const subjects = []
      for (let i = 0; i < CALLS + 200; i++) {
        const first = i % 2 === 0
        const a = first ? await timeOne(() => plain.callTool(call)) : 0
        const b = await timeOne(() => decorated.callTool(call))
        const a2 = first ? a : await timeOne(() => plain.callTool(call))
        if (i >= 200) {
          anchors.push(a2)
          subjects.push(b)
        }
      }
      const anchorNs = median(anchors)
      const subjectNs = median(subjects)
      rows.push({
        instance,
        transport,
        bytes: Buffer.byteLength(JSON.stringify(call.arguments)),
        anchor: 'undecorated round trip',
        anchorNs,
        subject: 'withInputValidation round trip',
        subjectNs,
        ratio: subjectNs / anchorNs,
        // What the decorator adds per call, absolute: pipe and socket latencies are bimodal on a
        // shared machine, so beside the ratio this is the steadier figure across transports.
        addedUs: (subjectNs - anchorNs) / 1e3,
        // The goal is for the wire; in memory is reported beside it, with no goal of its own.
        goal: transport.startsWith('in memory') ? 'none (beside the wire rows)' : '<= 1.05',
      })
    }
  }
  for (const pair of Object.values(pairs)) for (const c of pair) await c.close()
  return rows
}

// ---------------------------------------------------------------- run

const anchor = await startHttp('anchor')
const guarded = await startHttp('guarded')
// The validation legs open their own sessions, on servers of their own.
const plain = await startHttp('anchor', 'plain')
const validated = await startHttp('validated')
await openSession(anchor)
await openSession(guarded)
const rows = await throughput(anchor, guarded)
const heapMiB = {}
for (const server of [anchor, guarded]) heapMiB[server.kind] = (await ask(server, 'heap')) / 2 ** 20
console.log(`heapUsed after part 1, MiB: ${JSON.stringify(heapMiB)}`)
printTable(
  [
    'input',
    'anchor req/s',
    'guarded req/s',
    'ratio (goal ≥ 0.95)',
    'rounds',
    'CPU µs/request anchor / guarded',
    'CPU ratio (anchor ÷ guarded)',
    'gap per request',
    'checkToolCall',
    'of which chargeJson(arguments)',
    'chargeJson(result)',
  ],
  rows.map((r) => [
    r.instance,
    r.anchorRps.toFixed(0),
    r.subjectRps.toFixed(0),
    r.ratio.toFixed(3),
    r.roundRatios.join(' / '),
    `${r.anchorCpuUsPerRequest.toFixed(0)} / ${r.subjectCpuUsPerRequest.toFixed(0)}`,
    `${r.cpuRatio.toFixed(3)} (${r.roundCpuRatios.join(' / ')})`,
    `${r.gapUs.toFixed(0)} µs`,
    `${r.checkToolCallUs.toFixed(1)} µs`,
    `${r.chargeArgumentsUs.toFixed(1)} µs`,
    `${r.chargeResultUs.toFixed(1)} µs`,
  ]),
)
const validationRows = process.env.BENCH_SKIP_VALIDATION ? [] : await validation(plain, validated)
const fmt = (ns) => `${(ns / 1e3).toFixed(1)} µs`
printTable(
  ['input', 'transport', 'undecorated p50', 'decorated p50', 'ratio (goal ≤ 1.05)', 'added'],
  validationRows.map((r) => [
    r.instance,
    r.transport,
    fmt(r.anchorNs),
    fmt(r.subjectNs),
    r.ratio.toFixed(3),
    `${r.addedUs.toFixed(1)} µs`,
  ]),
)
for (const server of [anchor, guarded, plain, validated]) await stopHttp(server)
// A partial or profiled run prints its tables and keeps the results file of the last full run.
const partial = ['BENCH_SKIP_VALIDATION', 'BENCH_PROF_DIR', 'BENCH_SIZES'].some(
  (k) => process.env[k],
)
if (!partial)
  writeResults('mcp-e2e', rows, {
    validation: validationRows,
    heapUsedMiBAfterThroughput: heapMiB,
    durationS: DURATION_S,
    rounds: ROUNDS,
    connections: CONNECTIONS,
    calls: CALLS,
    anchorReleasesJsonResponses: process.env.BENCH_ANCHOR_RELEASE !== '0',
  })
