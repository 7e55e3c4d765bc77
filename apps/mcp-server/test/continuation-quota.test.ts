// Live: one credential minting heavy results in batches of 100 (one POST each) used to
// push another credential's seconds-old continuation out of the shared 1,000-entry memory store
// (it became `continuation_unknown`). With the per-credential quota (default 100,
// `--max-continuations-per-credential`) a credential's mints evict only its own oldest
// continuations. Real server process, real HTTP, raw JSON-RPC. The control removed (no quota:
// the other owner's token is evicted) is held in @tollgate/continuation's store tests. The Redis
// case uses CI's TOLLGATE_REDIS_URL or a private redis-server.
import { spawnSync } from 'node:child_process'
import { hasRedisServer } from '@tollgate/test-kit/redis-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fetchToken, mintGroup } from './helpers/continuations.js'
import { type RawResponse, RawSession, toolResult } from './helpers/raw-client.js'
import { sharedRedis, sharedRedisUrl } from './helpers/redis.js'
import { ALICE, BOB, type LiveServer, MAIN, startServer, writeConfig } from './helpers/server.js'

let server: LiveServer
let small: LiveServer

beforeAll(async () => {
  ;[server, small] = await Promise.all([
    startServer(),
    startServer(['--max-continuations-per-credential', '3']),
  ])
})
afterAll(async () => {
  await Promise.all([server?.stop(), small?.stop()])
})

const served = (res: RawResponse) => toolResult(res).isError === undefined

const heavyCall = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {
    name: 'knowledge',
    arguments: { projectId: 'atlas', resource: 'documents', action: 'get', id: 'atlas-handbook' },
  },
})

/** Mints `batches` × 100 heavy results, one POST per batch of 100; returns the tokens in order. */
async function flood(session: RawSession, batches: number): Promise<string[]> {
  const tokens: string[] = []
  for (let b = 0; b < batches; b++) {
    const res = await session.post(Array.from({ length: 100 }, (_, i) => heavyCall(b * 100 + i)))
    expect(res.status).toBe(200)
    const answers = JSON.parse(res.text) as {
      id: number
      result: { content: { text: string }[] }
    }[]
    answers.sort((x, y) => x.id - y.id)
    for (const a of answers) {
      tokens.push(
        (JSON.parse(a.result.content[0]!.text) as { continuation: { token: string } }).continuation
          .token,
      )
    }
  }
  return tokens
}

describe('continuations per credential', () => {
  it('keeps another credential’s fresh token served while one credential mints 1,100 heavy results in batches of 100', async () => {
    const bob = await RawSession.open(server.url('/mcp/team'), BOB)
    const alice = await RawSession.open(server.url('/mcp/team'), ALICE)
    const bobToken = await mintGroup(bob)
    const aliceTokens = await flood(alice, 11)
    expect(aliceTokens).toHaveLength(1100)
    // 1,101 mints into a 1,000-entry store: without the quota Bob's token was the first to go.
    expect(served(await fetchToken(bob, bobToken))).toBe(true)
    // Alice paid with her own oldest continuation, and still holds her newest.
    expect(served(await fetchToken(alice, aliceTokens[0]!))).toBe(false)
    const refusal = await server.audit.waitFor((e) => e.event === 'continuation_refused')
    expect(refusal.reason).toBe('continuation_unknown')
    expect(served(await fetchToken(alice, aliceTokens.at(-1)!))).toBe(true)
  })

  it('holds --max-continuations-per-credential: the fourth mint of a quota of 3 evicts that credential’s first, never another’s', async () => {
    const bob = await RawSession.open(small.url('/mcp/team'), BOB)
    const alice = await RawSession.open(small.url('/mcp/team'), ALICE)
    const bobToken = await mintGroup(bob)
    const mine = [] as string[]
    for (let i = 0; i < 4; i++) mine.push(await mintGroup(alice))
    expect(served(await fetchToken(bob, bobToken))).toBe(true)
    expect(served(await fetchToken(alice, mine[0]!))).toBe(false)
    for (const token of mine.slice(1)) expect(served(await fetchToken(alice, token))).toBe(true)
  })

  it('refuses at start a --max-continuations-per-credential that is not 1–1,000, naming the flag', () => {
    for (const bad of ['0', '1001', 'many']) {
      const run = spawnSync(
        process.execPath,
        [MAIN, '--port', '0', '--config', writeConfig(), '--max-continuations-per-credential', bad],
        { encoding: 'utf8', timeout: 20_000 },
      )
      expect(run.status).toBe(1)
      expect(run.stderr).toContain('--max-continuations-per-credential')
    }
  })
})

const redisAvailable = sharedRedisUrl !== undefined || hasRedisServer

describe.runIf(redisAvailable)(
  'continuations per credential with two instances on one Redis',
  () => {
    it('holds the quota across instances: mints split over two servers evict only that credential’s oldest', async () => {
      const redis = await sharedRedis()
      // Credentials of this run only: on a Redis other test files share, their owners' entries
      // are neither counted against these quotas nor evicted by them.
      const run = `${process.pid}-${Date.now()}`
      const credential = (id: string, token: string) => ({
        id: `${id}-${run}`,
        token,
        capabilities: ['read', 'documents', 'notes'],
      })
      const flood = `${ALICE}-quota`
      const victim = `${BOB}-quota`
      const config = writeConfig({
        credentials: [credential('flood', flood), credential('victim', victim)],
      })
      const flags = ['--config', config, '--redis-url', redis!.url]
      flags.push('--max-continuations-per-credential', '3')
      const [one, two] = await Promise.all([startServer(flags, false), startServer(flags, false)])
      try {
        const bob = await RawSession.open(one.url('/mcp/team'), victim)
        const aliceOne = await RawSession.open(one.url('/mcp/team'), flood)
        const aliceTwo = await RawSession.open(two.url('/mcp/team'), flood)
        const bobToken = await mintGroup(bob)
        const mine = [] as string[]
        for (let i = 0; i < 6; i++) mine.push(await mintGroup(i % 2 === 0 ? aliceOne : aliceTwo))
        const bobTwo = await RawSession.open(two.url('/mcp/team'), victim)
        expect(served(await fetchToken(bobTwo, bobToken))).toBe(true)
        const live = []
        for (const token of mine) live.push(served(await fetchToken(aliceTwo, token)))
        expect(live).toEqual([false, false, false, true, true, true])
      } finally {
        await Promise.all([one.stop(), two.stop()])
        await redis?.stop()
      }
    })
  },
)
