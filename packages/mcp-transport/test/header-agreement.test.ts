// Header/body agreement on the 2026-07-28 path, through a real http.Server on 127.0.0.1 with
// raw requests: every kind of mismatch is 400 -32020 naming the header, never a sent value, and
// nothing reaches the server; with the agreement step left out, each one reaches it.
import { createInFlightBudget } from '@tollgate/http-admission'
import type { Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createMcpHttpAdmission,
  HEADER_MISMATCH_CODE,
  type McpHeadAuditEvent,
  mcpBodyAdmission,
  mcpHttpHandler,
  mcpRouteHead,
} from '../src/index.js'
import {
  envelope,
  MODERN_SCHEMAS,
  modernCall,
  modernHeaders,
  modernTarget,
} from './helpers/modern-target.js'
import { errorOf, send, serveHandler } from './helpers/modern-wire.js'
import { recordingTarget, stepsWithout } from './helpers/steps-without.js'

const MARKER = 'MARKER_7f3a'
const options = () => ({
  body: mcpBodyAdmission({ budget: createInFlightBudget(64 * 1024 * 1024) }),
})
const b64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`

let running: Running[] = []
let closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()))
  await Promise.all(closers.map((c) => c()))
  running = []
  closers = []
})

function routeOf(audit?: (event: McpHeadAuditEvent) => void) {
  return mcpRouteHead({
    tools: {
      echo: { inputSchema: MODERN_SCHEMAS.echo },
      route: { inputSchema: MODERN_SCHEMAS.route },
    },
    ...(audit === undefined ? {} : { audit }),
  })
}

interface Case {
  readonly what: string
  readonly headers: Record<string, string>
  readonly body: string
  readonly header: string
  readonly kind: 'missing' | 'mismatch' | 'encoding'
}

const routeArgs = { region: 'eu', count: 3 }
const routeHeaders = (extra: Record<string, string> = {}) =>
  modernHeaders('route', { 'mcp-param-region': 'eu', 'mcp-param-count': '3', ...extra })
const without = (headers: Record<string, string>, name: string) => {
  const copy = { ...headers }
  delete copy[name]
  return copy
}

/** A 2026-07-28 `prompts/get` or `resources/read` whose `field` names `value`. */
const modernRead = (method: string, field: string, value: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { [field]: value, _meta: envelope() } })

// Every kind of disagreement the 2026-07-28 revision names, one request each.
const CASES: readonly Case[] = [
  {
    what: 'a header version other than the _meta version',
    headers: modernHeaders('echo'),
    body: modernCall('echo', { text: 'hi' }, 1, '2027-01-01'),
    header: 'MCP-Protocol-Version',
    kind: 'mismatch',
  },
  {
    what: 'a _meta version without the MCP-Protocol-Version header',
    headers: without(modernHeaders('echo'), 'mcp-protocol-version'),
    body: modernCall('echo', { text: 'hi' }),
    header: 'MCP-Protocol-Version',
    kind: 'missing',
  },
  {
    what: 'no Mcp-Method',
    headers: without(modernHeaders('echo'), 'mcp-method'),
    body: modernCall('echo', { text: 'hi' }),
    header: 'Mcp-Method',
    kind: 'missing',
  },
  {
    what: 'an Mcp-Method other than the body method',
    headers: modernHeaders('echo', { 'mcp-method': 'tools/list' }),
    body: modernCall('echo', { text: 'hi' }),
    header: 'Mcp-Method',
    kind: 'mismatch',
  },
  {
    what: 'no Mcp-Name',
    headers: without(modernHeaders('echo'), 'mcp-name'),
    body: modernCall('echo', { text: 'hi' }),
    header: 'Mcp-Name',
    kind: 'missing',
  },
  {
    what: 'an Mcp-Name naming another tool on the route',
    headers: modernHeaders('echo'),
    body: modernCall('route', routeArgs),
    header: 'Mcp-Name',
    kind: 'mismatch',
  },
  {
    what: 'an Mcp-Name in base64 form naming another tool',
    headers: modernHeaders(b64('echo')),
    body: modernCall('route', routeArgs),
    header: 'Mcp-Name',
    kind: 'mismatch',
  },
  {
    what: 'an Mcp-Name whose base64 form is not canonical base64',
    headers: modernHeaders(`=?base64?${MARKER}*?=`),
    body: modernCall('echo', { text: 'hi' }),
    header: 'Mcp-Name',
    kind: 'encoding',
  },
  {
    what: 'an Mcp-Name whose base64 payload is not UTF-8',
    headers: modernHeaders('=?base64?/w==?='),
    body: modernCall('echo', { text: 'hi' }),
    header: 'Mcp-Name',
    kind: 'encoding',
  },
  {
    what: 'a prompts/get whose Mcp-Name names another prompt',
    headers: modernHeaders('greet', { 'mcp-method': 'prompts/get' }),
    body: modernRead('prompts/get', 'name', MARKER),
    header: 'Mcp-Name',
    kind: 'mismatch',
  },
  {
    what: 'a prompts/get without Mcp-Name',
    headers: without(modernHeaders('greet', { 'mcp-method': 'prompts/get' }), 'mcp-name'),
    body: modernRead('prompts/get', 'name', 'greet'),
    header: 'Mcp-Name',
    kind: 'missing',
  },
  {
    what: 'a resources/read whose base64 Mcp-Name decodes to another URI',
    headers: modernHeaders(b64('docs://public/é'), { 'mcp-method': 'resources/read' }),
    body: modernRead('resources/read', 'uri', `docs://public/${MARKER}`),
    header: 'Mcp-Name',
    kind: 'mismatch',
  },
  {
    what: 'a resources/read whose Mcp-Name is a broken base64 form',
    headers: modernHeaders('=?base64?ZG9?=', { 'mcp-method': 'resources/read' }),
    body: modernRead('resources/read', 'uri', 'docs://public/a'),
    header: 'Mcp-Name',
    kind: 'encoding',
  },
  {
    what: 'no Mcp-Param header for a mirrored argument',
    headers: without(routeHeaders(), 'mcp-param-region'),
    body: modernCall('route', routeArgs),
    header: 'Mcp-Param-Region',
    kind: 'missing',
  },
  {
    what: 'an Mcp-Param string other than the argument',
    headers: routeHeaders({ 'mcp-param-region': MARKER }),
    body: modernCall('route', routeArgs),
    header: 'Mcp-Param-Region',
    kind: 'mismatch',
  },
  {
    what: 'an Mcp-Param number other than the argument',
    headers: routeHeaders({ 'mcp-param-count': '4' }),
    body: modernCall('route', routeArgs),
    header: 'Mcp-Param-Count',
    kind: 'mismatch',
  },
  {
    what: 'an Mcp-Param in a broken base64 form',
    headers: routeHeaders({ 'mcp-param-region': '=?base64?ZX?=' }),
    body: modernCall('route', routeArgs),
    header: 'Mcp-Param-Region',
    kind: 'encoding',
  },
]

