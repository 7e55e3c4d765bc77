// Anonymous callers (no Authorization header at all) on the routes a config opens to them,
// live: the real bundle, a raw JSON-RPC client. The route matrices and every control hold for
// them; one anonymous caller's continuation is not another's.

import { initializeRequest, PROTOCOL_VERSION } from '@tollgate/test-kit/mcp-initialize'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tokenOf } from './helpers/continuations.js'
import { post, RawSession, resultJson, toolResult } from './helpers/raw-client.js'
import { BOB, type LiveServer, startServer, writeConfig } from './helpers/server.js'

let demo: LiveServer
let readOnly: LiveServer
let withNotes: LiveServer

/** A server whose config opens `/mcp/public` and `/mcp/team` to anonymous callers with `capabilities`. */
const anonymousServer = (capabilities: string[], args: string[] = []) =>
  startServer(
    [
      '--config',
      writeConfig({ anonymous: { routes: ['/mcp/public', '/mcp/team'], capabilities } }),
      ...args,
    ],
    false,
  )

beforeAll(async () => {
  ;[demo, readOnly, withNotes] = await Promise.all([
    // The embedded demo config; a heavy threshold low enough that project.list mints.
    startServer(['--heavy-threshold-bytes', '64'], false),
    anonymousServer(['read']),
    anonymousServer(['read', 'notes']),
  ])
})
afterAll(async () => {
  await Promise.all([demo.stop(), readOnly.stop(), withNotes.stop()])
})

const names = async (s: RawSession) =>
  (
    JSON.parse((await s.post({ jsonrpc: '2.0', id: 3, method: 'tools/list' })).text).result
      .tools as { name: string }[]
  )
    .map((t) => t.name)
    .sort()
const notesList = (s: RawSession) =>
  s.call('knowledge', { projectId: 'atlas', resource: 'notes', action: 'list' })
const invoked = (server: LiveServer) => server.audit.named('tool_invoked').length

