// Through a real http.Server on 127.0.0.1 (port 0): an SDK McpServer behind the SDK's
// StreamableHTTPServerTransport (stateless, JSON responses, one per request), with and without
// mcpHttpHandler in front. Bodies are written raw over TCP.
import { createServer } from 'node:http'
import { createInFlightBudget } from '@tollgate/http-admission'
import { type RawResponse, rawPost } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { MCP_POST_HEADERS as HEADERS } from '@tollgate/test-kit/mcp-initialize'
import express from 'express'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createMcpHttpAdmission,
  MCP_HTTP_BODY_BYTES,
  type McpBodyOptions,
  type McpHttpOptions,
  mcpBodyAdmission,
  mcpExpressHandler,
  mcpHttpHandler,
} from '../src/index.js'
import { echoTarget } from './helpers/echo-target.js'
// The SDK line of this run (1.32 or 2.x, see helpers/sdk-line.ts): the same bodies on both.
import { createMcpExpressApp } from './helpers/sdk-line.js'

const MiB = 1024 * 1024
const MARKER = 'MARKER_5c1e'
// A roomy in-flight budget per test, so the process-wide default is not what is measured.
const budget = () => createInFlightBudget(256 * MiB)

let running: Running[] = []
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()))
  running = []
})

async function serve(options: McpHttpOptions = {}, body: McpBodyOptions = {}) {
  const { seen, target } = echoTarget()
  const handler = mcpHttpHandler(
    target,
    createMcpHttpAdmission({
      body: mcpBodyAdmission({ budget: budget(), ...body }),
      ...options,
    }),
  )
  const server = await listen(
    (req, res) => {
      handler(req, res).catch(() => res.destroy())
    },
    { path: '/mcp' },
  )
  running.push(server)
  return { seen, server }
}

const HEAD =
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"'
const TAIL = '"}}}'

/** A tools/call body of exactly `bytes` bytes. */
function callOf(bytes: number, id = 1): Buffer {
  const head = HEAD.replace('"id":1', `"id":${id}`)
  const fill = bytes - head.length - TAIL.length
  return Buffer.from(`${head}${MARKER}${'x'.repeat(fill - MARKER.length)}${TAIL}`)
}

function jsonRpcError(response: RawResponse) {
  expect(response.headers['content-type']).toBe('application/json')
  expect(response.body).not.toContain(MARKER)
  const body = JSON.parse(response.body)
  expect(body.jsonrpc).toBe('2.0')
  expect(body.id).toBeNull()
  return body.error
}

