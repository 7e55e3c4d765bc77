// Both MCP eras on every route, live: the real server (dist/main.js), a raw 2025 client
// (initialize, then a session) and a raw 2026-07-28 client (no initialize, the revision in the
// headers and in `_meta`), neither following the published schemas. Every refusal is checked
// on both eras, with the tool_invoked sentinel showing the handler did not run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call2026, MODERN_META, request2026 } from './helpers/modern-client.js'
import { RawSession, RawStdio, toolResult } from './helpers/raw-client.js'
import { ALICE, BOB, type LiveServer, startServer, writeConfig } from './helpers/server.js'

const ROUTES = ['/mcp', '/mcp/team', '/mcp/public'] as const
const ANONYMOUS = { anonymous: { routes: ['/mcp/public'], capabilities: ['read', 'notes'] } }
const SEARCH = { projectId: 'atlas', query: 'admission', limit: 1 }
const UNKNOWN_KEY =
  'Invalid arguments for tool knowledge.search: /sort fails unevaluatedProperties false'

let server: LiveServer
let small: LiveServer
let lifted: LiveServer

beforeAll(async () => {
  ;[server, small, lifted] = await Promise.all([
    startServer(['--config', writeConfig(ANONYMOUS), '--heavy-threshold-bytes', '4096'], false),
    startServer(['--max-body-bytes', '2048']),
    startServer(['--unsafe-disable-input-validation']),
  ])
})
afterAll(async () => {
  await Promise.all([server.stop(), small.stop(), lifted.stop()])
})

const runs = (s: LiveServer, tool: string) =>
  s.audit.named('tool_invoked').filter((e) => e.tool === tool).length
/** A JSON-RPC answer as these tests read it (a field a test reads and the answer lacks fails it). */
interface Answer {
  readonly result: {
    readonly supportedVersions: string[]
    readonly tools: { readonly name: string }[]
    readonly content: { readonly type: string; readonly text: string }[]
    readonly isError?: boolean
  }
  readonly error: { readonly code: number; readonly message: string; readonly data?: unknown }
}
const json = (text: string) => JSON.parse(text) as Answer

