// Both MCP eras on one route through mcpHttpHandler, on a real http.Server on 127.0.0.1: a
// user's SDK 2.4 `createMcpHandler` serving a 2026-07-28 client and a 2025 client; the era's
// protocol versions; a JSON array refused at its first byte on the 2026-07-28 path; GET and
// DELETE there answered 405. Each refusal with its step left out reaches the server.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { createInFlightBudget } from '@tollgate/http-admission'
import { head, RawClient } from '@tollgate/test-kit/http-client'
import type { Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createMcpHttpAdmission,
  MCP_MODERN_PROTOCOL_VERSIONS,
  MCP_PROTOCOL_VERSIONS,
  MODERN_BATCH_ERROR,
  mcpBodyAdmission,
  mcpHttpHandler,
  mcpProtocolEras,
  UNRECOGNIZED_PROTOCOL_VERSION,
} from '../src/index.js'
import { modernCall, modernHeaders, modernTarget } from './helpers/modern-target.js'
import { errorOf, send, sendEndless, serveHandler } from './helpers/modern-wire.js'
import { recordingTarget, stepsWithout } from './helpers/steps-without.js'

const UNREAD = 16 * 1024 * 1024
const options = () => ({
  body: mcpBodyAdmission({ budget: createInFlightBudget(64 * 1024 * 1024) }),
})
const LEGACY_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
}

let running: Running[] = []
let closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.map((c) => c()))
  await Promise.all(running.map((r) => r.close()))
  running = []
  closers = []
})

/** A `server/discover` request as the conformance suite's stateless probe sends it. */
function discover(id: number, version: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': version,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  })
}

async function sdkBehindTollgate() {
  const fixture = modernTarget()
  closers.push(fixture.close)
  const server = await serveHandler(
    mcpHttpHandler(fixture.target, createMcpHttpAdmission(options())),
  )
  running.push(server)
  return { ...fixture, server }
}

