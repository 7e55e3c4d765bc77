// The floor of any Node gateway in front of a stdio MCP server: one extra process with no
// gateway logic. A bare `node:http` server whose every POST body is written, as it came, as one
// line to the child's stdin, and whose answer is the child's line with the same id, as it came,
// in one `application/json` write. No validation, no parse, no re-serialization: the request
// and answer ids are found lexically (the first `"id":` of a request, the last of an answer,
// both numbers, as gateway.bench.mjs sends them and @modelcontextprotocol/server-everything
// writes them). A session-era `initialize` gets a fixed `Mcp-Session-Id`; a body without an id
// (a notification) is written and answered 202.
//
// Run by gateway.bench.mjs: node bench/gateway-floor.mjs -- <command> [args…]
// Writes `{"event":"listening","port":P}` to stderr once it listens on 127.0.0.1 (port 0: a
// free one). Not a product: a measuring instrument for the bench.
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'

const sep = process.argv.indexOf('--')
const [command, ...args] = process.argv.slice(sep + 1)
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] })
child.on('exit', () => process.exit(1))
process.on('SIGTERM', () => {
  child.kill('SIGKILL')
  process.exit(0)
})

const ID = Buffer.from('"id":')

/** The number after `"id":` at `at` in `bytes`, else undefined. */
function numberAt(bytes, at) {
  if (at < 0) return undefined
  let i = at + ID.length
  let n = 0
  const start = i
  while (i < bytes.length && bytes[i] >= 0x30 && bytes[i] <= 0x39) n = n * 10 + bytes[i++] - 0x30
  return i === start ? undefined : n
}

const waiting = new Map()
let held = []
child.stdout.on('data', (chunk) => {
  let start = 0
  let nl = chunk.indexOf(0x0a)
  while (nl >= 0) {
    held.push(chunk.subarray(start, nl))
    const line = held.length === 1 ? held[0] : Buffer.concat(held)
    held = []
    const id = numberAt(line, line.lastIndexOf(ID))
    const res = id === undefined ? undefined : waiting.get(id)
    if (res !== undefined) {
      waiting.delete(id)
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Length': line.length,
        ...(res.initialize ? { 'Mcp-Session-Id': 'floor' } : {}),
      })
      res.end(line)
    }
    start = nl + 1
    nl = chunk.indexOf(0x0a, start)
  }
  if (start < chunk.length) held.push(chunk.subarray(start))
})

const server = createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)
    const id = numberAt(body, body.indexOf(ID))
    if (id === undefined) {
      child.stdin.write(Buffer.concat([body, Buffer.from('\n')]))
      res.writeHead(202).end()
      return
    }
    res.initialize = body.includes('"method":"initialize"')
    waiting.set(id, res)
    child.stdin.write(Buffer.concat([body, Buffer.from('\n')]))
  })
})
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`${JSON.stringify({ event: 'listening', port: server.address().port })}\n`)
})
