// Pre-body admission on the 2026-07-28 path, through a real http.Server on 127.0.0.1: each
// refusal comes from the head alone while the client streams an endless body, the connection
// is closed unread (the client cannot push more than the kernel buffers), and the server never
// runs; with the head step left out, the same requests reach the server.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createInFlightBudget } from '@tollgate/http-admission'
import { listen, type Running } from '@tollgate/test-kit/listen'
import express from 'express'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createMcpHttpAdmission,
  type McpHead,
  type McpHeadAuditEvent,
  type McpHttpCall,
  type McpQuota,
  mcpBodyAdmission,
  mcpExpressHandler,
  mcpHttpHandler,
  mcpRouteHead,
  UNKNOWN_NAME_ERROR,
} from '../src/index.js'
import { envelope, MODERN_SCHEMAS, modernCall, modernHeaders } from './helpers/modern-target.js'
import { errorOf, send, sendEndless, serveHandler } from './helpers/modern-wire.js'
import { recordingTarget, stepsWithout } from './helpers/steps-without.js'

// Far below the 64 MiB the client offers after the answer: a connection still read takes it all.
const UNREAD = 16 * 1024 * 1024
const options = () => ({
  body: mcpBodyAdmission({ budget: createInFlightBudget(64 * 1024 * 1024) }),
})

/** The host's own credential check, reduced to a header: the principal of a request. */
function callerOf(req: IncomingMessage): string | undefined {
  const caller = req.headers['x-caller']
  return typeof caller === 'string' ? caller : undefined
}

/** The composed handler as an authenticating host calls it: the principal as an argument. */
function withPrincipal(
  handle: (req: IncomingMessage, res: ServerResponse, call?: McpHttpCall) => Promise<void>,
) {
  return (req: IncomingMessage, res: ServerResponse) =>
    handle(req, res, { principal: callerOf(req) })
}

let running: Running[] = []
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()))
  running = []
})

/** `handle`, noting how many bytes the server had read off the socket when it was done. */
function measuredRead(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>) {
  let read = 0
  return {
    handler: async (req: IncomingMessage, res: ServerResponse) => {
      try {
        await handle(req, res)
      } finally {
        read = Math.max(read, req.socket.bytesRead)
      }
    },
    bytesRead: () => read,
  }
}

/** A quota refusing the caller `blocked`, counting grants in flight. */
function countingQuota() {
  const state = { inFlight: 0, asked: [] as (string | undefined)[], eras: [] as string[] }
  const quota: McpQuota = {
    acquire(principal: string | undefined, head: McpHead) {
      state.asked.push(principal)
      state.eras.push(head.era)
      if (principal === 'blocked') return { ok: false, retryAfterSeconds: 7 }
      state.inFlight++
      return { ok: true, release: () => state.inFlight-- }
    },
  }
  return { state, quota }
}

function guardedRoute(quota: McpQuota, audit?: (event: McpHeadAuditEvent) => void) {
  return mcpRouteHead({
    tools: {
      echo: { inputSchema: MODERN_SCHEMAS.echo, maxBodyBytes: 1024 },
      route: { inputSchema: MODERN_SCHEMAS.route },
    },
    methods: ['tools/call', 'tools/list', 'server/discover'],
    quota,
    ...(audit === undefined ? {} : { audit }),
  })
}

// The refusals from the head, each with an endless body behind it.
const PRE_BODY = [
  {
    what: 'a method the route does not serve',
    headers: modernHeaders('echo', { 'mcp-method': 'prompts/get' }),
    declared: undefined,
    status: 404,
    code: -32601,
    event: 'method-not-served',
    finite: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'prompts/get',
      params: { name: 'echo', _meta: envelope() },
    }),
  },
  {
    what: 'an Mcp-Name mounted on another route',
    headers: modernHeaders('admin_reset'),
    declared: undefined,
    status: 400,
    code: -32602,
    event: 'unknown-name',
    finite: modernCall('admin_reset', {}),
  },
  {
    what: 'an Mcp-Name that exists nowhere (base64 form)',
    headers: modernHeaders('=?base64?bm93aGVyZQ==?='),
    declared: undefined,
    status: 400,
    code: -32602,
    event: 'unknown-name',
    finite: modernCall('nowhere', {}),
  },
  {
    what: 'a declared length over the tool byte cap',
    headers: modernHeaders('echo'),
    // 1 GiB declared, then bytes until the answer: the body never ends within the test.
    declared: 1024 * 1024 * 1024,
    status: 413,
    code: -32000,
    event: 'over-tool-cap',
    finite: modernCall('echo', { text: 'x'.repeat(1100) }),
  },
  {
    what: 'a caller over its quota',
    headers: modernHeaders('echo', { 'x-caller': 'blocked' }),
    declared: undefined,
    status: 429,
    code: -32000,
    event: 'over-quota',
    finite: modernCall('echo', { text: 'hi' }),
  },
] as const