describe('anonymous principal', () => {
  it('admits a request with no Authorization header on /mcp/public of the demo config, with the public surface', async () => {
    const anon = await RawSession.open(demo.url('/mcp/public'), undefined)
    const opened = await demo.audit.waitFor(
      (e) => e.event === 'session_opened' && String(e.credential).startsWith('anonymous:'),
    )
    expect(opened.route).toBe('public')
    const pub = await names(anon)
    expect(pub).toContain('knowledge')
    expect(pub).not.toContain('admin')
    expect(pub).not.toContain('knowledge.get')
    expect(toolResult(await notesList(anon)).isError).toBeUndefined()
  })

  it('refuses a request with no Authorization header on /mcp and /mcp/team of the demo config with 401, opening no session', async () => {
    const before = demo.audit.named('session_opened').length
    for (const path of ['/mcp', '/mcp/team']) {
      const res = await post(demo.url(path), initializeRequest())
      expect(res.status).toBe(401)
      expect(JSON.parse(res.text).error.code).toBe(-32001)
    }
    expect(demo.audit.named('session_opened')).toHaveLength(before)
  })

  it('never downgrades a present but wrong credential to anonymous on a route that admits anonymous callers', async () => {
    const before = demo.audit.named('session_opened').length
    for (const authorization of ['Bearer not-a-real-token-at-all', 'Basic YTpi', '']) {
      const res = await post(demo.url('/mcp/public'), initializeRequest(), { authorization })
      expect(res.status).toBe(401)
    }
    expect(demo.audit.named('session_opened')).toHaveLength(before)
  })

  it('admits no anonymous caller anywhere when the config file does not configure it', async () => {
    const configured = await startServer()
    try {
      for (const path of ['/mcp', '/mcp/team', '/mcp/public']) {
        expect((await post(configured.url(path), initializeRequest())).status).toBe(401)
      }
      expect(configured.audit.named('session_opened')).toHaveLength(0)
    } finally {
      await configured.stop()
    }
  })

  it('refuses what the anonymous capability set lacks byte-identically to a resource that exists nowhere, and serves it once the set holds it', async () => {
    const anon = await RawSession.open(readOnly.url('/mcp/team'), undefined)
    const before = invoked(readOnly)
    const lacking = await notesList(anon)
    const nowhere = await anon.call('knowledge', {
      projectId: 'atlas',
      resource: 'nowhere',
      action: 'list',
    })
    expect(resultJson(lacking)).toEqual({
      error: { code: 'ERR_TOOL_NOT_FOUND', message: expect.any(String) },
    })
    expect(lacking.text).toBe(nowhere.text)
    // The dispatcher ran (its sentinel), the notes read did not: only knowledge invocations.
    expect(invoked(readOnly) - before).toBe(2)
    const exported = await anon.call('admin', { action: 'export', params: { projectId: 'atlas' } })
    expect(exported.text).toBe(nowhere.text)
    // The control: the same call, the same route, an anonymous set holding `notes`.
    const served = await notesList(await RawSession.open(withNotes.url('/mcp/team'), undefined))
    expect(toolResult(served).isError).toBeUndefined()
    expect((resultJson(served) as { notes: unknown[] }).notes.length).toBeGreaterThan(0)
  })

  it('keeps the route matrix for anonymous callers: team and public differ by the documents reads and admin', async () => {
    const team = await names(await RawSession.open(withNotes.url('/mcp/team'), undefined))
    const pub = await names(await RawSession.open(withNotes.url('/mcp/public'), undefined))
    expect(team.filter((n) => !pub.includes(n))).toEqual(['admin', 'knowledge.get'])
    expect(pub.filter((n) => !team.includes(n))).toEqual([])
    expect((await post(withNotes.url('/mcp'), initializeRequest())).status).toBe(401)
  })

  it('does not redeem a token minted by one anonymous caller for another anonymous caller, and serves it to the minter', async () => {
    const a = await RawSession.open(demo.url('/mcp/public'), undefined)
    const b = await RawSession.open(demo.url('/mcp/public'), undefined)
    const token = tokenOf(await a.call('project.list', {}))
    const refusedB = await b.call('continuation.fetch', { token })
    const unknown = await b.call('continuation.fetch', { token: `${token.slice(0, -4)}AAAA` })
    expect(toolResult(refusedB).isError).toBe(true)
    expect(refusedB.text).toBe(unknown.text)
    await demo.audit.waitFor(
      (e) => e.event === 'continuation_refused' && e.reason === 'continuation_owner_mismatch',
    )
    const servedA = await a.call('continuation.fetch', { token })
    expect(toolResult(servedA).isError).toBeUndefined()
    expect((resultJson(servedA) as { projects: unknown[] }).projects).toHaveLength(3)
  })

  it('counts every anonymous caller against one continuation quota: many anonymous sessions cannot evict a credential’s token', async () => {
    const server = await anonymousServer(
      ['read'],
      ['--heavy-threshold-bytes', '64', '--max-continuations-per-credential', '2'],
    )
    try {
      const bob = await RawSession.open(server.url('/mcp/public'), BOB)
      const bobToken = tokenOf(await bob.call('project.list', {}))
      const minted: { session: RawSession; token: string }[] = []
      for (let i = 0; i < 5; i++) {
        const session = await RawSession.open(server.url('/mcp/public'), undefined)
        minted.push({ session, token: tokenOf(await session.call('project.list', {})) })
      }
      const served = async (s: RawSession, token: string) =>
        toolResult(await s.call('continuation.fetch', { token })).isError !== true
      expect(await served(bob, bobToken)).toBe(true)
      // Five anonymous owners of one address, in the anonymous pool of two: the address holds
      // a quarter of it (one), and the four oldest paid with their own tokens.
      const held = []
      for (const m of minted) held.push(await served(m.session, m.token))
      expect(held).toEqual([false, false, false, false, true])
    } finally {
      await server.stop()
    }
  })

  it('answers an anonymous session id presented with a bearer credential, and a credential session id presented anonymously, as unknown sessions', async () => {
    const anon = await RawSession.open(demo.url('/mcp/public'), undefined)
    const token = (
      (await demo.audit.waitFor((e) => e.event === 'demo_credentials')).credentials as {
        token: string
      }[]
    )[0]!.token
    const owned = await RawSession.open(demo.url('/mcp/public'), token)
    const list = { jsonrpc: '2.0', id: 3, method: 'tools/list' }
    const version = { 'mcp-protocol-version': PROTOCOL_VERSION }
    const withBearer = await post(demo.url('/mcp/public'), list, {
      ...version,
      'mcp-session-id': anon.sessionId,
      authorization: `Bearer ${token}`,
    })
    const withoutBearer = await post(demo.url('/mcp/public'), list, {
      ...version,
      'mcp-session-id': owned.sessionId,
    })
    expect(withBearer.status).toBe(404)
    expect(withoutBearer.status).toBe(404)
    expect(withBearer.text).toBe(withoutBearer.text)
  })

  it('refuses to start on an anonymous config naming an unknown route or the admin capability, naming the field', async () => {
    for (const [anonymous, field] of [
      [{ routes: ['/mcp/nowhere'], capabilities: ['read'] }, 'config.anonymous.routes'],
      [
        { routes: ['/mcp/public'], capabilities: ['read', 'admin'] },
        'config.anonymous.capabilities',
      ],
    ] as const) {
      await expect(startServer(['--config', writeConfig({ anonymous })], false)).rejects.toThrow(
        field,
      )
    }
  })
})
