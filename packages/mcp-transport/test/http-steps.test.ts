// The Streamable HTTP steps through a real http.Server on 127.0.0.1 (port 0): a real McpServer
// on the SDK's StreamableHTTPServerTransport (one session, JSON responses), behind
// mcpHttpHandler (composed from the steps) or behind nothing (the SDK alone, the control).
// Requests are raw TCP, so the headers sent are exactly the ones written here.
import { randomUUID } from 'node:crypto'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js'
import { createInFlightBudget } from '@tollgate/http-admission'
import type { RawResponse } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { MCP_POST_HEADERS as HEADERS, initializeRequest } from '@tollgate/test-kit/mcp-initialize'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createMcpHttpAdmission,
  MCP_PROTOCOL_VERSIONS,
  mcpBodyAdmission,
  mcpHttpHandler,
  resultBudget,
} from '../src/index.js'
import { heldRequest } from './helpers/held.js'

const MARKER = 'MARKER-2f0c'
const INITIALIZE = JSON.stringify(initializeRequest(0, 't'))
const LIST = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'

let running: Running[] = []
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()))
  running = []
})

/** One session's transport, its server connected (one tool). */
async function session() {
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: true,
  })
  const server = new McpServer({ name: 'steps', version: '1.0.0' })
  server.registerTool('noop', {}, async () => ({ content: [] }))
  await server.connect(transport)
  return { transport }
}

async function send(
  port: number,
  method: string,
  headers: Record<string, string>,
  body = '',
): Promise<RawResponse> {
  const held = heldRequest(port, method, '/mcp', headers, Buffer.from(body))
  held.sendBody()
  const response = await held.response
  held.destroy()
  if (response === undefined) throw new Error('closed without an answer')
  return response
}

async function open(port: number): Promise<Record<string, string>> {
  const init = await send(port, 'POST', HEADERS, INITIALIZE)
  expect(init.status).toBe(200)
  const id = init.headers['mcp-session-id']
  expect(id).toBeDefined()
  return { ...HEADERS, 'mcp-session-id': id as string }
}

describe('guardProtocolVersion', () => {
  it('refuses an unsupported MCP-Protocol-Version on POST and DELETE with 400 ERR_MCP_PROTOCOL_VERSION, never echoing it', async () => {
    const { transport } = await session()
    const server = await listen(
      mcpHttpHandler(
        transport,
        createMcpHttpAdmission({
          body: mcpBodyAdmission({ budget: createInFlightBudget(1 << 20) }),
        }),
      ),
    )
    running.push(server)
    const named = await open(server.port)
    for (const method of ['POST', 'DELETE']) {
      const res = await send(
        server.port,
        method,
        { ...named, 'mcp-protocol-version': MARKER },
        method === 'POST' ? LIST : '',
      )
      expect(res.status).toBe(400)
      expect(res.headers.connection).toBe('close')
      expect(res.body).not.toContain(MARKER)
      const body = JSON.parse(res.body)
      // The POST is refused after its body, so it carries the request's id; DELETE has none.
      const id = method === 'POST' ? 1 : null
      expect(body).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32000 } })
      expect(body.error.data).toEqual({
        code: 'ERR_MCP_PROTOCOL_VERSION',
        supported: [...MCP_PROTOCOL_VERSIONS],
      })
    }
    // The refused DELETE did not reach the SDK: the session still serves.
    const served = await send(
      server.port,
      'POST',
      { ...named, 'mcp-protocol-version': '2025-06-18' },
      LIST,
    )
    expect(served.status).toBe(200)
    expect(JSON.parse(served.body).result.tools).toHaveLength(1)
  })

  it('echoes the sent value in the SDK alone, on POST and DELETE (the control)', async () => {
    const { transport } = await session()
    const server = await listen((req, res) => {
      transport.handleRequest(req, res).catch(() => res.destroy())
    })
    running.push(server)
    const named = await open(server.port)
    for (const method of ['POST', 'DELETE']) {
      const res = await send(
        server.port,
        method,
        { ...named, 'mcp-protocol-version': MARKER },
        method === 'POST' ? LIST : '',
      )
      expect(res.status).toBe(400)
      expect(res.body).toContain(MARKER)
    }
  })

  it('passes a request without the header or with a supported version', async () => {
    const { transport } = await session()
    const server = await listen(
      mcpHttpHandler(
        transport,
        createMcpHttpAdmission({
          body: mcpBodyAdmission({ budget: createInFlightBudget(1 << 20) }),
        }),
      ),
    )
    running.push(server)
    const named = await open(server.port)
    expect((await send(server.port, 'POST', named, LIST)).status).toBe(200)
    for (const version of MCP_PROTOCOL_VERSIONS) {
      const res = await send(
        server.port,
        'POST',
        { ...named, 'mcp-protocol-version': version },
        LIST,
      )
      expect(res.status).toBe(200)
    }
  })

  it('lists the versions the SDK supports', () => {
    expect([...MCP_PROTOCOL_VERSIONS]).toEqual([...SUPPORTED_PROTOCOL_VERSIONS])
    expect(createMcpHttpAdmission().policy.supportedProtocolVersions).toEqual(MCP_PROTOCOL_VERSIONS)
    expect(
      createMcpHttpAdmission({ supportedProtocolVersions: ['2025-06-18'] }).policy
        .supportedProtocolVersions,
    ).toEqual(['2025-06-18'])
    expect(() => createMcpHttpAdmission({ supportedProtocolVersions: [''] })).toThrow(TypeError)
  })
})