describe('mcpRouteHead', () => {
  it('refuses from the head alone and closes unread, an endless body behind; nothing runs', async () => {
    const { reached, target } = recordingTarget()
    const { state, quota } = countingQuota()
    const events: McpHeadAuditEvent[] = []
    const handler = mcpHttpHandler(
      target,
      createMcpHttpAdmission({ ...options(), route: guardedRoute(quota, (e) => events.push(e)) }),
    )
    const server = await serveHandler(withPrincipal(handler))
    running.push(server)
    const start = modernCall('echo', { text: '' }).slice(0, -3)
    for (const c of PRE_BODY) {
      const { answer, after, closedByServer } = await sendEndless(
        server.port,
        c.headers,
        start,
        c.declared,
      )
      expect(answer.status, c.what).toBe(c.status)
      expect(answer.headers.connection, c.what).toBe('close')
      expect(errorOf(answer).code, c.what).toBe(c.code)
      expect(closedByServer, c.what).toBe(true)
      expect(after, c.what).toBeLessThan(UNREAD)
    }
    expect(reached).toHaveLength(0)
    expect(events.map((e) => e.type)).toEqual(PRE_BODY.map((c) => c.event))
    expect(state.inFlight).toBe(0)
  })

  it('answers a name on another route and a name nowhere with the same bytes', async () => {
    const { target } = recordingTarget()
    const { quota } = countingQuota()
    const server = await serveHandler(
      withPrincipal(
        mcpHttpHandler(
          target,
          createMcpHttpAdmission({ ...options(), route: guardedRoute(quota) }),
        ),
      ),
    )
    running.push(server)
    const body = modernCall('admin_reset', {})
    const elsewhere = await send(server.port, 'POST', modernHeaders('admin_reset'), body)
    const nowhere = await send(server.port, 'POST', modernHeaders('nowhere'), body)
    expect(elsewhere.status).toBe(400)
    expect(nowhere.body).toBe(elsewhere.body)
    expect(errorOf(elsewhere)).toEqual(UNKNOWN_NAME_ERROR)
  })

  it('names the tool cap as the limit, admits a body at the cap, and a tool without a cap', async () => {
    const { reached, target } = recordingTarget()
    const { quota } = countingQuota()
    const server = await serveHandler(
      withPrincipal(
        mcpHttpHandler(
          target,
          createMcpHttpAdmission({ ...options(), route: guardedRoute(quota) }),
        ),
      ),
    )
    running.push(server)
    const head = modernCall('echo', { text: '' })
    const overCap = modernCall('echo', { text: 'x'.repeat(1025 - head.length) })
    const over = await send(server.port, 'POST', modernHeaders('echo'), overCap)
    expect(over.status).toBe(413)
    expect(errorOf(over).data).toEqual({ code: 'ERR_BODY_TOO_LARGE', limit: 1024 })
    const atCap = modernCall('echo', { text: 'x'.repeat(1024 - head.length) })
    expect(Buffer.byteLength(atCap)).toBe(1024)
    expect((await send(server.port, 'POST', modernHeaders('echo'), atCap)).status).toBe(200)
    const large = modernCall('route', { region: 'x'.repeat(4096) })
    const headers = modernHeaders('route', { 'mcp-param-region': 'x'.repeat(4096) })
    expect((await send(server.port, 'POST', headers, large)).status).toBe(200)
    expect(reached).toHaveLength(2)
  })

  it('cuts a chunked body naming a capped tool at the tool cap: the declared case code and limit, a bounded read, nothing runs', async () => {
    const { reached, target } = recordingTarget()
    const { quota } = countingQuota()
    const served = measuredRead(
      withPrincipal(
        mcpHttpHandler(
          target,
          createMcpHttpAdmission({ ...options(), route: guardedRoute(quota) }),
        ),
      ),
    )
    const server = await serveHandler(served.handler)
    running.push(server)
    const start = modernCall('echo', { text: '' }).slice(0, -3)
    const chunked = await sendEndless(server.port, modernHeaders('echo'), start)
    expect(chunked.answer.status).toBe(413)
    expect(chunked.answer.headers.connection).toBe('close')
    expect(chunked.closedByServer).toBe(true)
    expect(chunked.after).toBeLessThan(UNREAD)
    // Node reads the socket in pieces of up to 64 KiB: far below the 4 MiB route cap.
    expect(served.bytesRead()).toBeLessThan(1024 * 1024)
    const declared = await send(
      server.port,
      'POST',
      modernHeaders('echo'),
      modernCall('echo', { text: 'x'.repeat(2048) }),
    )
    expect(declared.status).toBe(413)
    const [cut, early] = [errorOf(chunked.answer), errorOf(declared)]
    expect([cut.code, cut.data]).toEqual([early.code, early.data])
    expect(cut.data).toEqual({ code: 'ERR_BODY_TOO_LARGE', limit: 1024 })
    expect(reached).toHaveLength(0)
  })

  it('reads the chunked body to the route cap when the head step is left out (the control)', async () => {
    const { reached, target } = recordingTarget()
    const { quota } = countingQuota()
    const served = measuredRead(
      withPrincipal(stepsWithout(['head'], target, { ...options(), route: guardedRoute(quota) })),
    )
    const server = await serveHandler(served.handler)
    running.push(server)
    const start = modernCall('echo', { text: '' }).slice(0, -3)
    const chunked = await sendEndless(server.port, modernHeaders('echo'), start)
    expect(chunked.answer.status).toBe(413)
    expect(errorOf(chunked.answer).data).toEqual({
      code: 'ERR_BODY_TOO_LARGE',
      limit: 4 * 1024 * 1024,
    })
    expect(served.bytesRead()).toBeGreaterThan(4 * 1024 * 1024)
    expect(reached).toHaveLength(0)
  })

  it('asks the quota with the principal on both eras and releases each grant once answered', async () => {
    const { reached, target } = recordingTarget()
    const { state, quota } = countingQuota()
    const server = await serveHandler(
      withPrincipal(
        mcpHttpHandler(
          target,
          createMcpHttpAdmission({ ...options(), route: guardedRoute(quota) }),
        ),
      ),
    )
    running.push(server)
    const modern = await send(
      server.port,
      'POST',
      modernHeaders('echo', { 'x-caller': 'alice' }),
      modernCall('echo', { text: 'hi' }),
    )
    expect(modern.status).toBe(200)
    const legacy = await send(
      server.port,
      'POST',
      { 'content-type': 'application/json', accept: 'application/json', 'x-caller': 'bob' },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    )
    expect(legacy.status).toBe(200)
    const refused = await send(
      server.port,
      'POST',
      { 'content-type': 'application/json', 'x-caller': 'blocked' },
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    )
    expect(refused.status).toBe(429)
    expect(refused.headers['retry-after']).toBe('7')
    expect(errorOf(refused).data).toEqual({ code: 'ERR_MCP_QUOTA' })
    expect(state.asked).toEqual(['alice', 'bob', 'blocked'])
    expect(state.eras).toEqual(['modern', 'legacy', 'legacy'])
    expect(state.inFlight).toBe(0)
    expect(reached).toHaveLength(2)
  })

  it('lets each request reach the server when the head step is left out (the control)', async () => {
    const { reached, target } = recordingTarget()
    const { quota } = countingQuota()
    const server = await serveHandler(
      withPrincipal(stepsWithout(['head'], target, { ...options(), route: guardedRoute(quota) })),
    )
    running.push(server)
    for (const c of PRE_BODY) {
      const answer = await send(server.port, 'POST', c.headers, c.finite)
      expect(answer.status, c.what).toBe(200)
    }
    expect(reached).toHaveLength(PRE_BODY.length)
  })
})

