// Where the gateway's own time goes: a CPU profile of the tollgate-gateway process (not its
// child) over sequential `tools/call echo` calls, summed by self time per function and per
// area (the gateway, each tollgate package, Node's HTTP and streams, GC, idle).
//
// Run: node bench/gateway-profile.mjs [calls=1500] [bytes=4096] [era=2025|2026] [subject]
// (packages built). Starts `node --cpu-prof dist/cli.js -- node server-everything stdio` (or,
// with subject `floor`, the bare pipe of gateway-floor.mjs, for comparison), drives
// the calls one after another on one keep-alive connection, stops the gateway with SIGTERM (the
// profile is written as it exits) and prints the two tables. Not a test; figures depend on the
// machine's load. Prints the profile's path for a closer look (Chrome DevTools).
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { printTable } from './lib.mjs'

const CALLS = Number(process.argv[2] ?? 1500)
const BYTES = Number(process.argv[3] ?? 4096)
const ERA = process.argv[4] ?? '2025'
const FLOOR = process.argv[5] === 'floor'
const here = (p) => fileURLToPath(new URL(p, import.meta.url))
const EVERYTHING = `${realpathSync(here('./node_modules/@modelcontextprotocol/server-everything'))}/dist/index.js`
const CLI = here('../packages/gateway/dist/cli.js')
const dir = mkdtempSync(join(tmpdir(), 'tollgate-gateway-profile-'))
// As in gateway.bench.mjs: the per-principal rate raised out of the way, every other control on.
const CONFIG = join(dir, 'config.json')
writeFileSync(
  CONFIG,
  JSON.stringify({
    routes: [{ path: '/mcp', anonymous: true }],
    limits: { ratePerMinute: 1_000_000, burst: 1_000_000 },
  }),
)

const child = spawn(
  process.execPath,
  [
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
    ...(FLOOR ? [here('./gateway-floor.mjs')] : [CLI, '--config', CONFIG, '--port', '0']),
    '--',
    process.execPath,
    EVERYTHING,
    'stdio',
  ],
  { stdio: ['ignore', 'ignore', 'pipe'] },
)
let stderr = ''
child.stderr.setEncoding('utf8').on('data', (c) => {
  stderr += c
})
const exited = new Promise((resolve) => child.once('exit', resolve))
// However this script ends, the gateway goes (and stops its child).
process.on('exit', () => child.kill('SIGTERM'))
let port
for (let i = 0; i < 600 && port === undefined; i++) {
  await new Promise((resolve) => setTimeout(resolve, 100))
  const line = stderr.split('\n').find((l) => l.includes('"event":"listening"'))
  if (line !== undefined && (FLOOR || stderr.includes('child_ready'))) port = JSON.parse(line).port
}
if (port === undefined) throw new Error(`gateway did not start: ${stderr.slice(-2000)}`)

const agent = new Agent({ keepAlive: true, maxSockets: 1 })
function post(body, headers) {
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
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }))
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

let headers
let meta
if (ERA === '2026') {
  headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' }
  meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  }
} else {
  const init = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'p', version: '1' },
    },
  })
  headers = {
    'mcp-session-id': init.headers['mcp-session-id'],
    'mcp-protocol-version': '2025-06-18',
  }
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers)
}
const message = 'x'.repeat(BYTES - JSON.stringify({ message: '' }).length)
const started = process.hrtime.bigint()
for (let id = 1; id <= CALLS; id++) {
  const params = { name: 'echo', arguments: { message } }
  if (meta !== undefined) params._meta = meta
  const answer = await post({ jsonrpc: '2.0', id, method: 'tools/call', params }, headers)
  if (answer.status !== 200 || !answer.text.includes('Echo: x'))
    throw new Error(`unexpected answer ${answer.status}: ${answer.text.slice(0, 200)}`)
}
const ended = process.hrtime.bigint()
const elapsedMs = Number(ended - started) / 1e6
agent.destroy()
child.kill('SIGTERM')
await exited

const file = join(
  dir,
  readdirSync(dir).find((f) => f.endsWith('.cpuprofile')),
)
const profile = JSON.parse(readFileSync(file, 'utf8'))
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
// Only the samples taken while the calls ran (the profiler's clock and hrtime are both the
// monotonic clock, in µs and ns): start-up, schema compilation and the drain are left out.
const from = Number(started / 1000n)
const to = Number(ended / 1000n)
const selfUs = new Map()
let at = profile.startTime
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0
  at += delta
  if (at >= from && at <= to) selfUs.set(id, (selfUs.get(id) ?? 0) + delta)
})
const areaOf = (url, name) => {
  if (name === '(garbage collector)') return 'GC'
  if (name === '(idle)') return 'idle'
  if (name === '(program)') return 'program (native, unattributed)'
  const pkg = /packages\/([a-z-]+)\//.exec(url)?.[1]
  if (pkg !== undefined) return `@tollgate/${pkg}`
  const dep = /node_modules\/(?:\.pnpm\/)?(@?[^/@]+(?:\/[^/@]+)?)/.exec(url)?.[1]
  if (dep !== undefined) return dep
  if (url.startsWith('node:')) return url.replace(/^node:internal\//, 'node:').split('/')[0]
  return url === '' ? '(native)' : url
}
const byFunction = new Map()
const byArea = new Map()
for (const [id, us] of selfUs) {
  const { callFrame } = byId.get(id)
  const name = callFrame.functionName || '(anonymous)'
  const where = `${callFrame.url.split('/').slice(-2).join('/')}:${callFrame.lineNumber + 1}`
  const key = `${name} ${where}`
  byFunction.set(key, (byFunction.get(key) ?? 0) + us)
  const area = areaOf(callFrame.url, name)
  byArea.set(area, (byArea.get(area) ?? 0) + us)
}
// Inclusive time per function (self plus callees), counting a function once per stack even
// when it recurses: where the time under each step of the request path goes.
const totalUs = new Map()
const keyOf = (node) => {
  const { callFrame } = node
  return `${callFrame.functionName || '(anonymous)'} ${callFrame.url.split('/').slice(-2).join('/')}:${callFrame.lineNumber + 1}`
}
const inclusive = (node, open) => {
  let us = selfUs.get(node.id) ?? 0
  const key = keyOf(node)
  const outer = !open.has(key)
  if (outer) open.add(key)
  for (const child of node.children ?? []) us += inclusive(byId.get(child), open)
  if (outer) {
    open.delete(key)
    totalUs.set(key, (totalUs.get(key) ?? 0) + us)
  }
  return us
}
inclusive(profile.nodes[0], new Set())
const perCall = (us) => Number((us / CALLS / 1000).toFixed(4))
const busy = [...byArea].filter(([a]) => a !== 'idle').reduce((s, [, us]) => s + us, 0)
console.log(
  `${CALLS} calls of ${BYTES} B (${ERA} caller) in ${elapsedMs.toFixed(0)} ms; gateway busy ${perCall(busy)} ms/call; profile ${file}`,
)
printTable(
  ['area', 'self ms per call'],
  [...byArea].sort((a, b) => b[1] - a[1]).map(([a, us]) => [a, perCall(us)]),
)
printTable(
  ['function', 'self ms per call'],
  [...byFunction]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 30)
    .map(([f, us]) => [f, perCall(us)]),
)
printTable(
  ['function (inclusive)', 'total ms per call'],
  [...totalUs]
    .filter(([f]) => !f.startsWith('(root)') && !f.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 40)
    .map(([f, us]) => [f, perCall(us)]),
)
process.exit(0)
