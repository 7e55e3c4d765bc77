// SessionPool through a real http.Server on 127.0.0.1 (port 0): a session server written from
// the exported steps the way the README shows (real McpServer, the SDK's transport, JSON
// responses), the key of a request in an `x-key` header. The control is the same server counting
// its sessions the way the SDK examples do: a size check at the head, a count once the session
// exists. Sentinel: `opened`, the sessions the SDK initialized.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { createInFlightBudget } from '@tollgate/http-admission'
import { eventually } from '@tollgate/test-kit/eventually'
import type { RawResponse } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { MCP_POST_HEADERS as HEADERS, initializeRequest } from '@tollgate/test-kit/mcp-initialize'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createMcpHttpAdmission,
  isInitializeBody,
  mcpBodyAdmission,
  refuseJsonRpcUnread,
  SessionPool,
  type SessionPoolOptions,
} from '../src/index.js'
import { heldRequest } from './helpers/held.js'

const INITIALIZE = Buffer.from(JSON.stringify(initializeRequest(0, 't')))
const PING = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}')

let running: Running[] = []
let pools: SessionPool<unknown>[] = []
afterEach(async () => {
  await Promise.all(pools.map((p) => p.close()))
  await Promise.all(running.map((r) => r.close()))
  running = []
  pools = []
})

interface Served {
  readonly server: Running
  /** Sessions the SDK initialized; heads the handler has seen. */
  readonly seen: { opened: number; heads: number }
}

function makeSession(onInitialized: (id: string, t: StreamableHTTPServerTransport) => void) {
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: true,
    onsessioninitialized: (id) => onInitialized(id, transport),
  })
  const mcp = new McpServer({ name: 'pool', version: '1.0.0' })
  return { transport, mcp }
}

/** The session server of the README: the steps in order, a slot reserved before the body. */
async function pooled(
  options: SessionPoolOptions,
): Promise<Served & { pool: SessionPool<StreamableHTTPServerTransport> }> {
  const http = createMcpHttpAdmission({
    body: mcpBodyAdmission({ budget: createInFlightBudget(1 << 24) }),
  })
  const pool = new SessionPool<StreamableHTTPServerTransport>(options)
  pools.push(pool as SessionPool<unknown>)
  const seen = { opened: 0, heads: 0 }
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    seen.heads++
    if (!http.guardHostAndOrigin(req, res) || !http.guardProtocolVersion(req, res)) return
    const key = String(req.headers['x-key'] ?? 'anonymous')
    const id = req.headers['mcp-session-id']
    if (typeof id === 'string') {
      const use = pool.use(id)
      if (use === undefined || use.key !== key) {
        use?.done()
        return refuseJsonRpcUnread(res, 404, { code: -32001, message: 'Session not found' })
      }
      res.once('close', use.done)
      const body = req.method === 'POST' ? await http.admitMcpBody(req, res) : undefined
      if (body?.ok === false) return
      return http.handleMcpRequest(use.value, req, res, body?.value)
    }
    const reserved = pool.reserve(key)
    if (!reserved.ok) {
      const { status, code, limit } = reserved.error
      return refuseJsonRpcUnread(res, status, {
        code: -32000,
        message: 'Too many sessions',
        data: { code, limit },
      })
    }
    try {
      const body = await http.admitMcpBody(req, res)
      if (!body.ok) return
      if (!isInitializeBody(body.value)) {
        return refuseJsonRpcUnread(res, 400, { code: -32000, message: 'Bad Request: no session' })
      }
      const { transport, mcp } = makeSession((sid, t) => {
        seen.opened++
        reserved.slot.commit(sid, t, () => mcp.close())
      })
      transport.onclose = () => {
        if (transport.sessionId !== undefined) pool.delete(transport.sessionId)
      }
      await mcp.connect(transport)
      await http.handleMcpRequest(transport, req, res, body.value)
    } finally {
      reserved.slot.release() // frees the slot, or once committed starts the idle clock
    }
  }
  const server = await listen((req, res) => {
    handle(req, res).catch(() => res.destroy())
  })
  running.push(server)
  return { server, seen, pool }
}

/** The control: `sessions.size >= max` checked at the head, the session counted once it exists. */
async function checkedAtHead(maxSessions: number): Promise<Served> {
  const http = createMcpHttpAdmission({
    body: mcpBodyAdmission({ budget: createInFlightBudget(1 << 24) }),
  })
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const seen = { opened: 0, heads: 0 }
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    seen.heads++
    if (sessions.size >= maxSessions) {
      return refuseJsonRpcUnread(res, 503, { code: -32000, message: 'Too many sessions' })
    }
    const body = await http.admitMcpBody(req, res)
    if (!body.ok) return
    const { transport, mcp } = makeSession((sid, t) => {
      seen.opened++
      sessions.set(sid, t)
    })
    await mcp.connect(transport)
    await http.handleMcpRequest(transport, req, res, body.value)
  }
  const server = await listen((req, res) => {
    handle(req, res).catch(() => res.destroy())
  })
  running.push(server)
  return { server, seen }
}

