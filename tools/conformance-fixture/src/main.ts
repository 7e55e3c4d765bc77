// The fixture's command line: `main.ts [--guarded] [--port N]`. Serves the fixture on
// http://127.0.0.1:<port>/mcp (bare by default) and writes one JSON line with
// `"event":"listening"` and the port to stderr once it listens. SIGTERM/SIGINT stop it.
import { createServer } from 'node:http'
import { parseArgs } from 'node:util'
import { bareFixtureHandler } from './bare.js'
import { guardedFixtureHandler } from './guarded.js'

const { values } = parseArgs({
  options: { guarded: { type: 'boolean', default: false }, port: { type: 'string', default: '0' } },
  strict: true,
})
const port = Number(values.port)
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write('--port takes an integer from 0 to 65535\n')
  process.exit(2)
}
const route = values.guarded ? guardedFixtureHandler() : bareFixtureHandler()
const server = createServer((req, res) => {
  if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n')
    return
  }
  route(req, res).catch((error: unknown) => {
    process.stderr.write(`${JSON.stringify({ event: 'error', message: String(error) })}\n`)
    if (!res.headersSent) res.writeHead(500)
    res.end()
  })
})
server.listen(port, '127.0.0.1', () => {
  const address = server.address()
  const mode = values.guarded ? 'guarded' : 'bare'
  const bound = typeof address === 'object' && address !== null ? address.port : port
  process.stderr.write(`${JSON.stringify({ event: 'listening', mode, port: bound })}\n`)
})
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.closeAllConnections()
    server.close(() => process.exit(0))
  })
}