describe('mcpHttpHandler steps', () => {
  it('runs Host/Origin, the body, then the deferred protocol-version refusal, before asking for a transport', async () => {
    const { transport } = await session()
    let built = 0
    const handler = mcpHttpHandler(
      () => {
        built++
        return transport
      },
      createMcpHttpAdmission({
        body: mcpBodyAdmission({ budget: createInFlightBudget(1 << 20), maxBytes: 1024 }),
      }),
    )
    const server = await listen(handler)
    running.push(server)
    const host = await send(
      server.port,
      'POST',
      { ...HEADERS, host: 'evil.example', 'mcp-protocol-version': MARKER },
      INITIALIZE,
    )
    expect(host.status).toBe(403)
    expect(JSON.parse(host.body).error.data.code).toBe('ERR_HOST_NOT_ALLOWED')
    // An unsupported version is judged once the bounded body is parsed: an oversized body is
    // refused by the body step first, a well-formed one by the version.
    const oversized = await send(
      server.port,
      'POST',
      { ...HEADERS, 'mcp-protocol-version': MARKER },
      'x'.repeat(2048),
    )
    expect(oversized.status).toBe(413)
    const version = await send(
      server.port,
      'POST',
      { ...HEADERS, 'mcp-protocol-version': MARKER },
      INITIALIZE,
    )
    expect(version.status).toBe(400)
    expect(JSON.parse(version.body)).toMatchObject({
      id: 0,
      error: { data: { code: 'ERR_MCP_PROTOCOL_VERSION' } },
    })
    const large = await send(server.port, 'POST', HEADERS, 'x'.repeat(2048))
    expect(large.status).toBe(413)
    expect(built).toBe(0)
    expect((await send(server.port, 'POST', HEADERS, INITIALIZE)).status).toBe(200)
    expect(built).toBe(1)
  })

  it('gives a server calling admitMcpBody the refusal it answered, code and limit', async () => {
    const http = createMcpHttpAdmission({
      body: mcpBodyAdmission({ budget: createInFlightBudget(1 << 20), maxBytes: 1024 }),
    })
    const admitted: unknown[] = []
    const server = await listen(async (req, res) => {
      const body = await http.admitMcpBody(req, res)
      admitted.push(body.ok ? body.value : { code: body.error.code, limit: body.error.limit })
      if (body.ok) res.writeHead(202).end()
    })
    running.push(server)
    const large = await send(server.port, 'POST', HEADERS, 'x'.repeat(2048))
    expect(large.status).toBe(413)
    const code = JSON.parse(large.body).error.data.code
    expect(code).toMatch(/^ERR_/)
    expect((await send(server.port, 'POST', HEADERS, LIST)).status).toBe(202)
    expect(admitted).toEqual([{ code, limit: 1024 }, JSON.parse(LIST)])
  })

  it('is a frozen control that hands over only the SDK transport itself, never a decorator', async () => {
    const mcp = createMcpHttpAdmission()
    expect(Object.isFrozen(mcp)).toBe(true)
    const req = {} as never
    const res = {} as never
    const { transport } = await session()
    const decorated = resultBudget(transport)
    await expect(mcp.handleMcpRequest(decorated as never, req, res, undefined)).rejects.toThrow(
      TypeError,
    )
    await expect(mcp.handle(req, res, decorated as never)).rejects.toThrow(TypeError)
    expect(() => mcpHttpHandler(decorated as never)).toThrow(TypeError)
    expect(() => mcpHttpHandler(transport, { host: '127.0.0.1' } as never)).toThrow(TypeError)
  })
})
