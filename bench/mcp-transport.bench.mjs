// Stdio throughput of BoundedStdioServerTransport against the anchor, the SDK's own
// StdioServerTransport, same run, same server, same bytes. Each round feeds a complete SDK
// McpServer (one `echo` tool) through an in-process stdin (PassThrough, 64 KiB writes, as a pipe
// delivers them) and counts the response lines on stdout; the clock runs from the first write to
// the last response. Rounds alternate between the two transports; the median round is reported.
//   A  1 KB calls: 20,000 tools/call lines of 1,000 bytes each           -> requests/s
//   B  10 MB lines: 8 tools/call lines of 10,000,000 bytes (under the SDK's 10 MiB cap) -> MB/s
// Run: node bench/mcp-transport.bench.mjs
import { PassThrough, Writable } from 'node:stream'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { BoundedStdioServerTransport } from '@tollgate/mcp-transport'
import { z } from 'zod'
import { machine, printTable, writeResults } from './lib.mjs'

const CHUNK = 64 * 1024
const ROUNDS = 5

/** `count` tools/call lines of exactly `lineBytes` bytes each (line ending included). */
function lines(count, lineBytes) {
  const head = (id) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"`
  const tail = '"}}}\n'
  const parts = []
  for (let id = 1; id <= count; id++) {
    const h = head(id)
    parts.push(Buffer.from(h + 'x'.repeat(lineBytes - h.length - tail.length) + tail))
  }
  return Buffer.concat(parts)
}

function chunks(buffer) {
  const out = []
  for (let i = 0; i < buffer.length; i += CHUNK) out.push(buffer.subarray(i, i + CHUNK))
  return out
}

async function round(kind, input, expected) {
  const server = new McpServer({ name: 'bench', version: '1.0.0' })
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text: `len:${text.length}` }],
  }))
  const stdin = new PassThrough({ highWaterMark: CHUNK })
  let seen = 0
  let done
  const finished = new Promise((resolve) => (done = resolve))
  const stdout = new Writable({
    write(chunk, _enc, cb) {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) seen++
      if (seen >= expected) done()
      cb()
    },
  })
  const transport =
    kind === 'sdk'
      ? new StdioServerTransport(stdin, stdout)
      : new BoundedStdioServerTransport(stdin, stdout)
  await server.connect(transport)
  const start = performance.now()
  for (const c of input) {
    if (!stdin.write(c)) await new Promise((resolve) => stdin.once('drain', resolve))
  }
  await finished
  const ms = performance.now() - start
  await server.close()
  return ms
}

async function compare(name, input, count, unit) {
  const bytes = input.reduce((n, c) => n + c.length, 0)
  const times = { sdk: [], bounded: [] }
  await round('sdk', input, count) // warm-up, both
  await round('bounded', input, count)
  for (let r = 0; r < ROUNDS; r++) {
    times.sdk.push(await round('sdk', input, count))
    times.bounded.push(await round('bounded', input, count))
  }
  const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const rate = (ms) => (unit === 'req/s' ? count / (ms / 1000) : bytes / 1e6 / (ms / 1000))
  const sdk = rate(median(times.sdk))
  const bounded = rate(median(times.bounded))
  return { input: name, unit, bounded, sdk, ratio: bounded / sdk }
}

const rows = []
rows.push(
  await compare('A 20,000 × 1 KB tools/call lines', chunks(lines(20_000, 1000)), 20_000, 'req/s'),
)
rows.push(await compare('B 8 × 10 MB tools/call lines', chunks(lines(8, 10_000_000)), 8, 'MB/s'))

const m = machine()
console.log(`Node ${m.node}, ${m.cores} cores, ${m.cpu}`)
printTable(
  ['input', 'unit', 'bounded', 'SDK StdioServerTransport (anchor)', 'ratio (goal ≥ 1.0)'],
  rows.map((r) => [r.input, r.unit, r.bounded.toFixed(1), r.sdk.toFixed(1), r.ratio.toFixed(2)]),
)
writeResults('mcp-transport', rows)
