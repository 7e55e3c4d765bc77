// Continuations shared through Redis by two server processes (`--redis-url`), live: the same
// re-authorization holds across instances, and with Redis stopped redemption and mint fail
// closed (capabilities are read from the same Redis first) while the server stays up. The shared tests use CI's
// TOLLGATE_REDIS_URL or a private redis-server; the fault test always uses its own (it kills it).
import { spawnSync } from 'node:child_process'
import { createToken } from '@tollgate/continuation'
import { freePort, hasRedisServer, startRedis } from '@tollgate/test-kit/redis-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fetchToken, mintGroup } from './helpers/continuations.js'
import { type RawResponse, RawSession, resultJson, toolResult } from './helpers/raw-client.js'
import { sharedRedis, sharedRedisUrl } from './helpers/redis.js'
import { ALICE, type LiveServer, MAIN, startServer, writeConfig } from './helpers/server.js'

const sharedAvailable = sharedRedisUrl !== undefined || hasRedisServer
if (!sharedAvailable) {
  console.warn(
    '\n\n*** SKIPPING the multi-instance Redis tests: no TOLLGATE_REDIS_URL and no redis-server on PATH ***\n\n',
  )
}
if (!hasRedisServer) {
  console.warn('\n\n*** SKIPPING the Redis fault test: no redis-server on PATH ***\n\n')
}

const served = (res: RawResponse) => toolResult(res).isError === undefined

describe.runIf(sharedAvailable)('--redis-url with two instances', () => {
  let redis: { url: string; stop(): Promise<void> } | undefined
  let one: LiveServer
  let two: LiveServer
  let memory: LiveServer

  beforeAll(async () => {
    redis = await sharedRedis()
    const ttl = ['--continuation-ttl-ms', '60000']
    // One instance takes the flag, the other the config file's `redisUrl`.
    const fromConfig = ['--config', writeConfig({ redisUrl: redis!.url }), ...ttl]
    ;[one, two, memory] = await Promise.all([
      startServer(['--redis-url', redis!.url, ...ttl]),
      startServer(fromConfig, false),
      startServer(),
    ])
  })
  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop(), memory?.stop()])
    await redis?.stop()
  })

  it('serves a token minted on one instance when it is redeemed on the other (same route, same credential)', async () => {
    const token = await mintGroup(await RawSession.open(one.url('/mcp/team'), ALICE))
    const res = await fetchToken(await RawSession.open(two.url('/mcp/team'), ALICE), token)
    expect(served(res)).toBe(true)
    const doc = resultJson(res) as { id: string; body: string }
    expect(doc.id).toBe('atlas-handbook')
    expect(Buffer.byteLength(doc.body)).toBeGreaterThan(64 * 1024)
    // Instance two minted nothing: what it served came from the shared store.
    expect(two.audit.named('continuation_minted')).toHaveLength(0)
    expect(two.audit.named('continuation_served')).toHaveLength(1)
    // Without the shared store (the default per-process memory) the same token is unknown there.
    const alone = await fetchToken(await RawSession.open(memory.url('/mcp/team'), ALICE), token)
    expect(toolResult(alone).isError).toBe(true)
    expect(memory.audit.named('continuation_refused').at(-1)).toMatchObject({
      reason: 'continuation_unknown',
    })
  })

  it('refuses a token minted on the team route of one instance on the public route of the other, byte-identically to an unknown token, and audits continuation_route_not_authorized', async () => {
    const token = await mintGroup(await RawSession.open(one.url('/mcp/team'), ALICE))
    const pub = await RawSession.open(two.url('/mcp/public'), ALICE)
    const crossRoute = await fetchToken(pub, token)
    const unknown = await fetchToken(pub, createToken())
    expect(toolResult(crossRoute).isError).toBe(true)
    expect(crossRoute.status).toBe(unknown.status)
    expect(crossRoute.text).toBe(unknown.text)
    const reasons = two.audit.named('continuation_refused').map((e) => e.reason)
    expect(reasons.slice(-2)).toEqual(['continuation_route_not_authorized', 'continuation_unknown'])
    // The refusal was the route check's: the token is served on the route that authorizes it.
    expect(
      served(await fetchToken(await RawSession.open(two.url('/mcp/team'), ALICE), token)),
    ).toBe(true)
  })
})

