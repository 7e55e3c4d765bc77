// Cross-route redemption and redemption after revocation, live: two routes with the same read
// ceiling (so a ceiling-only check would pass) and different surfaces,
// one credential, a raw JSON-RPC client, revocation through the admin tool. Nothing private is
// assigned: every capability change goes through the server's own `admin` dispatcher.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fetchToken, mintGroup, tokenOf } from './helpers/continuations.js'
import { type RawResponse, RawSession, resultJson, toolResult } from './helpers/raw-client.js'
import { ALICE, type LiveServer, startServer } from './helpers/server.js'

let server: LiveServer
let shortLived: LiveServer

beforeAll(async () => {
  ;[server, shortLived] = await Promise.all([
    startServer(),
    startServer(['--continuation-ttl-ms', '1']),
  ])
})
afterAll(async () => {
  await Promise.all([server.stop(), shortLived.stop()])
})

const mintClass = async (s: RawSession) =>
  tokenOf(await s.call('admin', { action: 'export', params: { projectId: 'borealis' } }))
const served = (res: RawResponse) => toolResult(res).isError === undefined
const admin = (s: RawSession, action: 'revoke' | 'grant', capability: string) =>
  s.call('admin', { action, params: { credentialId: 'alice', capability } }, 50)

describe('continuation.fetch across routes', () => {
  it('serves a token minted on the team route when it is redeemed on the team route', async () => {
    const team = await RawSession.open(server.url('/mcp/team'), ALICE)
    const token = await mintGroup(team)
    const res = await fetchToken(team, token)
    expect(served(res)).toBe(true)
    const doc = resultJson(res) as { id: string; body: string }
    expect(doc.id).toBe('atlas-handbook')
    expect(Buffer.byteLength(doc.body)).toBeGreaterThan(64 * 1024)
  })

  it('refuses a team-minted token on the public route byte-identically to an expired token and audits continuation_route_not_authorized', async () => {
    const team = await RawSession.open(server.url('/mcp/team'), ALICE)
    const pub = await RawSession.open(server.url('/mcp/public'), ALICE)
    const token = await mintGroup(team)
    const crossRoute = await fetchToken(pub, token)

    const shortTeam = await RawSession.open(shortLived.url('/mcp/team'), ALICE)
    const expiredToken = await mintGroup(shortTeam)
    await shortLived.audit.waitFor((e) => e.event === 'continuation_minted')
    await new Promise((resolve) => setTimeout(resolve, 20))
    const expired = await fetchToken(shortTeam, expiredToken)

    expect(toolResult(crossRoute).isError).toBe(true)
    expect(crossRoute.status).toBe(expired.status)
    expect(crossRoute.text).toBe(expired.text)
    const refusal = await server.audit.waitFor((e) => e.event === 'continuation_refused')
    expect(refusal).toMatchObject({
      reason: 'continuation_route_not_authorized',
      route: '/mcp/public',
    })
    const expiredAudit = await shortLived.audit.waitFor((e) => e.event === 'continuation_refused')
    // Past its TTL the memory store has dropped the entry (unknown) or still holds it (expired):
    // either way a genuinely expired token.
    expect(['continuation_expired', 'continuation_unknown']).toContain(expiredAudit.reason)
    // The token still works where it is authorized: the refusal was the route check's.
    expect(served(await fetchToken(team, token))).toBe(true)
  })

  it('serves a token redeemed under a different Mcp-Session-Id on the same route', async () => {
    const first = await RawSession.open(server.url('/mcp/team'), ALICE)
    const second = await RawSession.open(server.url('/mcp/team'), ALICE)
    expect(second.sessionId).not.toBe(first.sessionId)
    const token = await mintGroup(first)
    expect(served(await fetchToken(second, token))).toBe(true)
  })
})

describe('redemption after revocation', () => {
  it('refuses a class-dispatcher token after export is revoked and still serves a group token whose capability is retained', async () => {
    const full = await RawSession.open(server.url('/mcp'), ALICE)
    const group = await mintGroup(full)
    const klass = await mintClass(full)
    expect(toolResult(await admin(full, 'revoke', 'export')).isError).toBeUndefined()
    try {
      const refused = await full.call('continuation.fetch', { token: klass })
      expect(JSON.parse(toolResult(refused).content[0]!.text).error.code).toBe(
        'ERR_CONTINUATION_EXPIRED_OR_UNKNOWN',
      )
      expect(served(await fetchToken(full, group))).toBe(true)
      const audit = server.audit.named('continuation_refused').at(-1)
      expect(audit).toMatchObject({
        reason: 'continuation_capability_revoked',
        target: 'admin.export',
      })
    } finally {
      await admin(full, 'grant', 'export')
    }
    expect(served(await fetchToken(full, klass))).toBe(true)
  })

  it('refuses a group-dispatcher token after documents is revoked and still serves a class token whose capability is retained', async () => {
    const full = await RawSession.open(server.url('/mcp'), ALICE)
    const group = await mintGroup(full)
    const klass = await mintClass(full)
    await admin(full, 'revoke', 'documents')
    try {
      const viaGroup = await full.call('knowledge', {
        projectId: 'atlas',
        resource: 'notes',
        action: 'list',
        continuation: group,
      })
      expect(toolResult(viaGroup).isError).toBe(true)
      expect(toolResult(await fetchToken(full, group)).isError).toBe(true)
      expect(served(await fetchToken(full, klass))).toBe(true)
      const audit = server.audit.named('continuation_refused').at(-1)
      expect(audit).toMatchObject({
        reason: 'continuation_capability_revoked',
        target: 'knowledge.documents.get',
      })
    } finally {
      await admin(full, 'grant', 'documents')
    }
    expect(served(await fetchToken(full, group))).toBe(true)
  })

  it('ignores an action forged into the redemption call in favour of the action recorded at mint', async () => {
    const full = await RawSession.open(server.url('/mcp'), ALICE)
    const klass = await mintClass(full)
    await admin(full, 'revoke', 'export')
    try {
      // `stats` needs only `read`, which alice still holds; the recorded `export` is what counts.
      const forged = await full.call('admin', { action: 'stats', continuation: klass })
      expect(toolResult(forged).isError).toBe(true)
      expect(JSON.parse(toolResult(forged).content[0]!.text).error.code).toBe(
        'ERR_CONTINUATION_EXPIRED_OR_UNKNOWN',
      )
    } finally {
      await admin(full, 'grant', 'export')
    }
    const again = await full.call('admin', { action: 'stats', continuation: klass })
    const payload = resultJson(again) as { project: { id: string }; documents: unknown[] }
    // Served as the recorded export, not as the forged stats.
    expect(payload.project.id).toBe('borealis')
    expect(payload.documents.length).toBeGreaterThan(0)
  })
})
