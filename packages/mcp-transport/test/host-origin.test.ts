// The Host/Origin and protocol-version steps at their edges, through a real http.Server on
// 127.0.0.1 (port 0): mcpHttpHandler in front of the SDK's StreamableHTTPServerTransport
// (stateless, JSON responses, one per request). Heads are written raw over TCP, so a missing,
// malformed or repeated header is exactly what is sent. Sentinel: `seen`, the transports built
// and the tool calls run; a refusal asserts both stayed at zero.
import { connect } from 'node:net'
import { createInFlightBudget } from '@tollgate/http-admission'
import { parseResponse, type RawResponse } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createMcpHttpAdmission,
  type McpHttpOptions,
  mcpBodyAdmission,
  mcpHttpHandler,
} from '../src/index.js'
import { echoTarget } from './helpers/echo-target.js'

const CALL =
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"abc"}}}'

let running: Running[] = []
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()))
  running = []
})

async function serve(options: McpHttpOptions = {}) {
  const { seen, target } = echoTarget('host-origin')
  const handler = mcpHttpHandler(
    target,
    createMcpHttpAdmission({
      body: mcpBodyAdmission({ budget: createInFlightBudget(1 << 20) }),
      ...options,
    }),
  )
  const server = await listen((req, res) => {
    handler(req, res).catch(() => res.destroy())
  })
  running.push(server)
  return { seen, port: server.port }
}

/** POSTs CALL with exactly the header `lines` given (no Host added), over `version`. */
function post(port: number, lines: string[], version = 'HTTP/1.1'): Promise<RawResponse> {
  const body = Buffer.from(CALL)
  const head = [
    `POST /mcp ${version}`,
    'content-type: application/json',
    'accept: application/json, text/event-stream',
    `content-length: ${body.length}`,
    ...lines,
  ]
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let data = Buffer.alloc(0)
    socket.on('error', () => {})
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk])
      const parsed = parseResponse(data)
      if (parsed !== undefined) {
        socket.destroy()
        resolve(parsed)
      }
    })
    socket.on('close', () => {
      const parsed = parseResponse(data)
      if (parsed === undefined) reject(new Error('closed without an answer'))
      else resolve(parsed)
    })
    socket.write(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), body]))
  })
}

function refusedWith(response: RawResponse): unknown {
  expect(response.headers['content-type']).toBe('application/json')
  return JSON.parse(response.body).error.data
}