describe('checkHeaderAgreement', () => {
  it('refuses every kind of header/body mismatch with 400 -32020 naming the header; nothing runs', async () => {
    const { seen, target, close } = modernTarget()
    closers.push(close)
    const events: McpHeadAuditEvent[] = []
    const server = await serveHandler(
      mcpHttpHandler(
        target,
        createMcpHttpAdmission({ ...options(), route: routeOf((e) => events.push(e)) }),
      ),
    )
    running.push(server)
    for (const c of CASES) {
      const answer = await send(server.port, 'POST', c.headers, c.body)
      expect(answer.status, c.what).toBe(400)
      expect(answer.headers.connection, c.what).toBe('close')
      expect(answer.body, c.what).not.toContain(MARKER)
      const error = errorOf(answer, 1)
      expect(error.code, c.what).toBe(-32020)
      expect(error.data, c.what).toEqual({
        code: HEADER_MISMATCH_CODE,
        header: c.header,
        kind: c.kind,
      })
    }
    expect(seen).toEqual({ servers: 0, echo: 0, route: 0 })
    expect(events).toEqual(
      CASES.map((c) => ({ type: 'header-mismatch', header: c.header, kind: c.kind })),
    )
  })

  it('echoes the request id in its refusals, as the SDK does; a batch, which has none, gets null', async () => {
    const { seen, target, close } = modernTarget()
    closers.push(close)
    const server = await serveHandler(
      mcpHttpHandler(target, createMcpHttpAdmission({ ...options(), route: routeOf() })),
    )
    running.push(server)
    const bare = await serveHandler(async (req, res) => target.handleRequest(req, res))
    running.push(bare)
    const headers = modernHeaders('echo', { 'mcp-method': 'tools/list' })
    for (const id of [4242, 'req-42']) {
      const body = modernCall('echo', { text: 'hi' }, id as number)
      const answer = await send(server.port, 'POST', headers, body)
      expect(answer.status).toBe(400)
      expect(errorOf(answer, id).code).toBe(-32020)
      // The SDK alone answers the same request with the same code and id.
      const sdk = JSON.parse((await send(bare.port, 'POST', headers, body)).body)
      expect({ id: sdk.id, code: sdk.error.code }).toEqual({ id, code: -32020 })
    }
    const noteHeaders = { ...modernHeaders('x'), 'mcp-method': 'tools/list' }
    const batch = `[${modernCall('echo', { text: 'hi' }, 9)}]`
    const headersOfBatch = { ...noteHeaders, 'mcp-protocol-version': '2025-11-25' }
    const refusedBatch = await send(server.port, 'POST', headersOfBatch, batch)
    expect(refusedBatch.status).toBe(400)
    expect(errorOf(refusedBatch, null).code).toBe(-32600)
    expect(seen.servers).toBe(0)
  })

  it('lets each mismatch reach the server when the agreement step is left out (the control)', async () => {
    const { reached, target } = recordingTarget()
    const server = await serveHandler(
      stepsWithout(['agreement'], target, { ...options(), route: routeOf() }),
    )
    running.push(server)
    for (const c of CASES) {
      const answer = await send(server.port, 'POST', c.headers, c.body)
      expect(answer.status, c.what).toBe(200)
    }
    expect(reached).toHaveLength(CASES.length)
  })

  it('serves agreeing headers: base64 names and values, numbers compared as numbers, absent arguments', async () => {
    const { seen, target, close } = modernTarget()
    closers.push(close)
    const server = await serveHandler(
      mcpHttpHandler(target, createMcpHttpAdmission({ ...options(), route: routeOf() })),
    )
    running.push(server)
    const served = [
      [modernHeaders(b64('echo')), modernCall('echo', { text: 'hi' })],
      [modernHeaders(` ${b64('echo')}\t`), modernCall('echo', { text: 'hi' })],
      [routeHeaders({ 'mcp-param-count': '3.0' }), modernCall('route', routeArgs)],
      [routeHeaders({ 'mcp-param-region': b64('eu') }), modernCall('route', routeArgs)],
      [modernHeaders('route'), modernCall('route', {})],
    ] as const
    for (const [headers, body] of served) {
      const answer = await send(server.port, 'POST', headers, body)
      expect(answer.status, body).toBe(200)
      expect(JSON.parse(answer.body).result.content[0].text).toMatch(/^(len|route):/)
    }
    expect(seen.echo).toBe(2)
    expect(seen.route).toBe(3)
  })

  it('answers a _meta version of no version shape with -32022 and a fixed placeholder, never the sent bytes', async () => {
    const { seen, target, close } = modernTarget()
    closers.push(close)
    const server = await serveHandler(mcpHttpHandler(target, createMcpHttpAdmission(options())))
    running.push(server)
    const headers = without(modernHeaders('echo'), 'mcp-protocol-version')
    const body = modernCall('echo', { text: 'hi' }, 1, `x-${MARKER}`)
    const answer = await send(server.port, 'POST', headers, body)
    expect(answer.status).toBe(400)
    expect(answer.body).not.toContain(MARKER)
    expect(errorOf(answer, 1)).toEqual({
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported: ['2026-07-28'], requested: 'unrecognized' },
    })
    const shaped = modernCall('echo', { text: 'hi' }, 1, '2031-02-03')
    const dated = errorOf(await send(server.port, 'POST', headers, shaped), 1)
    expect(dated.data).toEqual({ supported: ['2026-07-28'], requested: '2031-02-03' })
    expect(seen.servers).toBe(0)
    // The control: the SDK alone puts the sent bytes back in its answer.
    const bare = await serveHandler(async (req, res) => target.handleRequest(req, res))
    running.push(bare)
    const echoed = await send(bare.port, 'POST', headers, body)
    expect(echoed.body).toContain(MARKER)
  })

  it('refuses a 2026-07-28 request without a _meta version with 400 -32602', async () => {
    const { seen, target, close } = modernTarget()
    closers.push(close)
    const server = await serveHandler(mcpHttpHandler(target, createMcpHttpAdmission(options())))
    running.push(server)
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' } },
    })
    const answer = await send(server.port, 'POST', modernHeaders('echo'), body)
    expect(answer.status).toBe(400)
    expect(errorOf(answer, 1).code).toBe(-32602)
    expect(seen.servers).toBe(0)
    // A notification needs no Mcp-Method to agree (the spec asks it of requests).
    const note = JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 9, _meta: envelope() },
    })
    const headers = without(without(modernHeaders('x'), 'mcp-method'), 'mcp-name')
    expect((await send(server.port, 'POST', headers, note)).status).toBe(202)
  })
})