describe('startHttpServer: both eras on every route', () => {
  it.each(ROUTES)(
    'serves a 2026-07-28 client without initialize or session, and a 2025 client with them, on %s',
    async (route) => {
      const url = server.url(route)
      const discover = await request2026(url, 'server/discover', {}, { token: ALICE })
      expect(discover.status).toBe(200)
      expect(discover.headers['mcp-session-id']).toBeUndefined()
      expect(json(discover.text).result.supportedVersions).toContain('2026-07-28')
      const before = runs(server, 'project.list')
      const modern = await call2026(url, 'project.list', {}, { token: ALICE })
      expect(modern.status).toBe(200)
      expect(modern.headers['mcp-session-id']).toBeUndefined()
      const session = await RawSession.open(url, ALICE)
      const legacy = await session.call('project.list', {})
      expect(json(modern.text).result.content).toEqual(toolResult(legacy).content)
      expect(runs(server, 'project.list')).toBe(before + 2)
    },
  )

  it('serves an anonymous 2026-07-28 caller on the route that admits anonymous callers, and refuses one elsewhere with 401 unread', async () => {
    const served = await call2026(server.url('/mcp/public'), 'project.list', {})
    expect(served.status).toBe(200)
    expect(JSON.parse(json(served.text).result.content[0]!.text)).toHaveProperty('projects')
    const refused = await call2026(server.url('/mcp'), 'project.list', {})
    expect(refused.status).toBe(401)
  })

  it('lists the same tools on both eras, each route its own surface', async () => {
    for (const route of ROUTES) {
      const session = await RawSession.open(server.url(route), ALICE)
      const legacy = json(
        (await session.post({ jsonrpc: '2.0', id: 3, method: 'tools/list' })).text,
      )
      const modern = json(
        (await request2026(server.url(route), 'tools/list', {}, { token: ALICE })).text,
      )
      const names = (r: Answer) => r.result.tools.map((t) => t.name)
      expect(names(modern)).toEqual(names(legacy))
    }
  })

  it('answers a tool mounted on another route and one that exists nowhere with the same bytes on each era, and no handler runs', async () => {
    const url = server.url('/mcp/public')
    const before = server.audit.named('tool_invoked').length
    const args = { projectId: 'atlas', documentId: 'atlas-handbook' }
    const elsewhere = await call2026(url, 'knowledge.get', args, { token: ALICE })
    const nowhere = await call2026(url, 'ghost.get', args, { token: ALICE })
    expect(json(elsewhere.text).error).toEqual({ code: -32602, message: 'Unknown tool' })
    expect([elsewhere.status, elsewhere.text]).toEqual([nowhere.status, nowhere.text])
    const session = await RawSession.open(url, ALICE)
    const elsewhere25 = await session.call('knowledge.get', args)
    const nowhere25 = await session.call('ghost.get', args)
    expect(json(elsewhere25.text).error).toEqual({ code: -32602, message: 'Unknown tool' })
    expect(elsewhere25.text).toBe(nowhere25.text)
    expect(server.audit.named('tool_invoked').length).toBe(before)
  })

  it('refuses an unknown argument key on both eras and the handler does not run', async () => {
    const url = server.url('/mcp')
    const before = runs(server, 'knowledge.search')
    const modern = await call2026(
      url,
      'knowledge.search',
      { ...SEARCH, sort: 'desc' },
      { token: ALICE },
    )
    const session = await RawSession.open(url, ALICE)
    const legacy = await session.call('knowledge.search', { ...SEARCH, sort: 'desc' })
    const refusal = { content: [{ type: 'text', text: UNKNOWN_KEY }], isError: true }
    // A 2026-07-28 result names its type; a 2025 result has no such field.
    expect(json(modern.text).result).toEqual({ resultType: 'complete', ...refusal })
    expect(toolResult(legacy)).toEqual(refusal)
    expect(runs(server, 'knowledge.search')).toBe(before)
  })

  it('serves the unknown key on the 2026 path once validation is lifted (the control is what refuses it)', async () => {
    const before = runs(lifted, 'knowledge.search')
    const res = await call2026(
      lifted.url('/mcp'),
      'knowledge.search',
      { ...SEARCH, sort: 'desc' },
      { token: ALICE },
    )
    expect(json(res.text).result.isError).toBeUndefined()
    expect(runs(lifted, 'knowledge.search')).toBe(before + 1)
  })

  it('refuses a body over --max-body-bytes with 413 ERR_BODY_TOO_LARGE on both eras, and no handler runs', async () => {
    const big = { ...SEARCH, query: 'q'.repeat(3000) }
    const modern = await call2026(small.url('/mcp'), 'knowledge.search', big, { token: ALICE })
    const session = await RawSession.open(small.url('/mcp'), ALICE)
    const legacy = await session.call('knowledge.search', big)
    for (const res of [modern, legacy]) {
      expect(res.status).toBe(413)
      expect(json(res.text).error.data).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', limit: 2048 })
      expect(res.text).not.toContain('qqqq')
    }
    expect(runs(small, 'knowledge.search')).toBe(0)
  })

  it('answers GET and DELETE on the 2026 path with 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await request2026(server.url('/mcp'), 'tools/list', {}, { token: ALICE, method })
      expect(res.status).toBe(405)
    }
  })

  it('answers a heavy 2026 result with a continuation that its credential redeems statelessly and another credential cannot', async () => {
    const url = server.url('/mcp')
    const args = { projectId: 'atlas', documentId: 'atlas-handbook' }
    const minted = await call2026(url, 'knowledge.get', args, { token: ALICE })
    const { token } = (
      JSON.parse(json(minted.text).result.content[0]!.text) as {
        continuation: { token: string }
      }
    ).continuation
    const redeemed = await call2026(url, 'continuation.fetch', { token }, { token: ALICE })
    expect(JSON.parse(json(redeemed.text).result.content[0]!.text).id).toBe('atlas-handbook')
    const stolen = await call2026(url, 'continuation.fetch', { token }, { token: BOB })
    expect(json(stolen.text).result.isError).toBe(true)
    expect(stolen.text).not.toContain('atlas-handbook')
  })

  it('serves a 2026-07-28 client over stdio without initialize, and refuses its unknown key unserved', async () => {
    const stdio = new RawStdio()
    try {
      const discover = JSON.parse(
        await stdio.request({
          jsonrpc: '2.0',
          id: 1,
          method: 'server/discover',
          params: { _meta: MODERN_META },
        }),
      ) as Answer
      expect(discover.result.supportedVersions).toContain('2026-07-28')
      const refused = JSON.parse(
        await stdio.request({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: {
            name: 'knowledge.search',
            arguments: { ...SEARCH, sort: 'desc' },
            _meta: MODERN_META,
          },
        }),
      ) as Answer
      expect(refused.result).toEqual({
        resultType: 'complete',
        content: [{ type: 'text', text: UNKNOWN_KEY }],
        isError: true,
      })
      const served = JSON.parse(
        await stdio.request({
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'knowledge.search', arguments: SEARCH, _meta: MODERN_META },
        }),
      ) as Answer
      expect(served.result.isError).toBeUndefined()
      // The served call's line; a line of the refused call, had it run, would come before it.
      await stdio.audit.waitFor((e) => e.event === 'tool_invoked')
      expect(stdio.audit.named('tool_invoked')).toHaveLength(1)
    } finally {
      await stdio.stop()
    }
  })
})