describe('guardHostAndOrigin at its edges', () => {
  it('refuses a request with no Host, or a Host that is not a hostname, with 403', async () => {
    const { seen, port } = await serve()
    // HTTP/1.0 may leave Host out; Node passes such a request on.
    const none = await post(port, [], 'HTTP/1.0')
    expect(none.status).toBe(403)
    expect(refusedWith(none)).toEqual({ code: 'ERR_HOST_NOT_ALLOWED' })
    const malformed = await post(port, ['host: exa mple'])
    expect(malformed.status).toBe(403)
    expect(refusedWith(malformed)).toEqual({ code: 'ERR_HOST_NOT_ALLOWED' })
    expect(seen).toEqual({ transports: 0, echo: 0 })
    // The same server serves a loopback name, whatever its case and port.
    expect((await post(port, [`host: LOCALHOST:${port}`])).status).toBe(200)
    expect((await post(port, [`host: [::1]:${port}`])).status).toBe(200)
    expect(seen.echo).toBe(2)
  })

  it('refuses an opaque, non-http or unparsable Origin on a loopback server', async () => {
    const { seen, port } = await serve()
    const host = `host: 127.0.0.1:${port}`
    for (const origin of ['null', 'ftp://127.0.0.1', 'file://localhost', 'not an origin']) {
      const refused = await post(port, [host, `origin: ${origin}`])
      expect(refused.status).toBe(403)
      expect(refusedWith(refused)).toEqual({ code: 'ERR_ORIGIN_NOT_ALLOWED' })
    }
    expect(seen).toEqual({ transports: 0, echo: 0 })
    expect((await post(port, [host, 'origin: https://127.0.0.1:8443'])).status).toBe(200)
    expect((await post(port, [host, 'origin: http://app.localhost'])).status).toBe(200)
    expect(seen.echo).toBe(2)
  })

  it('admits exactly the listed origins when allowedOrigins is given, loopback ones included', async () => {
    const { seen, port } = await serve({ allowedOrigins: ['https://app.example'] })
    const host = `host: localhost:${port}`
    for (const origin of [
      'http://localhost:5173',
      'https://app.example:444',
      'http://app.example',
    ]) {
      const refused = await post(port, [host, `origin: ${origin}`])
      expect(refused.status).toBe(403)
      expect(refusedWith(refused)).toEqual({ code: 'ERR_ORIGIN_NOT_ALLOWED' })
    }
    expect(seen.echo).toBe(0)
    expect((await post(port, [host, 'origin: https://app.example'])).status).toBe(200)
    expect(seen.echo).toBe(1)
  })

  it('admits exactly the listed hosts when allowedHosts is given on a public host', async () => {
    const { seen, port } = await serve({ host: '0.0.0.0', allowedHosts: ['mcp.example'] })
    const refused = await post(port, [`host: 127.0.0.1:${port}`])
    expect(refused.status).toBe(403)
    expect(refusedWith(refused)).toEqual({ code: 'ERR_HOST_NOT_ALLOWED' })
    // allowedHosts turns the Origin check on too: loopback origins only.
    const foreign = await post(port, ['host: mcp.example', 'origin: https://evil.example'])
    expect(refusedWith(foreign)).toEqual({ code: 'ERR_ORIGIN_NOT_ALLOWED' })
    expect(seen.echo).toBe(0)
    expect((await post(port, ['host: MCP.example:443'])).status).toBe(200)
    expect(seen.echo).toBe(1)
  })

  it('turns Host and Origin checks on for a host anywhere in 127.0.0.0/8, a two-digit second octet included', async () => {
    const { seen, port } = await serve({ host: '127.10.0.1' })
    const rebound = await post(port, ['host: evil.example'])
    expect(rebound.status).toBe(403)
    expect(refusedWith(rebound)).toEqual({ code: 'ERR_HOST_NOT_ALLOWED' })
    const foreign = await post(port, [`host: localhost:${port}`, 'origin: https://evil.example'])
    expect(refusedWith(foreign)).toEqual({ code: 'ERR_ORIGIN_NOT_ALLOWED' })
    expect(seen).toEqual({ transports: 0, echo: 0 })
    const local = await post(port, [`host: localhost:${port}`, 'origin: http://127.10.0.1:3000'])
    expect(local.status).toBe(200)
    expect(seen.echo).toBe(1)
  })

  it('checks neither Host nor Origin on a public host without allow-lists (the control)', async () => {
    const { seen, port } = await serve({ host: '0.0.0.0' })
    const served = await post(port, ['host: evil.example', 'origin: https://evil.example'])
    expect(served.status).toBe(200)
    expect(seen.echo).toBe(1)
  })
})

describe('guardProtocolVersion at its edges', () => {
  it('refuses a repeated MCP-Protocol-Version header, each copy supported, with 400', async () => {
    const { seen, port } = await serve()
    const host = `host: 127.0.0.1:${port}`
    const twice = await post(port, [
      host,
      'mcp-protocol-version: 2025-06-18',
      'mcp-protocol-version: 2025-06-18',
    ])
    expect(twice.status).toBe(400)
    expect(refusedWith(twice)).toMatchObject({ code: 'ERR_MCP_PROTOCOL_VERSION' })
    const narrowed = await serve({ supportedProtocolVersions: ['2025-11-25'] })
    const old = await post(narrowed.port, [
      `host: 127.0.0.1:${narrowed.port}`,
      'mcp-protocol-version: 2025-06-18',
    ])
    expect(old.status).toBe(400)
    expect(refusedWith(old)).toEqual({
      code: 'ERR_MCP_PROTOCOL_VERSION',
      supported: ['2025-11-25'],
    })
    expect(seen.transports + narrowed.seen.transports).toBe(0)
  })
})