async function post(
  port: number,
  headers: Record<string, string>,
  body: Buffer,
): Promise<RawResponse> {
  const held = heldRequest(port, 'POST', '/mcp', { ...HEADERS, ...headers }, body)
  held.sendBody()
  const res = await held.response
  held.destroy()
  if (res === undefined) throw new Error('closed without an answer')
  return res
}

const initialize = (port: number, key: string) => post(port, { 'x-key': key }, INITIALIZE)

/** Sends `count` initialize heads, their bodies held back until every head reached the handler. */
async function heldInitializes(served: Served, count: number) {
  const held = Array.from({ length: count }, (_, i) =>
    heldRequest(served.server.port, 'POST', '/mcp', { ...HEADERS, 'x-key': `k${i}` }, INITIALIZE),
  )
  expect(await eventually(async () => served.seen.heads >= count)).toBe(true)
  for (const h of held) h.sendBody()
  const responses = await Promise.all(held.map((h) => h.response))
  for (const h of held) h.destroy()
  return responses.map((r) => r?.status)
}

describe('SessionPool', () => {
  it('never opens more than maxSessions for 40 concurrent initializes held back mid-body', async () => {
    const served = await pooled({ maxSessions: 5, maxSessionsPerKey: 5 })
    const statuses = await heldInitializes(served, 40)
    expect(statuses.filter((s) => s === 200)).toHaveLength(5)
    expect(statuses.filter((s) => s === 503)).toHaveLength(35)
    expect(served.seen.opened).toBe(5)
    expect(served.pool.size).toBe(5)
  })

  it('opens all 40 when the cap is checked at the head and counted after the body (the control)', async () => {
    const served = await checkedAtHead(5)
    const statuses = await heldInitializes(served, 40)
    expect(statuses.filter((s) => s === 200)).toHaveLength(40)
    expect(served.seen.opened).toBe(40)
  })

  it('answers ERR_SESSION_QUOTA to a key at its quota and still opens sessions for another key', async () => {
    const { server, seen } = await pooled({ maxSessions: 4, maxSessionsPerKey: 2 })
    expect((await initialize(server.port, 'alice')).status).toBe(200)
    expect((await initialize(server.port, 'alice')).status).toBe(200)
    const refused = await initialize(server.port, 'alice')
    expect(refused.status).toBe(429)
    expect(refused.headers.connection).toBe('close')
    expect(JSON.parse(refused.body).error.data).toEqual({ code: 'ERR_SESSION_QUOTA', limit: 2 })
    expect((await initialize(server.port, 'bob')).status).toBe(200)
    expect(seen.opened).toBe(3)
  })

  it('locks every other key out once one key fills the slots when the quota is the cap (the control)', async () => {
    const { server } = await pooled({ maxSessions: 4, maxSessionsPerKey: 4 })
    for (let i = 0; i < 4; i++) expect((await initialize(server.port, 'alice')).status).toBe(200)
    const locked = await initialize(server.port, 'bob')
    expect(locked.status).toBe(503)
    expect(JSON.parse(locked.body).error.data).toEqual({ code: 'ERR_SESSION_LIMIT', limit: 4 })
  })

  it('closes a session idle for idleMs and gives its slot to a new initialize', async () => {
    const { server, pool } = await pooled({ maxSessions: 1, idleMs: 200 })
    const first = await initialize(server.port, 'alice')
    const id = first.headers['mcp-session-id'] as string
    expect((await initialize(server.port, 'bob')).status).toBe(503)
    // Served before a generous deadline once the idle session has expired.
    expect(
      await eventually(async () => (await initialize(server.port, 'bob')).status === 200),
    ).toBe(true)
    const stale = await post(server.port, { 'x-key': 'alice', 'mcp-session-id': id }, PING)
    expect(stale.status).toBe(404)
    expect(pool.size).toBe(1)
  })

  it('frees the slot of an initialize that does not open a session', async () => {
    const { server, pool, seen } = await pooled({ maxSessions: 1 })
    expect((await post(server.port, { 'x-key': 'a' }, PING)).status).toBe(400)
    expect((await post(server.port, { 'x-key': 'a' }, Buffer.from('{"jsonrpc":'))).status).toBe(422)
    expect(pool.size).toBe(0)
    expect(seen.opened).toBe(0)
    expect((await initialize(server.port, 'a')).status).toBe(200)
  })

  it('validates its options at construction', () => {
    const pool = new SessionPool()
    expect([pool.maxSessions, pool.maxSessionsPerKey, pool.idleMs]).toEqual([1000, 100, 600_000])
    expect(new SessionPool({ maxSessions: 5 }).maxSessionsPerKey).toBe(1)
    expect(new SessionPool({ idleMs: false }).idleMs).toBe(false)
    expect(() => new SessionPool({ maxSessions: 0 })).toThrow(TypeError)
    expect(() => new SessionPool({ idleMs: -1 })).toThrow(TypeError)
    expect(() => new SessionPool({ max: 1 } as never)).toThrow(TypeError)
  })
})