describe('mcpHttpHandler', () => {
  it('answers a 4 MiB POST body', async () => {
    const { seen, server } = await serve()
    const response = await rawPost(server.port, HEADERS, callOf(4 * MiB))
    expect(response.status).toBe(200)
    expect(JSON.parse(response.body).result.content[0].text).toBe(
      `len:${4 * MiB - HEAD.length - TAIL.length}`,
    )
    expect(seen.echo).toBe(1)
  })

  it('refuses a 4 MiB + 1 POST body with 413 and a JSON-RPC error body; nothing runs', async () => {
    const { seen, server } = await serve()
    const response = await rawPost(server.port, HEADERS, callOf(4 * MiB + 1))
    expect(response.status).toBe(413)
    expect(response.headers.connection).toBe('close')
    expect(jsonRpcError(response)).toMatchObject({
      code: -32000,
      data: { code: 'ERR_BODY_TOO_LARGE', limit: 4 * MiB },
    })
    expect(seen).toEqual({ transports: 0, echo: 0 })
  })

  it('counts the bytes actually received when no Content-Length is sent', async () => {
    const { seen, server } = await serve()
    const ok = await rawPost(server.port, HEADERS, callOf(4 * MiB), { chunked: true })
    expect(ok.status).toBe(200)
    const refused = await rawPost(server.port, HEADERS, callOf(4 * MiB + 1), { chunked: true })
    expect(refused.status).toBe(413)
    expect(jsonRpcError(refused).data).toEqual({ code: 'ERR_BODY_TOO_LARGE', limit: 4 * MiB })
    expect(seen.echo).toBe(1)
  })

  it('keeps a configured 1 MiB cap: 1 MiB answered, 1 MiB + 1 refused', async () => {
    const { seen, server } = await serve({}, { maxBytes: MiB })
    expect((await rawPost(server.port, HEADERS, callOf(MiB))).status).toBe(200)
    const refused = await rawPost(server.port, HEADERS, callOf(MiB + 1))
    expect(refused.status).toBe(413)
    expect(jsonRpcError(refused).data).toEqual({ code: 'ERR_BODY_TOO_LARGE', limit: MiB })
    expect(seen.echo).toBe(1)
  })

  it('refuses a configured 65 MiB cap at construction, and admits 64 MiB', () => {
    const { target } = echoTarget()
    expect(() =>
      mcpHttpHandler(
        target,
        createMcpHttpAdmission({ body: mcpBodyAdmission({ maxBytes: 65 * MiB }) }),
      ),
    ).toThrow(TypeError)
    expect(() =>
      mcpHttpHandler(
        target,
        createMcpHttpAdmission({ body: mcpBodyAdmission({ maxBytes: 64 * MiB + 1 }) }),
      ),
    ).toThrow(TypeError)
    expect(() =>
      mcpHttpHandler(
        target,
        createMcpHttpAdmission({ body: mcpBodyAdmission({ maxBytes: 64 * MiB }) }),
      ),
    ).not.toThrow()
  })

  it('counts a batch as one body', async () => {
    const { seen, server } = await serve()
    const half = callOf(2.5 * MiB).toString()
    const alone = await rawPost(server.port, HEADERS, Buffer.from(half))
    expect(alone.status).toBe(200)
    const batch = Buffer.from(`[${half},${half.replace('"id":1', '"id":2')}]`)
    const refused = await rawPost(server.port, HEADERS, batch)
    expect(refused.status).toBe(413)
    expect(jsonRpcError(refused).data.code).toBe('ERR_BODY_TOO_LARGE')
    expect(seen.echo).toBe(1)
    const small = Buffer.from(`[${callOf(200).toString()},${callOf(200, 2).toString()}]`)
    const served = await rawPost(server.port, HEADERS, small)
    expect(served.status).toBe(200)
    expect(JSON.parse(served.body)).toHaveLength(2)
    expect(seen.echo).toBe(3)
  })

  it('refuses a depth-65 body (envelope included) with 422 and -32700; depth 64 is served', async () => {
    const { seen, server } = await serve()
    const nested = (levels: number) =>
      Buffer.from(
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","nest":${'['.repeat(levels)}${']'.repeat(levels)}}}}`,
      )
    const refused = await rawPost(server.port, HEADERS, nested(62))
    expect(refused.status).toBe(422)
    expect(jsonRpcError(refused)).toMatchObject({
      code: -32700,
      data: { code: 'ERR_JSON_TOO_DEEP', limit: 64 },
    })
    expect(seen).toEqual({ transports: 0, echo: 0 })
    expect((await rawPost(server.port, HEADERS, nested(61))).status).toBe(200)
    expect(seen.echo).toBe(1)
  })

  it('refuses invalid UTF-8 with 422 and -32700, the tool never running', async () => {
    const { seen, server } = await serve()
    const body = Buffer.concat([
      Buffer.from(`${HEAD}${MARKER}`),
      Buffer.from([0xc0, 0xaf]),
      Buffer.from(TAIL),
    ])
    const refused = await rawPost(server.port, HEADERS, body)
    expect(refused.status).toBe(422)
    expect(jsonRpcError(refused)).toMatchObject({
      code: -32700,
      data: { code: 'ERR_JSON_INVALID_UTF8' },
    })
    expect(seen).toEqual({ transports: 0, echo: 0 })
  })

  it('refuses a top-level scalar with 422 and -32600 Invalid Request, the tool never running', async () => {
    const { seen, server } = await serve()
    const refused = await rawPost(server.port, HEADERS, Buffer.from('1'))
    expect(refused.status).toBe(422)
    expect(jsonRpcError(refused)).toMatchObject({
      code: -32600,
      message: 'Invalid Request',
      data: { code: 'ERR_JSON_NOT_OBJECT_OR_ARRAY' },
    })
    expect(seen).toEqual({ transports: 0, echo: 0 })
  })

  it('refuses a foreign Host with 403 before reading the body', async () => {
    const { seen, server } = await serve()
    const response = await rawPost(
      server.port,
      { ...HEADERS, host: `evil.example:${server.port}` },
      callOf(200),
    )
    expect(response.status).toBe(403)
    expect(jsonRpcError(response).data).toEqual({ code: 'ERR_HOST_NOT_ALLOWED' })
    expect(seen).toEqual({ transports: 0, echo: 0 })
  })

  it('refuses a foreign Origin with 403 and admits a loopback Origin', async () => {
    const { seen, server } = await serve()
    const evil = await rawPost(
      server.port,
      { ...HEADERS, origin: 'http://evil.example' },
      callOf(200),
    )
    expect(evil.status).toBe(403)
    expect(jsonRpcError(evil).data).toEqual({ code: 'ERR_ORIGIN_NOT_ALLOWED' })
    expect(seen.echo).toBe(0)
    const local = await rawPost(
      server.port,
      { ...HEADERS, origin: 'http://localhost:5173' },
      callOf(200),
    )
    expect(local.status).toBe(200)
    expect(seen.echo).toBe(1)
  })

  it('answers 503 with Retry-After and a JSON-RPC body when the in-flight budget is spent', async () => {
    const { seen, server } = await serve(
      {},
      // The anonymous pool's share off: the budget itself is what is spent here.
      { budget: createInFlightBudget(1024), retryAfterSeconds: 7, principalShare: false },
    )
    const refused = await rawPost(server.port, HEADERS, callOf(2048))
    expect(refused.status).toBe(503)
    expect(refused.headers['retry-after']).toBe('7')
    expect(jsonRpcError(refused).data).toEqual({ code: 'ERR_ADMISSION_BUSY', limit: 1024 })
    expect(seen).toEqual({ transports: 0, echo: 0 })
  })

  it('passes GET and DELETE through to the SDK transport', async () => {
    const { seen, server } = await serve()
    const get = await fetch(server.url, {
      headers: { accept: 'application/json' },
    })
    // The SDK's own answer: a GET must accept text/event-stream.
    expect(get.status).toBe(406)
    expect(((await get.json()) as { error: { code: number } }).error.code).toBe(-32000)
    const del = await fetch(server.url, { method: 'DELETE' })
    expect(del.status).toBe(200)
    expect(seen.transports).toBe(2)
  })
})

