// Two real server processes behind one loopback address (a proxy that routes by
// Mcp-Session-Id), on one real redis-server: grants and revocations made through either
// instance hold on both from the next call on, continuation redemption included; while Redis
// refuses the instances every capability check fails closed, and they recover without a
// restart. Without --redis-url (the per-process table) the revocation does not cross.

import { eventually } from '@tollgate/test-kit/eventually'
import { hasRedisServer, type RedisProcess, startRedis } from '@tollgate/test-kit/redis-server'
import { createClient } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fetchToken, mintGroup } from './helpers/continuations.js'
import { type RawResponse, RawSession, resultJson, toolResult } from './helpers/raw-client.js'
import { ALICE, BOB, type LiveServer, startServer } from './helpers/server.js'
import { type SessionProxy, startSessionProxy } from './helpers/session-proxy.js'

if (!hasRedisServer) {
  console.warn('\n\n*** SKIPPING the scale-out tests: no redis-server on PATH ***\n\n')
}

const served = (res: RawResponse) => toolResult(res).isError === undefined
const errorCode = (res: RawResponse) =>
  (resultJson(res) as { error?: { code?: string } }).error?.code

const getHandbook = (s: RawSession) =>
  s.call('knowledge.get', { projectId: 'atlas', documentId: 'atlas-handbook' })

const setCapability = (admin: RawSession, action: 'revoke' | 'grant', capability: string) =>
  admin.call('admin', { action, params: { credentialId: 'bob', capability } })

/** Opens sessions through the proxy until one is placed on instance `index` (round robin: at most one extra). */
async function openOn(
  proxy: SessionProxy,
  index: number,
  path: string,
  token: string,
): Promise<RawSession> {
  for (let i = 0; i < 2; i += 1) {
    const session = await RawSession.open(proxy.url(path), token)
    if (proxy.instanceOf(session.sessionId) === index) return session
  }
  throw new Error(`no session placed on instance ${index}`)
}