describe('mcpExpressHandler with a route head', () => {
  it('holds the same controls behind Express: an off-surface name refused unread, the principal from res.locals, a tool served', async () => {
    const { reached, target } = recordingTarget()
    const { quota } = countingQuota()
    const app = express()
    // An authentication middleware's result, where mcpExpressHandler reads the principal.
    app.use((req, res, next) => {
      res.locals.principal = callerOf(req)
      next()
    })
    app.all(
      '/mcp',
      mcpExpressHandler(
        target,
        createMcpHttpAdmission({ ...options(), route: guardedRoute(quota) }),
      ),
    )
    const server = await listen(app)
    running.push(server)
    const refused = await sendEndless(server.port, modernHeaders('admin_reset'), '{')
    expect(refused.answer.status).toBe(400)
    expect(errorOf(refused.answer)).toEqual(UNKNOWN_NAME_ERROR)
    expect(refused.closedByServer).toBe(true)
    const body = modernCall('echo', { text: 'hi' })
    expect((await send(server.port, 'POST', modernHeaders('echo'), body)).status).toBe(200)
    const blocked = modernHeaders('echo', { 'x-caller': 'blocked' })
    expect((await send(server.port, 'POST', blocked, body)).status).toBe(429)
    expect(reached).toHaveLength(1)
  })
})

describe('mcpRouteHead options', () => {
  it('fails at construction on bad options and disallowed x-mcp-header declarations', () => {
    expect(() => mcpRouteHead({ maxBodyBytes: 0 })).toThrow(TypeError)
    expect(() => mcpRouteHead({ methods: [1 as unknown as string] })).toThrow(TypeError)
    expect(() => mcpRouteHead({ quota: {} as McpQuota })).toThrow(TypeError)
    expect(() => mcpRouteHead({ bogus: 1 } as never)).toThrow(TypeError)
    const schema = (prop: unknown) => ({ type: 'object', properties: { a: prop } })
    const bad = [
      schema({ type: 'object', 'x-mcp-header': 'A' }),
      schema({ type: 'string', 'x-mcp-header': 'has space' }),
      {
        type: 'object',
        properties: {
          a: { type: 'string', 'x-mcp-header': 'Dup' },
          b: { type: 'string', 'x-mcp-header': 'dup' },
        },
      },
    ]
    for (const inputSchema of bad) {
      expect(() => mcpRouteHead({ tools: { t: { inputSchema } } })).toThrow(TypeError)
    }
    const route = mcpRouteHead({ tools: { t: { inputSchema: MODERN_SCHEMAS.route } } })
    expect(route.paramHeadersOf('t').map((d) => d.name)).toEqual(['Region', 'Count'])
    expect(Object.isFrozen(route)).toBe(true)
  })
})
