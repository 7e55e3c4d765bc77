// tollgate-gateway against the gateways people run today, same upstream, same run.
//
// Upstream: @modelcontextprotocol/server-everything (stdio child), its `echo` tool (returns the
// `message` it was given). Four paths to it, each a fresh process started here:
//   direct         a raw JSON-RPC client on the child's stdin/stdout (no gateway: the anchor)
//   tollgate       `tollgate-gateway --config C --port P -- node server-everything stdio`
//                  (every control on, so each call's arguments are validated against the
//                  tool's inputSchema; the config only lifts the per-principal rate)
//   supergateway   4.0.0, `--stdio … --outputTransport streamableHttp --stateful`
//   mcp-proxy      6.7.19, `--server stream -- node server-everything stdio`
// Each HTTP path is driven as a 2025-era client (one `initialize`, one session; supergateway
// serves no 2026-07-28 client), over keep-alive connections on 127.0.0.1.
// Instances: `tools/call` of `echo` whose `arguments` serialize to 1 KB, 4 KiB and 100 KB.
//   latency   CALLS calls one after another on one connection (after CALLS/10 warm-up calls):
//             p50 and p99 per call, and the added p50/p99 (path − direct).
//   req/s     CALLS calls with CONCURRENCY in flight (one connection each), completed ÷ elapsed.
//   idle      RSS of the gateway process (not its child) before and after IDLE TCP connections
//             that connect and send nothing, scaled to 1,000 connections.
// Goals (issue 28): added p50 ≤ 1 ms at 4 KiB; tollgate req/s ≥ each peer's while validating.
//
// Not a test: figures depend on the machine and its load (the machine these were measured on
// is shared by several people at once: treat absolute figures as loaded-machine figures).
// Run: node bench/gateway.bench.mjs (packages built; BENCH_CALLS, BENCH_CONCURRENCY, BENCH_IDLE
// override the counts: 300, 8, 1000). Measured here with BENCH_CALLS=200.
// The 4 KiB goal, where it stands: at load average 1.1 the added p50 was 1.36 ms (over the goal;
// supergateway 1.56, mcp-proxy 2.08). A run at load average 14-23 (BENCH_CALLS=200,
// BENCH_IDLE=200) gave 0.43 ms, with direct's own p50 at 1.16 ms: at that load the difference is
// noise, not a gain. A CPU profile of the gateway (`node --cpu-prof`, 1,500 sequential 4 KiB
// echo calls on one 2025 session, load about 15) puts the gateway's own code at about 0.3 ms
// per call (HTTP front, body admission and preflight, header agreement, argument validation,
// forwarding and the result charge together); the rest of its time is the two extra hops
// (the pipe write to the child and the socket write back: 1.5 ms a call at that load, mostly
// waiting to be scheduled) and garbage collection (0.4 ms a call, the re-serialized message and
// the parsed answer). Nothing in the gateway's code stood out to remove; what remains is the
// price of a second process and a re-serialized message.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { connect, createServer } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { machine, printTable, writeResults } from './lib.mjs'

const CALLS = Number(process.env.BENCH_CALLS ?? 300)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)
const IDLE = Number(process.env.BENCH_IDLE ?? 1000)
const SIZES = [
  ['1 KB', 1000],
  ['4 KiB', 4096],
  ['100 KB', 100_000],
]
const here = (p) => fileURLToPath(new URL(p, import.meta.url))
const EVERYTHING = `${realpathSync(here('./node_modules/@modelcontextprotocol/server-everything'))}/dist/index.js`
const UPSTREAM = [process.execPath, EVERYTHING, 'stdio']
const GATEWAY_CLI = here('../packages/gateway/dist/cli.js')
const SUPERGATEWAY = `${realpathSync(here('./node_modules/supergateway'))}/dist/index.js`
const MCP_PROXY = `${realpathSync(here('./node_modules/mcp-proxy'))}/dist/bin/mcp-proxy.mjs`

/** `arguments` for `echo` whose JSON serialization is exactly `bytes` long. */
function argumentsOf(bytes) {
  const empty = JSON.stringify({ message: '' }).length
  return { message: 'x'.repeat(bytes - empty) }
}
const callOf = (id, args) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: args },
})
const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'bench', version: '1' },
  },
}

async function freePort() {
  const server = createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  await new Promise((resolve) => server.close(resolve))
  return port
}

const rssBytes = (pid) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024