describe.runIf(hasRedisServer)('two instances on one Redis, behind a session-routing proxy', () => {
  let redis: RedisProcess
  let one: LiveServer
  let two: LiveServer
  let proxy: SessionProxy

  beforeAll(async () => {
    redis = await startRedis()
    const args = ['--redis-url', redis.url, '--continuation-ttl-ms', '60000']
    ;[one, two] = await Promise.all([startServer(args), startServer(args)])
    proxy = await startSessionProxy([one.port, two.port])
  })
  afterAll(async () => {
    await proxy?.close()
    await Promise.all([one?.stop(), two?.stop()])
    await redis?.stop()
  })

  it('keeps each session on the instance that created it and redeems on one a continuation minted on the other', async () => {
    const bobOne = await openOn(proxy, 0, '/mcp/team', BOB)
    const bobTwo = await openOn(proxy, 1, '/mcp/team', BOB)
    const token = await mintGroup(bobOne)
    const res = await fetchToken(bobTwo, token)
    expect(served(res)).toBe(true)
    expect((resultJson(res) as { id: string }).id).toBe('atlas-handbook')
    expect(one.audit.named('continuation_minted').length).toBeGreaterThan(0)
    expect(two.audit.named('continuation_served').length).toBeGreaterThan(0)
  })

  it('refuses on the other instance, from the next call, what a revocation on one took away: the flat tool, the dispatcher and the redemption; a grant on either restores it on both', async () => {
    const bobOne = await openOn(proxy, 0, '/mcp/team', BOB)
    const bobTwo = await openOn(proxy, 1, '/mcp/team', BOB)
    const adminOne = await openOn(proxy, 0, '/mcp', ALICE)
    const adminTwo = await openOn(proxy, 1, '/mcp', ALICE)
    const minted = await mintGroup(bobOne)
    expect(served(await getHandbook(bobTwo))).toBe(true)

    const revoked = await setCapability(adminOne, 'revoke', 'documents')
    expect(resultJson(revoked)).toMatchObject({ changed: true, capabilities: ['read', 'notes'] })

    // The very next calls on instance two: no wait, no propagation delay to sit out.
    const redeemed = await fetchToken(bobTwo, minted)
    expect(served(redeemed)).toBe(false)
    expect(errorCode(redeemed)).toBe('ERR_CONTINUATION_EXPIRED_OR_UNKNOWN')
    expect(two.audit.named('continuation_refused').at(-1)).toMatchObject({
      reason: 'continuation_capability_revoked',
    })
    for (const res of [
      await getHandbook(bobTwo),
      await bobTwo.call('knowledge', {
        projectId: 'atlas',
        resource: 'documents',
        action: 'list',
      }),
    ]) {
      expect(served(res)).toBe(false)
      expect(res.text).not.toContain('Atlas')
    }
    expect(two.audit.named('call_refused').slice(-2)).toMatchObject([
      { reason: 'tool_not_found', credential: 'bob' },
      { reason: 'tool_not_found', credential: 'bob' },
    ])
    // The instance that answered the revocation refuses as well (the single-instance case).
    expect(served(await getHandbook(bobOne))).toBe(false)

    const granted = await setCapability(adminTwo, 'grant', 'documents')
    expect(resultJson(granted)).toMatchObject({ changed: true })
    expect(served(await getHandbook(bobOne))).toBe(true)
    expect(served(await fetchToken(bobOne, await mintGroup(bobTwo)))).toBe(true)
  })

  it('fails closed with ERR_CAPABILITIES_UNAVAILABLE while Redis refuses the instances, and serves again once Redis is back, without a restart', async () => {
    const bobOne = await openOn(proxy, 0, '/mcp/team', BOB)
    const bobTwo = await openOn(proxy, 1, '/mcp/team', BOB)
    const adminOne = await openOn(proxy, 0, '/mcp', ALICE)
    const token = await mintGroup(bobTwo)
    const control = createClient({ url: redis.url })
    await control.connect()
    const servedBefore = two.audit.named('continuation_served').length
    const revokedBefore = one.audit.named('capability_revoked').length
    try {
      // The outage: the instances' user is switched off and their connections dropped, so
      // every reconnection is refused while this one control connection stays.
      await control.sendCommand(['ACL', 'SETUSER', 'default', 'off'])
      await control.sendCommand(['CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes'])

      for (const res of [
        await getHandbook(bobOne),
        await bobOne.call('project.list', {}),
        await fetchToken(bobTwo, token),
        await setCapability(adminOne, 'revoke', 'documents'),
      ]) {
        expect(served(res)).toBe(false)
        expect(errorCode(res)).toBe('ERR_CAPABILITIES_UNAVAILABLE')
        expect(res.text).not.toContain('Atlas')
      }
      expect(one.audit.named('call_refused').at(-1)).toMatchObject({
        reason: 'capabilities_unavailable',
      })
      // Nothing was redeemed, the refused revocation was not recorded, no process went down.
      expect(two.audit.named('continuation_served')).toHaveLength(servedBefore)
      expect(one.audit.named('capability_revoked')).toHaveLength(revokedBefore)
      expect(one.child.exitCode).toBeNull()
      expect(two.child.exitCode).toBeNull()
      await one.audit.waitFor((e) => e.event === 'redis_unavailable' && e.store === 'capability')

      await control.sendCommand(['ACL', 'SETUSER', 'default', 'on'])
      expect(await eventually(async () => served(await getHandbook(bobOne)), 15_000, 200)).toBe(
        true,
      )
      expect(
        await eventually(async () => served(await fetchToken(bobTwo, token)), 15_000, 200),
      ).toBe(true)
      await one.audit.waitFor((e) => e.event === 'redis_recovered' && e.store === 'capability')
    } finally {
      await control.sendCommand(['ACL', 'SETUSER', 'default', 'on']).catch(() => {})
      control.destroy()
    }
  })

  // Last in this block: afterwards every instance refuses until it is restarted.
  it('refuses every call once Redis has lost the recorded decisions, instead of reverting a revoked credential to its configured capabilities', async () => {
    const bobTwo = await openOn(proxy, 1, '/mcp/team', BOB)
    const adminOne = await openOn(proxy, 0, '/mcp', ALICE)
    expect(resultJson(await setCapability(adminOne, 'revoke', 'documents'))).toMatchObject({
      capabilities: ['read', 'notes'],
    })
    expect(served(await getHandbook(bobTwo))).toBe(false)
    const control = createClient({ url: redis.url })
    await control.connect()
    try {
      // What a Redis restarted without persistence, flushed or evicting looks like.
      await control.sendCommand(['FLUSHALL'])
    } finally {
      control.destroy()
    }
    const res = await getHandbook(bobTwo)
    expect(errorCode(res)).toBe('ERR_CAPABILITIES_UNAVAILABLE')
    expect(res.text).not.toContain('Atlas')
    expect(two.audit.named('capability_state_lost')).toHaveLength(1)
    // It stays refused: only a restart, an operator's decision, accepts the configured sets.
    expect(errorCode(await bobTwo.call('project.list', {}))).toBe('ERR_CAPABILITIES_UNAVAILABLE')
    expect(two.audit.named('capability_state_lost')).toHaveLength(1)
  })
})

describe('two instances without --redis-url (the per-process credential table)', () => {
  let one: LiveServer
  let two: LiveServer
  let proxy: SessionProxy

  beforeAll(async () => {
    ;[one, two] = await Promise.all([startServer(), startServer()])
    proxy = await startSessionProxy([one.port, two.port])
  })
  afterAll(async () => {
    await proxy?.close()
    await Promise.all([one?.stop(), two?.stop()])
  })

  it('still serves on the other instance what a revocation on one took away (what the shared table ends)', async () => {
    const bobTwo = await openOn(proxy, 1, '/mcp/team', BOB)
    const adminOne = await openOn(proxy, 0, '/mcp', ALICE)
    expect(resultJson(await setCapability(adminOne, 'revoke', 'documents'))).toMatchObject({
      changed: true,
    })
    expect(served(await getHandbook(bobTwo))).toBe(true)
  })
})