describe('mcpHttpHandler with an SDK 2.4 createMcpHandler', () => {
  it('serves a 2026-07-28 client and a 2025 client of @modelcontextprotocol/client on one route', async () => {
    const { seen, server } = await sdkBehindTollgate()
    const url = new URL(`http://127.0.0.1:${server.port}/mcp`)
    const modern = new Client(
      { name: 'modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    const legacy = new Client({ name: 'legacy', version: '1.0.0' })
    await modern.connect(new StreamableHTTPClientTransport(url))
    await legacy.connect(new StreamableHTTPClientTransport(url))
    closers.push(
      () => modern.close(),
      () => legacy.close(),
    )
    expect(modern.getNegotiatedProtocolVersion?.() ?? '2026-07-28').toBe('2026-07-28')
    const a = await modern.callTool({ name: 'echo', arguments: { text: 'modern' } })
    const b = await legacy.callTool({ name: 'echo', arguments: { text: 'legacy!' } })
    const c = await modern.callTool({ name: 'route', arguments: { region: 'eu', count: 2 } })
    expect(a.content).toEqual([{ type: 'text', text: 'len:6' }])
    expect(b.content).toEqual([{ type: 'text', text: 'len:7' }])
    expect(c.content).toEqual([{ type: 'text', text: 'route:{"region":"eu","count":2}' }])
    expect(seen.echo).toBe(2)
    expect(seen.route).toBe(1)
  })

  it('serves the raw 2025 handshake and the raw 2026-07-28 call side by side', async () => {
    const { seen, server } = await sdkBehindTollgate()
    const init = await send(
      server.port,
      'POST',
      LEGACY_HEADERS,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    )
    expect(init.status).toBe(200)
    // The legacy fallback answers as an SSE stream: one `data:` line holds the response.
    const data = init.body.split('\n').find((line) => line.startsWith('data: '))
    expect(JSON.parse(data?.slice(6) ?? '').result.protocolVersion).toBe('2025-11-25')
    const call = await send(
      server.port,
      'POST',
      modernHeaders('echo'),
      modernCall('echo', { text: 'abc' }),
    )
    expect(call.status).toBe(200)
    expect(JSON.parse(call.body).result.content[0].text).toBe('len:3')
    expect(seen.echo).toBe(1)
  })
})

describe('guardProtocolVersion on both eras', () => {
  it('refuses a modern version the route does not serve with 400 -32022 { supported, requested }, echoing the id, once the body is parsed', async () => {
    const { seen, server } = await sdkBehindTollgate()
    const answer = await send(
      server.port,
      'POST',
      { ...modernHeaders('echo'), 'mcp-protocol-version': '2027-01-01' },
      modernCall('echo', { text: 'hi' }, 7, '2027-01-01'),
    )
    expect(answer.status).toBe(400)
    expect(errorOf(answer, 7)).toEqual({
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported: ['2026-07-28'], requested: '2027-01-01' },
    })
    expect(seen.servers).toBe(0)
  })

  it('reads the body of an unsupported version no further than the body cap: an endless one is cut with 413', async () => {
    const { seen, server } = await sdkBehindTollgate()
    const answer = await sendEndless(
      server.port,
      { ...modernHeaders('echo'), 'mcp-protocol-version': 'v999.0.0' },
      '{',
    )
    expect(answer.answer.status).toBe(413)
    expect(errorOf(answer.answer).data).toMatchObject({ code: 'ERR_BODY_TOO_LARGE' })
    expect(answer.closedByServer).toBe(true)
    expect(answer.after).toBeLessThan(UNREAD)
    expect(seen.servers).toBe(0)
  })

  it('answers the unknown-version probe of the conformance suite as the spec asks: -32022 with its id and the version-shaped value requested', async () => {
    const { seen, server } = await sdkBehindTollgate()
    const answer = await send(
      server.port,
      'POST',
      {
        ...modernHeaders('echo', { 'mcp-method': 'server/discover' }),
        'mcp-protocol-version': 'v999.0.0',
      },
      discover(301, 'v999.0.0'),
    )
    expect(answer.status).toBe(400)
    expect(errorOf(answer, 301)).toEqual({
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported: [...MCP_MODERN_PROTOCOL_VERSIONS], requested: 'v999.0.0' },
    })
    expect(seen.servers).toBe(0)
  })

  it('answers a version without the shape of one with the fixed placeholder, never the sent bytes', async () => {
    const { seen, server } = await sdkBehindTollgate()
    const sent = ['v1.0.0<b>MARKER</b>', `v1.0.0-${'MARKER'.repeat(6)}`, '1.2.3.4.5MARKER']
    for (const version of sent) {
      const answer = await send(
        server.port,
        'POST',
        {
          ...modernHeaders('echo', { 'mcp-method': 'server/discover' }),
          'mcp-protocol-version': version,
        },
        discover(9, version),
      )
      expect(answer.status).toBe(400)
      expect(answer.body).not.toContain('MARKER')
      expect(errorOf(answer, 9)).toMatchObject({
        code: -32022,
        data: { requested: UNRECOGNIZED_PROTOCOL_VERSION },
      })
    }
    expect(seen.servers).toBe(0)
  })

  it('echoes the sent bytes in the SDK alone (the control of the echo rule)', async () => {
    const { target, close } = modernTarget()
    closers.push(close)
    const bare = await serveHandler(async (req, res) => target.handleRequest(req, res))
    running.push(bare)
    const version = 'v1.0.0<b>MARKER</b>'
    const answer = await send(
      bare.port,
      'POST',
      {
        ...modernHeaders('echo', { 'mcp-method': 'server/discover' }),
        'mcp-protocol-version': version,
      },
      discover(9, version),
    )
    expect(answer.status).toBe(400)
    expect(answer.body).toContain('MARKER')
  })

  it('refuses a header and _meta naming two unsupported versions with -32020 before judging either', async () => {
    const { seen, server } = await sdkBehindTollgate()
    const answer = await send(
      server.port,
      'POST',
      {
        ...modernHeaders('echo', { 'mcp-method': 'server/discover' }),
        'mcp-protocol-version': 'v999.0.0',
      },
      discover(4, 'v998.0.0'),
    )
    expect(answer.status).toBe(400)
    expect(errorOf(answer, 4)).toMatchObject({
      code: -32020,
      data: { header: 'MCP-Protocol-Version', kind: 'mismatch' },
    })
    expect(seen.servers).toBe(0)
  })

  it('lets an unsupported version reach the server when the protocol-version step is left out (the control)', async () => {
    const legacyList = '{"jsonrpc":"2.0","id":5,"method":"tools/list"}'
    const headers = { ...LEGACY_HEADERS, 'mcp-protocol-version': 'v999.0.0' }
    const guarded = recordingTarget()
    const withStep = await serveHandler(
      mcpHttpHandler(guarded.target, createMcpHttpAdmission(options())),
    )
    const bare = recordingTarget()
    const withoutStep = await serveHandler(stepsWithout(['version'], bare.target, options()))
    running.push(withStep, withoutStep)
    const refused = await send(withStep.port, 'POST', headers, legacyList)
    expect(refused.status).toBe(400)
    expect(errorOf(refused, 5)).toMatchObject({ data: { code: 'ERR_MCP_PROTOCOL_VERSION' } })
    expect(guarded.reached).toHaveLength(0)
    const through = await send(withoutStep.port, 'POST', headers, legacyList)
    expect(through.status).toBe(200)
    expect(bare.reached).toHaveLength(1)
  })

  it('admits 2026-07-28 with its defaults when a host calls the steps itself, and leaves an unsupported POST to the agreement step', async () => {
    const http = createMcpHttpAdmission()
    const server = await serveHandler(async (req, res) => {
      if (!http.guardProtocolVersion(req, res)) return
      if (req.method === 'POST') {
        const body = await http.admitMcpBody(req, res)
        if (!body.ok) return
        if (!http.guardHeaderAgreement(req, res, http.readMcpHead(req), body.value)) return
      }
      res.writeHead(200).end('passed')
    })
    running.push(server)
    const modern = await send(server.port, 'POST', modernHeaders('echo'), '{}')
    expect([modern.status, modern.body]).toEqual([200, 'passed'])
    const legacy = { ...LEGACY_HEADERS, 'mcp-protocol-version': '2025-11-25' }
    expect((await send(server.port, 'POST', legacy, '{}')).status).toBe(200)
    const unknown = { ...LEGACY_HEADERS, 'mcp-protocol-version': '2024-01-01' }
    const post = await send(
      server.port,
      'POST',
      unknown,
      '{"jsonrpc":"2.0","id":3,"method":"ping"}',
    )
    expect(post.status).toBe(400)
    expect(errorOf(post, 3)).toMatchObject({ data: { code: 'ERR_MCP_PROTOCOL_VERSION' } })
    const remove = await send(server.port, 'DELETE', unknown)
    expect(remove.status).toBe(400)
    expect(errorOf(remove)).toMatchObject({ data: { code: 'ERR_MCP_PROTOCOL_VERSION' } })
  })

  it('lists the modern versions the SDK 2.4 line serves', async () => {
    // The SDK's own -32022 names what it serves: the copy in this package must be the same.
    const { target, close } = modernTarget()
    closers.push(close)
    const bare = await serveHandler(async (req, res) => target.handleRequest(req, res))
    running.push(bare)
    const headers = { ...modernHeaders('echo'), 'mcp-protocol-version': '2099-01-01' }
    const answer = await send(bare.port, 'POST', headers, modernCall('echo', {}, 1, '2099-01-01'))
    expect(JSON.parse(answer.body).error.data.supported).toEqual([...MCP_MODERN_PROTOCOL_VERSIONS])
  })

  it('refuses a modern version like any unknown one when the modern era is off, so a client falls back', async () => {
    const { reached, target } = recordingTarget()
    const eras = mcpProtocolEras({ modernVersions: [] })
    const server = await serveHandler(
      mcpHttpHandler(target, createMcpHttpAdmission({ ...options(), eras })),
    )
    running.push(server)
    const answer = await send(
      server.port,
      'POST',
      modernHeaders('echo'),
      modernCall('echo', { text: 'hi' }),
    )
    expect(answer.status).toBe(400)
    expect(errorOf(answer, 1)).toMatchObject({
      code: -32000,
      data: { code: 'ERR_MCP_PROTOCOL_VERSION', supported: [...MCP_PROTOCOL_VERSIONS] },
    })
    expect(reached).toHaveLength(0)
  })

  it('fails at construction on a modern version list of something else', () => {
    expect(() => mcpProtocolEras({ modernVersions: ['2025-11-25'] })).toThrow(TypeError)
    expect(() => mcpProtocolEras({ modernVersions: ['latest'] })).toThrow(TypeError)
    expect(() => mcpProtocolEras({ other: 1 } as never)).toThrow(TypeError)
    expect(mcpProtocolEras().modernVersions).toEqual(['2026-07-28'])
    expect(() => createMcpHttpAdmission({ eras: { modernVersions: [] } as never })).toThrow(
      new TypeError('eras must be a control built by mcpProtocolEras()'),
    )
    expect(createMcpHttpAdmission().policy.supportedProtocolVersions).toEqual(MCP_PROTOCOL_VERSIONS)
  })
})

