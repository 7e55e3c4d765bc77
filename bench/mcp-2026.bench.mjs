// The 2026-07-28 path of @tollgate/mcp-transport against the bare SDK 2.4, in one run.
//
// 1. tools/call: a 2026-07-28 `tools/call` of `echo` (returns the length of its `text`) with
//    arguments making a body of 1 KiB and 100 KiB, sent to two servers on 127.0.0.1 in this
//    process, both the same SDK 2.4 `createMcpHandler` (JSON responses). Anchor: the handler
//    alone through the SDK's `toNodeHandler`. Subject: `mcpHttpHandler` in front of it, handing
//    the admitted body over with `webHandover` (no re-serialization), with every control of
//    the package on (Host/Origin, protocol version and era, the route's head admission with a
//    surface, a per-tool cap and a quota, the first-byte check, body admission with its
//    preflight, header/body agreement with an `Mcp-Param-*` declaration). One keep-alive
//    connection each, calls interleaved one by one (the order flipped each round), CALLS calls
//    per server per round, ROUNDS rounds. Figure: anchor median time per call ÷ subject median
//    time per call (a throughput ratio; 1 = no cost), the median over rounds.
// 2. pre-body refusal: a `tools/call` naming a tool off the surface, with a declared 100 KiB
//    body. The client writes the head only and waits for the answer: the figure is how many
//    body bytes had been sent (so could have been read) when the refusal arrived.
//
// Not a test: figures depend on the machine and its load. Run: node bench/mcp-2026.bench.mjs
// (packages built; BENCH_CALLS, BENCH_ROUNDS override).
import { Agent, createServer, request } from 'node:http'
import { connect } from 'node:net'
import { toNodeHandler } from '@modelcontextprotocol/node'
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server'
import { createInFlightBudget } from '@tollgate/http-admission'
import {
  createMcpHttpAdmission,
  mcpBodyAdmission,
  mcpHttpHandler,
  mcpProtocolEras,
  mcpRouteHead,
  webHandover,
} from '@tollgate/mcp-transport'
import { machine, printTable } from './lib.mjs'

const CALLS = Number(process.env.BENCH_CALLS ?? 200)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const SIZES = [1024, 100 * 1024]
const SCHEMA = {
  type: 'object',
  properties: { text: { type: 'string' }, region: { type: 'string', 'x-mcp-header': 'Region' } },
  required: ['text'],
}

function sdkHandler() {
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'bench', version: '1.0.0' })
      server.registerTool('echo', { inputSchema: fromJsonSchema(SCHEMA) }, async ({ text }) => ({
        content: [{ type: 'text', text: `len:${text.length}` }],
      }))
      return server
    },
    { responseMode: 'json' },
  )
  return { handler, node: toNodeHandler(handler) }
}

async function listen(listener) {
  const server = createServer(listener)
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: server.address().port }
}

const bare = sdkHandler()
const guardedSdk = sdkHandler()
const route = mcpRouteHead({
  tools: { echo: { inputSchema: SCHEMA, maxBodyBytes: 200 * 1024 } },
  methods: ['tools/call', 'tools/list', 'server/discover'],
  quota: { acquire: () => ({ ok: true, release: () => {} }) },
})
const guarded = mcpHttpHandler(
  webHandover(guardedSdk.handler),
  createMcpHttpAdmission({
    body: mcpBodyAdmission({ budget: createInFlightBudget(256 * 1024 * 1024) }),
    eras: mcpProtocolEras(),
    route,
  }),
)
const anchor = await listen((req, res) => {
  bare.node(req, res).catch(() => res.destroy())
})
const subject = await listen((req, res) => {
  guarded(req, res).catch(() => res.destroy())
})

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
}
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'echo',
  'mcp-param-region': 'eu',
}

function bodyOf(bytes, id) {
  const make = (text) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text, region: 'eu' }, _meta: META },
    })
  const empty = Buffer.byteLength(make(''))
  return Buffer.from(make('x'.repeat(bytes - empty)))
}

function post(port, agent, body) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const req = request(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent, headers: HEADERS },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c) => {
          text += c
        })
        res.on('end', () => {
          if (res.statusCode !== 200 || !text.includes('"len:')) {
            reject(new Error(`unexpected answer ${res.statusCode}: ${text.slice(0, 200)}`))
          } else resolve(Number(process.hrtime.bigint() - started))
        })
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

const rows = []
for (const size of SIZES) {
  const agents = [
    new Agent({ keepAlive: true, maxSockets: 1 }),
    new Agent({ keepAlive: true, maxSockets: 1 }),
  ]
  const ratios = []
  let anchorNs = 0
  let subjectNs = 0
  for (let round = 0; round < ROUNDS + 1; round++) {
    const times = { anchor: [], subject: [] }
    for (let i = 0; i < CALLS; i++) {
      const body = bodyOf(size, i + 1)
      const legs = [
        ['anchor', anchor.port, agents[0]],
        ['subject', subject.port, agents[1]],
      ]
      if ((round + i) % 2) legs.reverse()
      for (const [name, port, agent] of legs) times[name].push(await post(port, agent, body))
    }
    if (round === 0) continue // warm-up
    anchorNs = median(times.anchor)
    subjectNs = median(times.subject)
    ratios.push(anchorNs / subjectNs)
  }
  for (const agent of agents) agent.destroy()
  rows.push([
    `tools/call ${size === 1024 ? '1 KiB' : '100 KiB'}`,
    `${(anchorNs / 1e3).toFixed(0)} µs`,
    `${(subjectNs / 1e3).toFixed(0)} µs`,
    median(ratios).toFixed(3),
  ])
}

// A pre-body refusal: the head only, then wait for the answer before any body byte is sent.
async function refusedBodyBytes() {
  const socket = connect(subject.port, '127.0.0.1')
  const head = [
    'POST /mcp HTTP/1.1',
    `host: 127.0.0.1:${subject.port}`,
    ...Object.entries({ ...HEADERS, 'mcp-name': 'not_on_this_route' }).map(
      ([k, v]) => `${k}: ${v}`,
    ),
    `content-length: ${100 * 1024}`,
    '',
    '',
  ].join('\r\n')
  let answer = ''
  const answered = new Promise((resolve) => {
    socket.on('data', (c) => {
      answer += c.toString('latin1')
      if (answer.includes('\r\n\r\n')) resolve()
    })
    socket.on('close', resolve)
  })
  socket.write(head)
  const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), 10_000))
  const outcome = await Promise.race([answered, timeout])
  socket.destroy()
  return outcome === 'timeout' ? 'no answer within 10 s' : `0 (${answer.split('\r\n')[0]})`
}
rows.push([
  'pre-body refusal (Mcp-Name off the surface, 100 KiB declared)',
  '—',
  '—',
  await refusedBodyBytes(),
])

console.log(`machine: ${JSON.stringify(machine())}, ${ROUNDS} rounds × ${CALLS} calls`)
printTable(
  [
    'input',
    'bare createMcpHandler (median/call)',
    'every control (median/call)',
    'bare ÷ guarded (body bytes sent at refusal)',
  ],
  rows,
)
anchor.server.close()
subject.server.close()
await bare.handler.close()
await guardedSdk.handler.close()
process.exit(0)
