// The servers bench/mcp-e2e.bench.mjs measures, one per child process (so one server's garbage
// is never collected on another's clock). Run as a child only:
//
//   node bench/mcp-e2e-servers.mjs http <anchor|validated|guarded>   (fork: sends { port })
//   node bench/mcp-e2e-servers.mjs stdio <plain|validated>           (spawned by the client)
//
// Every server is the same McpServer (SDK 1.32.2) with the same three tools, one session:
// - http anchor: the SDK's documented Express setup, `express()` + `express.json()` +
//   `app.post('/mcp', (req, res) => transport.handleRequest(req, res, req.body))` on one
//   `StreamableHTTPServerTransport` with `enableJsonResponse: true` (answers are plain JSON, not
//   an SSE stream). One addition: `releaseFinishedJsonResponses(transport)` after each request,
//   because SDK 1.32.2 in JSON-response mode keeps every request's parsed body until the session
//   closes (see packages/mcp-transport README); without it the anchor's heap grows by every body
//   it is sent and the ratio would measure that defect, not the per-request cost.
//   BENCH_ANCHOR_RELEASE=0 leaves it out.
// - http validated: the anchor with `withInputValidation(transport, registry)` connected.
// - http guarded: `express()` + `mcpExpressHandler(transport)` (Host/Origin, MCP-Protocol-Version,
//   admitMcpBody with the default 4 MiB cap and preflight, handleMcpRequest), the server connected
//   to `resultBudget(withInputValidation(transport, registry))` as apps/mcp-server composes them.
// - stdio plain / validated: the SDK's StdioServerTransport, bare or decorated.
import { randomUUID } from 'node:crypto'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import {
  createMcpHttpAdmission,
  mcpExpressHandler,
  releaseFinishedJsonResponses,
  resultBudget,
} from '@tollgate/mcp-transport'
import { loadSchemaRegistry, withInputValidation } from '@tollgate/mcp-validation'
import express from 'express'
import { z } from 'zod'
import { registerShapeTools } from './mcp-shapes.mjs'

/** The published schemas of the three tools (and the shared context they reference). */
export const SCHEMAS = new URL('./schemas/mcp-e2e/', import.meta.url)

/** One McpServer with the bench's tools: echo (returns its text) and the mcp-validation shapes. */
export function buildServer() {
  const server = new McpServer({ name: 'bench-e2e', version: '1.0.0' })
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }))
  return registerShapeTools(server)
}

async function serveHttp(kind) {
  const registry = loadSchemaRegistry(SCHEMAS)
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: true,
  })
  const app = express()
  if (kind === 'guarded') {
    await buildServer().connect(resultBudget(withInputValidation(transport, registry)))
    app.post('/mcp', mcpExpressHandler(transport, createMcpHttpAdmission({ host: '127.0.0.1' })))
  } else {
    await buildServer().connect(
      kind === 'validated' ? withInputValidation(transport, registry) : transport,
    )
    const release = process.env.BENCH_ANCHOR_RELEASE !== '0'
    app.use(express.json({ limit: '1mb' }))
    app.post('/mcp', async (req, res) => {
      await transport.handleRequest(req, res, req.body)
      if (release) releaseFinishedJsonResponses(transport)
    })
  }
  // autocannon cuts connections mid-request when a run ends; answer quietly instead of logging.
  app.use((err, _req, res, _next) => res.status(err.status ?? 500).end())
  const server = app.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }))
  process.on('message', (msg) => {
    if (msg === 'heap') process.send({ heapUsed: process.memoryUsage().heapUsed })
    // CPU time of the whole process (every thread, the collector's included), in µs.
    if (msg === 'cpu') {
      const { user, system } = process.cpuUsage()
      process.send({ cpuUs: user + system })
    }
    // A normal exit, so a child run with --cpu-prof writes its profile.
    if (msg === 'exit') server.close(() => process.exit(0))
  })
  // A parent that dies (a failed run) must not leave this server listening.
  process.on('disconnect', () => process.exit(0))
}

async function serveStdio(kind) {
  const registry = loadSchemaRegistry(SCHEMAS)
  const transport = new StdioServerTransport()
  await buildServer().connect(
    kind === 'validated' ? withInputValidation(transport, registry) : transport,
  )
  process.stdin.on('end', () => process.exit(0))
}

const [role, kind] = process.argv.slice(2)
if (role === 'http') await serveHttp(kind)
else if (role === 'stdio') await serveStdio(kind)