describe('guardModernFirstByte', () => {
  it('refuses a JSON array on the 2026-07-28 path at its first byte, the rest unread', async () => {
    const { reached, target } = recordingTarget()
    const server = await serveHandler(mcpHttpHandler(target, createMcpHttpAdmission(options())))
    running.push(server)
    const { answer, after, closedByServer } = await sendEndless(
      server.port,
      modernHeaders('echo'),
      ' \r\n[',
    )
    expect(answer.status).toBe(400)
    expect(errorOf(answer)).toEqual(MODERN_BATCH_ERROR)
    expect(closedByServer).toBe(true)
    expect(after).toBeLessThan(UNREAD)
    // An array sent whole is refused the same way; one message in an object is served.
    const whole = `[${modernCall('echo', { text: 'hi' })}]`
    expect((await send(server.port, 'POST', modernHeaders('echo'), whole)).status).toBe(400)
    const one = await send(server.port, 'POST', modernHeaders('echo'), modernCall('echo', {}))
    expect(one.status).toBe(200)
    expect(reached).toHaveLength(1)
  })

  it('waits for a first byte no longer than the body idle deadline: a silent sender gets 408', async () => {
    const { reached, target } = recordingTarget()
    const quick = {
      body: mcpBodyAdmission({
        budget: createInFlightBudget(1024 * 1024),
        idleTimeoutMs: 300,
        timeoutMs: 2000,
      }),
    }
    const server = await serveHandler(mcpHttpHandler(target, createMcpHttpAdmission(quick)))
    running.push(server)
    const client = new RawClient(server.port)
    const lines = ['POST /mcp HTTP/1.1', `host: 127.0.0.1:${server.port}`, 'content-length: 64']
    for (const [name, value] of Object.entries(modernHeaders('echo')))
      lines.push(`${name}: ${value}`)
    await client.write(head(lines))
    const answer = await client.response()
    client.destroy()
    expect(answer.status).toBe(408)
    expect(reached).toHaveLength(0)
  })

  it('keeps 2025 batches on the 2025 path', async () => {
    const { reached, target } = recordingTarget()
    const server = await serveHandler(mcpHttpHandler(target, createMcpHttpAdmission(options())))
    running.push(server)
    const batch = JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }])
    expect((await send(server.port, 'POST', LEGACY_HEADERS, batch)).status).toBe(200)
    expect(reached).toHaveLength(1)
  })

  it('lets an array reach the server when the first-byte and agreement steps are left out (the control)', async () => {
    const { reached, target } = recordingTarget()
    const server = await serveHandler(stepsWithout(['first-byte', 'agreement'], target, options()))
    running.push(server)
    const whole = `[${modernCall('echo', { text: 'hi' })}]`
    expect((await send(server.port, 'POST', modernHeaders('echo'), whole)).status).toBe(200)
    expect(Array.isArray(reached[0]?.body)).toBe(true)
  })
})

