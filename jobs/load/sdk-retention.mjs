// The MCP SDK's Streamable HTTP transport in JSON-response mode, with no tollgate code: does a
// session keep each request it served? Sends 10 pings of 3 MiB in one session on 127.0.0.1 and
// prints the heap after GC before and after, and the sizes of the transport's maps.
//
//   node --expose-gc jobs/load/sdk-retention.mjs [raw|parsed]
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
// Not a workspace package: the kit's plain-JavaScript module, imported by path.
import {
  INITIALIZED_NOTIFICATION,
  initializeRequest,
  MCP_POST_HEADERS,
  PROTOCOL_VERSION,
} from '../../tools/test-kit/src/mcp-initialize.mjs'

const require = createRequire(new URL('../../bench/package.json', import.meta.url))
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js')
const {
  StreamableHTTPServerTransport,
} = require('@modelcontextprotocol/sdk/server/streamableHttp.js')

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc')
const mode = process.argv[2] ?? 'raw' // 'parsed' hands the SDK a parsed body, as tollgate does
let transport
const server = createServer(async (req, res) => {
  if (transport === undefined) {
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
    })
    await new McpServer({ name: 'retention', version: '0' }).connect(transport)
  }
  if (mode === 'parsed') {
    const chunks = []
    for await (const c of req) chunks.push(c)
    await transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString()))
  } else await transport.handleRequest(req, res)
})
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const url = `http://127.0.0.1:${server.address().port}/`
const init = await fetch(url, {
  method: 'POST',
  headers: MCP_POST_HEADERS,
  body: JSON.stringify(initializeRequest(0, 'x')),
})
const session = {
  ...MCP_POST_HEADERS,
  'mcp-session-id': init.headers.get('mcp-session-id'),
  'mcp-protocol-version': PROTOCOL_VERSION,
}
await init.text()
await (
  await fetch(url, {
    method: 'POST',
    headers: session,
    body: JSON.stringify(INITIALIZED_NOTIFICATION),
  })
).text()
const heapMiB = () => {
  globalThis.gc()
  globalThis.gc()
  return Math.round(process.memoryUsage().heapUsed / 2 ** 20)
}
const before = heapMiB()
for (let i = 1; i <= 10; i++) {
  const body = `{"jsonrpc":"2.0","id":${i},"method":"ping","params":{"_meta":{"pad":"${'x'.repeat(3 * 2 ** 20)}"}}}`
  await (await fetch(url, { method: 'POST', headers: session, body })).text()
}
await new Promise((resolve) => setTimeout(resolve, 200))
const inner = transport._webStandardTransport ?? transport
const maps = Object.fromEntries(
  Object.entries(inner)
    .filter(([, v]) => v instanceof Map)
    .map(([k, v]) => [k, v.size]),
)
console.log(
  JSON.stringify({
    sdk: '1.32.2',
    mode,
    heapAfterGcMiB: { before, after: heapMiB() },
    transportMaps: maps,
  }),
)
server.closeAllConnections()
server.close()