describe.runIf(hasRedisServer)('--redis-url when Redis stops', () => {
  it('fails closed on redemption and mint with one token-independent refusal, and the server stays up', async () => {
    const redis = await startRedis()
    const args = ['--redis-url', redis.url]
    const [one, two] = await Promise.all([startServer(args), startServer(args)])
    try {
      const token = await mintGroup(await RawSession.open(one.url('/mcp/team'), ALICE))
      const team = await RawSession.open(two.url('/mcp/team'), ALICE)

      await redis.stop()

      // Capabilities live in the same Redis and are read first: the call is refused before the
      // token is looked at, so a live token and an unknown one get the same bytes.
      const down = await fetchToken(team, token)
      const unknown = await fetchToken(team, createToken())
      expect(toolResult(down).isError).toBe(true)
      expect(down.text).toBe(unknown.text)
      expect(JSON.parse(toolResult(down).content[0]!.text)).toMatchObject({
        error: { code: 'ERR_CAPABILITIES_UNAVAILABLE' },
      })
      expect(two.audit.named('continuation_served')).toHaveLength(0)
      // Mint fails closed too: a small tool error, no token.
      const heavy = await team.call('knowledge', {
        projectId: 'atlas',
        resource: 'documents',
        action: 'get',
        id: 'atlas-handbook',
      })
      expect(JSON.parse(toolResult(heavy).content[0]!.text)).toMatchObject({
        error: { code: 'ERR_CAPABILITIES_UNAVAILABLE' },
      })
      // Still up: both instances answer (every capability check refuses), neither exited.
      for (const s of [team, await RawSession.open(one.url('/mcp/team'), ALICE)]) {
        const listed = await s.call('project.list', {})
        expect(JSON.parse(toolResult(listed).content[0]!.text)).toMatchObject({
          error: { code: 'ERR_CAPABILITIES_UNAVAILABLE' },
        })
      }
      expect(one.child.exitCode).toBeNull()
      expect(two.child.exitCode).toBeNull()
      // The outage is audited once per instance, and the URL (it may carry a password) never.
      await two.audit.waitFor((e) => e.event === 'redis_unavailable' && e.store === 'continuation')
      expect(
        two.audit.named('redis_unavailable').filter((e) => e.store === 'continuation'),
      ).toHaveLength(1)
      expect(two.audit.raw.join('\n')).not.toContain(redis.url)
    } finally {
      await Promise.all([one.stop(), two.stop()])
      await redis.stop()
    }
  })
})

describe('--redis-url at start', () => {
  const start = (args: string[]) =>
    spawnSync(process.execPath, [MAIN, '--port', '0', ...args], { encoding: 'utf8' })

  it('refuses to start on a URL that is not redis:// or rediss://, naming the flag or the config field', () => {
    const flag = start(['--redis-url', 'http://127.0.0.1:6379'])
    expect(flag.status).toBe(1)
    expect(flag.stderr).toContain('--redis-url')
    const field = start(['--config', writeConfig({ redisUrl: 'not a url' })])
    expect(field.status).toBe(1)
    expect(field.stderr).toContain('config.redisUrl')
  })

  it('refuses to start when Redis cannot be reached, instead of serving without a shared store', async () => {
    const nobody = await freePort()
    const res = start(['--config', writeConfig(), '--redis-url', `redis://127.0.0.1:${nobody}`])
    expect(res.status).toBe(1)
    expect(res.stderr).toContain('--redis-url')
    expect(res.stderr).not.toContain('"event":"listening"')
  })
})