describe('guardModernHttpMethod', () => {
  it('answers GET and DELETE on the 2026-07-28 path with 405 and Allow: POST; nothing runs', async () => {
    const { reached, target } = recordingTarget()
    const server = await serveHandler(mcpHttpHandler(target, createMcpHttpAdmission(options())))
    running.push(server)
    for (const method of ['GET', 'DELETE']) {
      const answer = await send(server.port, method, {
        accept: 'text/event-stream',
        'mcp-protocol-version': '2026-07-28',
      })
      expect(answer.status, method).toBe(405)
      expect(answer.headers.allow, method).toBe('POST')
      expect(errorOf(answer).data, method).toEqual({ code: 'ERR_MCP_METHOD_NOT_ALLOWED' })
    }
    expect(reached).toHaveLength(0)
    // The 2025 path keeps its GET stream and DELETE: they reach the server as before.
    await send(server.port, 'GET', { accept: 'text/event-stream' })
    await send(server.port, 'DELETE', { 'mcp-protocol-version': '2025-11-25' })
    expect(reached.map((r) => r.method)).toEqual(['GET', 'DELETE'])
  })

  it('lets GET and DELETE reach the server when the step is left out (the control)', async () => {
    const { reached, target } = recordingTarget()
    const server = await serveHandler(stepsWithout(['method'], target, options()))
    running.push(server)
    for (const method of ['GET', 'DELETE']) {
      await send(server.port, method, { 'mcp-protocol-version': '2026-07-28' })
    }
    expect(reached.map((r) => r.method)).toEqual(['GET', 'DELETE'])
  })
})