/** The anchor: JSON-RPC lines on the child's stdin/stdout, answers matched by id. */
async function direct() {
  const child = spawn(UPSTREAM[0], UPSTREAM.slice(1), { stdio: ['pipe', 'pipe', 'ignore'] })
  const waiting = new Map()
  let buffer = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    buffer += chunk
    let i = buffer.indexOf('\n')
    while (i >= 0) {
      const message = JSON.parse(buffer.slice(0, i))
      buffer = buffer.slice(i + 1)
      waiting.get(message.id)?.(message)
      waiting.delete(message.id)
      i = buffer.indexOf('\n')
    }
  })
  let next = 1
  const send = (message) =>
    new Promise((resolve) => {
      waiting.set(message.id, resolve)
      child.stdin.write(`${JSON.stringify(message)}\n`)
    })
  await send(INIT)
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
  return {
    call: (args) => send(callOf(next++, args)),
    connection: () => (args) => send(callOf(next++, args)),
    stop: () => child.kill('SIGKILL'),
  }
}

function post(port, agent, body, headers) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c) => {
          text += c
        })
        res.on('end', () => {
          // An event stream may carry notifications before the answer: each event's data is
          // one message, and the answer is the one that is not a notification.
          const messages = (res.headers['content-type'] ?? '').includes('event-stream')
            ? text
                .split(/\r?\n\r?\n/)
                .map((event) =>
                  event
                    .split(/\r?\n/)
                    .filter((l) => l.startsWith('data:'))
                    .map((l) => l.slice(5))
                    .join('\n'),
                )
                .filter((data) => data.trim() !== '')
                .map((data) => JSON.parse(data))
            : text
              ? [JSON.parse(text)]
              : []
          resolve({
            status: res.statusCode,
            headers: res.headers,
            body: messages.find((m) => m.method === undefined) ?? messages.at(-1),
          })
        })
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

/** Starts a gateway process, waits until an `initialize` succeeds, returns a session caller. */
async function gateway(name, command, args, port) {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (c) => {
    stderr = (stderr + c).slice(-20_000)
  })
  const portOf = async () => {
    if (port !== undefined) return port
    const line = stderr.split('\n').find((l) => l.includes('"event":"listening"'))
    return line === undefined ? undefined : JSON.parse(line).port
  }
  const deadline = Date.now() + 120_000
  let session
  let at
  while (Date.now() < deadline && child.exitCode === null) {
    at = await portOf()
    if (at !== undefined) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 })
      const init = await post(at, agent, INIT, {}).catch(() => undefined)
      agent.destroy()
      if (init?.status === 200) {
        session = init.headers['mcp-session-id']
        break
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  if (session === undefined) throw new Error(`${name} did not start: ${stderr.slice(-2000)}`)
  const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }
  await post(at, new Agent(), { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)
  let next = 1
  const connection = () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    return async (args) => (await post(at, agent, callOf(next++, args), headers)).body
  }
  return {
    call: connection(),
    connection,
    pid: child.pid,
    port: at,
    stop: () => child.kill('SIGKILL'),
  }
}

function check(answer, args) {
  const text = answer?.result?.content?.[0]?.text
  if (answer?.result?.isError || typeof text !== 'string' || !text.includes(args.message)) {
    throw new Error(`unexpected answer: ${JSON.stringify(answer).slice(0, 300)}`)
  }
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]
}

async function latency(path, args) {
  for (let i = 0; i < Math.ceil(CALLS / 10); i++) check(await path.call(args), args)
  const times = []
  for (let i = 0; i < CALLS; i++) {
    const started = process.hrtime.bigint()
    const answer = await path.call(args)
    times.push(Number(process.hrtime.bigint() - started) / 1e6)
    check(answer, args)
  }
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) }
}

async function throughput(path, args) {
  const callers = Array.from({ length: CONCURRENCY }, () => path.connection())
  let left = CALLS
  const started = process.hrtime.bigint()
  await Promise.all(
    callers.map(async (call) => {
      while (left-- > 0) check(await call(args), args)
    }),
  )
  return CALLS / (Number(process.hrtime.bigint() - started) / 1e9)
}