describe('checkHeaderAgreement against the SDK 2.4 ladder', () => {
  it('answers each malformed 2026-07-28 request with the status and code the SDK alone answers', async () => {
    // The oracle is the SDK's own validation ladder (createMcpHandler alone): tollgate in front
    // may refuse earlier, never with another verdict.
    const { target, close } = modernTarget()
    closers.push(close)
    const guarded = await serveHandler(
      mcpHttpHandler(target, createMcpHttpAdmission({ ...options(), route: routeOf() })),
    )
    const bare = await serveHandler(async (req, res) => target.handleRequest(req, res))
    running.push(guarded, bare)
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    })
    const noEnvelope = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' } },
    })
    const requests: readonly (readonly [Record<string, string>, string])[] = [
      ...CASES.map((c) => [c.headers, c.body] as const),
      [modernHeaders('echo', { 'mcp-method': 'initialize' }), initialize],
      [modernHeaders('echo'), noEnvelope],
      [modernHeaders('echo'), '{}'],
      [modernHeaders('echo'), JSON.stringify({ jsonrpc: '2.0', id: 5, result: {} })],
      [
        { ...modernHeaders('echo'), 'mcp-protocol-version': '2027-01-01' },
        modernCall('echo', {}, 1, '2027-01-01'),
      ],
    ]
    for (const [headers, body] of requests) {
      const ours = await send(guarded.port, 'POST', headers, body)
      const theirs = await send(bare.port, 'POST', headers, body)
      const code = (answer: { body: string }) => JSON.parse(answer.body).error?.code
      expect([ours.status, code(ours)], body).toEqual([theirs.status, code(theirs)])
    }
  })
})
