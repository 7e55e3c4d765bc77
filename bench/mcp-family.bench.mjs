// The guarded 2026-07-28 MCP path ÷ the bare SDK over the generated family (bench/family.mjs).
//
// A 2026-07-28 `tools/call` of `count`, whose `arguments` are object-rooted:
// `{ items: <the family document>, region: 'eu' }` (`region` is an `x-mcp-header` parameter, so
// header/body agreement checks it). `count` answers the length of `items`, which the client
// checks, so a refusal is never timed as a fast call. Two servers on 127.0.0.1 in this process,
// both the same SDK 2.4 `createMcpHandler` (JSON responses). Anchor: the handler alone, through
// the SDK's `toNodeHandler` (it reads the body itself). Subject: `mcpHttpHandler` in front of
// it, handing the admitted body over with `webHandover` (a bodiless request and `parsedBody`,
// no re-serialization), with every control, wired as
// bench/mcp-2026.bench.mjs wires it (Host/Origin, protocol version and era, the route's head
// admission with a surface, a per-tool cap and a quota, the first-byte check, body admission
// with its preflight, header/body agreement with an `Mcp-Param-*` declaration); the body
// admission raises `maxNodes` to 10,000,000 and `maxDepth` to 200 so every shape is admitted
// (a refusal is not the cost measured here), and the tool's cap is 2 MiB.
// Inputs: FAMILY shapes drawn with SEED, sizes 64 B … 1 MiB of family document (the body is the
// envelope around it). Client: one keep-alive raw socket per server (bench/raw-http.mjs), calls
// interleaved one by one, the order flipped every call; ROUNDS rounds of about 250 ms
// of CPU. Each call's cost is the CPU time of this process (client and server: user + system)
// from the write to the answer's last byte, so waiting for a shared core does not count; the
// wall time is recorded beside it.
// Figure: bare median CPU time per call ÷ guarded median CPU time per call (a throughput ratio; goal
// ≥ 0.95), the median over rounds; the summary gives the median and the worst over the family,
// naming the shape of the worst. Load average recorded before and after the run.
//
// Run: node bench/mcp-family.bench.mjs (packages built). BENCH_FAMILY_SHAPES (16),
// BENCH_FAMILY_SEED (2026), BENCH_ROUNDS (3) override.
import { createServer } from 'node:http'
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
import { clientsFor, interleaved, loadNow, summarize } from './e2e-family.mjs'
import { documentOf, family } from './family.mjs'
import { machine, printTable, writeResults } from './lib.mjs'
import { requestBytes } from './raw-http.mjs'

const COUNT = Number(process.env.BENCH_FAMILY_SHAPES ?? 16)
const SEED = Number(process.env.BENCH_FAMILY_SEED ?? 2026)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const MAX_BYTES = 1 << 20
const loadBefore = loadNow()

const SCHEMA = {
  type: 'object',
  properties: {
    items: { type: 'array' },
    region: { type: 'string', 'x-mcp-header': 'Region' },
  },
  required: ['items'],
}

function sdkHandler() {
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'bench', version: '1.0.0' })
      server.registerTool('count', { inputSchema: fromJsonSchema(SCHEMA) }, async ({ items }) => ({
        content: [{ type: 'text', text: `n:${items.length}` }],
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
const guarded = mcpHttpHandler(
  webHandover(guardedSdk.handler),
  createMcpHttpAdmission({
    body: mcpBodyAdmission({
      budget: createInFlightBudget(256 * 1024 * 1024),
      maxNodes: 10_000_000,
      maxDepth: 200,
    }),
    eras: mcpProtocolEras(),
    route: mcpRouteHead({
      tools: { count: { inputSchema: SCHEMA, maxBodyBytes: 2 * 1024 * 1024 } },
      methods: ['tools/call', 'tools/list', 'server/discover'],
      quota: { acquire: () => ({ ok: true, release: () => {} }) },
    }),
  }),
)
const anchor = await listen((req, res) => {
  bare.node(req, res).catch(() => res.destroy())
})
const subject = await listen((req, res) => {
  guarded(req, res).catch(() => res.destroy())
})
const clients = await clientsFor(anchor.port, subject.port)

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
  'mcp-name': 'count',
  'mcp-param-region': 'eu',
}

/** The call's body: the family document's text spliced in as `items`, its whitespace kept. */
function bodyOf(text) {
  const [head, tail] = JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'count', arguments: { items: 0, region: 'eu' }, _meta: META },
  }).split('"items":0')
  return Buffer.concat([Buffer.from(`${head}"items":`), text, Buffer.from(tail)])
}

const rows = []
for (const shape of family(COUNT, SEED, MAX_BYTES)) {
  const { value, bytes } = documentOf(shape, shape.seed)
  const body = bodyOf(bytes)
  const requests = {
    anchor: requestBytes(anchor.port, '/mcp', HEADERS, body),
    subject: requestBytes(subject.port, '/mcp', HEADERS, body),
  }
  const expected = `"n:${value.length}"`
  const accept = (leg, answer) => {
    const text = answer.body.toString()
    if (answer.status !== 200 || !text.includes(expected))
      throw new Error(`${leg} on ${shape.name}: ${answer.status} ${text.slice(0, 300)}`)
  }
  const m = await interleaved(clients, requests, accept, { rounds: ROUNDS })
  rows.push({
    instance: shape.name,
    bytes: body.length,
    subject: 'mcpHttpHandler(every control) → createMcpHandler',
    anchor: 'createMcpHandler alone',
    bareCpuUs: m.anchorNs / 1e3,
    guardedCpuUs: m.subjectNs / 1e3,
    bareWallUs: m.anchorWallNs / 1e3,
    guardedWallUs: m.subjectWallNs / 1e3,
    calls: m.calls,
    ratio: m.ratio,
    ratioRange: `${Math.min(...m.ratios).toFixed(2)}–${Math.max(...m.ratios).toFixed(2)}`,
    goal: '≥ 0.95',
  })
  process.stdout.write('.')
}
process.stdout.write('\n')
clients.anchor.close()
clients.subject.close()
anchor.server.close()
subject.server.close()
await bare.handler.close()
await guardedSdk.handler.close()

const summary = [summarize('guarded 2026-07-28 tools/call ÷ bare SDK, family', rows, '≥ 0.95')]
const loadAfter = loadNow()
console.log(`machine: ${JSON.stringify(machine())}; load ${loadBefore} → ${loadAfter}`)
console.log(`family: ${COUNT} shapes, seed ${SEED}, sizes up to ${MAX_BYTES} bytes`)
printTable(
  ['figure', 'median', 'worst', 'worst on', 'goal'],
  summary.map((s) => [s.figure, s.median.toFixed(3), s.worst.toFixed(3), s.instance, s.goal]),
)
console.log('')
printTable(
  ['shape', 'body bytes', 'bare CPU µs', 'guarded CPU µs', 'ratio', 'per round'],
  rows.map((r) => [
    r.instance,
    r.bytes.toLocaleString('en-US'),
    r.bareCpuUs.toFixed(0),
    r.guardedCpuUs.toFixed(0),
    r.ratio.toFixed(3),
    r.ratioRange,
  ]),
)
writeResults('mcp-family', rows, {
  summary,
  seed: SEED,
  count: COUNT,
  maxBytes: MAX_BYTES,
  load: { before: loadBefore, after: loadAfter },
})
process.exit(0)