async function idleRss(path) {
  if (path.pid === undefined) return undefined
  const before = rssBytes(path.pid)
  const sockets = []
  for (let i = 0; i < IDLE; i++) {
    const socket = connect(path.port, '127.0.0.1')
    socket.on('error', () => {})
    await new Promise((resolve) => socket.once('connect', resolve).once('error', resolve))
    sockets.push(socket)
  }
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const after = rssBytes(path.pid)
  for (const s of sockets) s.destroy()
  return ((after - before) / IDLE) * 1000
}

// The gateway's per-principal rate (600 calls per minute per tool by default) would refuse a
// benchmark's calls: raised out of the way (with the anonymous /mcp route a config must name),
// every other control stays at its default.
const CONFIG = join(mkdtempSync(join(tmpdir(), 'tollgate-gateway-bench-')), 'config.json')
writeFileSync(
  CONFIG,
  JSON.stringify({
    routes: [{ path: '/mcp', anonymous: true }],
    limits: { ratePerMinute: 1_000_000, burst: 1_000_000 },
  }),
)

const paths = [['direct', direct]]
const gateways = [
  [
    'tollgate-gateway',
    async () =>
      gateway('tollgate-gateway', process.execPath, [
        GATEWAY_CLI,
        '--config',
        CONFIG,
        '--port',
        '0',
        '--',
        ...UPSTREAM,
      ]),
  ],
  [
    'supergateway 4.0.0',
    async () => {
      const port = await freePort()
      const args = [
        SUPERGATEWAY,
        '--stdio',
        UPSTREAM.join(' '),
        '--outputTransport',
        'streamableHttp',
        '--stateful',
        '--port',
        String(port),
        '--logLevel',
        'none',
      ]
      return gateway('supergateway', process.execPath, args, port)
    },
  ],
  [
    'mcp-proxy 6.7.19',
    async () => {
      const port = await freePort()
      const args = [
        MCP_PROXY,
        '--server',
        'stream',
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--',
        ...UPSTREAM,
      ]
      return gateway('mcp-proxy', process.execPath, args, port)
    },
  ],
]
paths.push(...gateways)

const rows = []
const measured = {}
for (const [name, start] of paths) {
  const path = await start()
  try {
    measured[name] = { sizes: {} }
    for (const [label, bytes] of SIZES) {
      const args = argumentsOf(bytes)
      measured[name].sizes[label] = {
        ...(await latency(path, args)),
        rps: await throughput(path, args),
      }
    }
    measured[name].idle = await idleRss(path)
  } finally {
    path.stop()
  }
}
for (const [label] of SIZES) {
  const base = measured.direct.sizes[label]
  for (const [name] of paths) {
    const m = measured[name].sizes[label]
    rows.push({
      input: `tools/call echo, ${label} arguments`,
      path: name,
      p50_ms: Number(m.p50.toFixed(3)),
      p99_ms: Number(m.p99.toFixed(3)),
      added_p50_ms: name === 'direct' ? 0 : Number((m.p50 - base.p50).toFixed(3)),
      added_p99_ms: name === 'direct' ? 0 : Number((m.p99 - base.p99).toFixed(3)),
      req_per_s: Math.round(m.rps),
      ratio: Number((m.rps / base.rps).toFixed(3)),
    })
  }
}
const idle = gateways.map(([name]) => ({
  input: `${IDLE} idle TCP connections (connected, nothing sent)`,
  path: name,
  rss_mib_per_1000: Number((measured[name].idle / 1024 / 1024).toFixed(2)),
}))

const m = machine()
console.log(
  `Node ${m.node}, ${m.cores} cores, ${m.cpu}; ${CALLS} calls, ${CONCURRENCY} in flight for req/s`,
)
printTable(
  ['input', 'path', 'p50 ms', 'p99 ms', 'added p50 ms', 'added p99 ms', 'req/s', 'req/s ÷ direct'],
  rows.map((r) => [
    r.input,
    r.path,
    r.p50_ms,
    r.p99_ms,
    r.added_p50_ms,
    r.added_p99_ms,
    r.req_per_s,
    r.ratio,
  ]),
)
printTable(
  ['input', 'path', 'RSS MiB per 1,000'],
  idle.map((r) => [r.input, r.path, r.rss_mib_per_1000]),
)
writeResults('gateway', rows, {
  idle,
  counts: { calls: CALLS, concurrency: CONCURRENCY, idleConnections: IDLE },
  loadAverageAtEnd: loadavg().map((l) => Number(l.toFixed(1))),
  caveat:
    'measured on a shared 2-core machine under load from other work; absolute figures are loaded-machine figures',
})
process.exit(0)