describe('mcpHttpHandler controls removed (the SDK alone)', () => {
  it('serves a request naming a foreign Host when nothing validates it', async () => {
    const { seen, target } = echoTarget()
    const server = await listen((req, res) => {
      target().then((t) => t.handleRequest(req, res))
    })
    running.push(server)
    const response = await rawPost(
      server.port,
      { ...HEADERS, host: `evil.example:${server.port}` },
      callOf(200),
    )
    expect(response.status).toBe(200)
    expect(seen.echo).toBe(1)
  })

  it('serves a depth-65 body to the tool when nothing preflights it', async () => {
    const { seen, target } = echoTarget()
    const server = await listen((req, res) => {
      target().then((t) => t.handleRequest(req, res))
    })
    running.push(server)
    const body = Buffer.from(
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","nest":${'['.repeat(62)}${']'.repeat(62)}}}}`,
    )
    const response = await rawPost(server.port, HEADERS, body)
    expect(response.status).toBe(200)
    expect(seen.echo).toBe(1)
  })

  it('answers a 150 kB body from createMcpExpressApp with an HTML 413 page; the tollgate handler serves it', async () => {
    const { target } = echoTarget()
    const sdkApp = createMcpExpressApp()
    sdkApp.post('/mcp', async (req, res) => (await target()).handleRequest(req, res, req.body))
    const sdk = await listen(createServer(sdkApp))
    running.push(sdk)
    const plain = await rawPost(sdk.port, HEADERS, callOf(150_000))
    expect(plain.status).toBe(413)
    expect(plain.headers['content-type']).toContain('text/html')

    const app = express()
    app.all(
      '/mcp',
      mcpExpressHandler(
        target,
        createMcpHttpAdmission({ body: mcpBodyAdmission({ budget: budget() }) }),
      ),
    )
    const ours = await listen(createServer(app))
    running.push(ours)
    const served = await rawPost(ours.port, HEADERS, callOf(150_000))
    expect(served.status).toBe(200)
    const refused = await rawPost(ours.port, HEADERS, callOf(4 * MiB + 1))
    expect(refused.status).toBe(413)
    expect(jsonRpcError(refused).data.code).toBe('ERR_BODY_TOO_LARGE')
  })
})

describe('createMcpHttpAdmission', () => {
  it('defaults to 4 MiB and loopback Host/Origin validation; none for 0.0.0.0', () => {
    const d = createMcpHttpAdmission().policy
    expect(d.body.policy.maxBytes).toBe(MCP_HTTP_BODY_BYTES)
    expect(MCP_HTTP_BODY_BYTES).toBe(4 * MiB)
    expect(d.allowedHosts).toEqual(['localhost', '127.0.0.1', '[::1]'])
    expect(d.allowedOrigins).toBe('loopback')
    const open = createMcpHttpAdmission({ host: '0.0.0.0' }).policy
    expect(open.allowedHosts).toBeUndefined()
    expect(open.allowedOrigins).toBeUndefined()
    const named = createMcpHttpAdmission({
      host: '0.0.0.0',
      allowedHosts: ['mcp.example:443'],
    }).policy
    expect(named.allowedHosts).toEqual(['mcp.example'])
    expect(() => createMcpHttpAdmission({ allowedOrigins: ['not a url'] })).toThrow(TypeError)
    expect(() => mcpBodyAdmission({ maxBytes: 0 })).toThrow(TypeError)
    expect(() => mcpBodyAdmission({ types: [] } as never)).toThrow(TypeError)
  })
})
