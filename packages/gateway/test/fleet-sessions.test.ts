// Three real gateways (each with its own stdio child) on one private redis-server, with
// `--max-sessions-per-principal 3`: one principal's session-era sessions, opened round robin
// over the three, stay within 3 (a lease each on Redis); the control, the same three without
// Redis, opens 3 on each (9). A session id minted by one instance is refused by another with
// 404 ERR_SESSION_ELSEWHERE, and the call never reaches that instance's upstream. A closed
// session frees its lease for the fleet, and so does a gateway killed with SIGKILL, within
// `--fleet-lease-ms`. Redis killed: each instance opens its local share (3 ÷ 3 = 1) and no more,
// and once Redis is back the fleet's count decides again, without a restart.
// Each test speaks as its own credential, so its leases are its own.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eventually } from '@tollgate/test-kit/eventually'
import {
  hasRedisServer,
  type RestartableRedis,
  startRestartableRedis,
} from '@tollgate/test-kit/redis-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashBearerToken } from '../src/config.js'
import {
  callBody,
  MISBEHAVING,
  post,
  type RpcAnswer,
  type RunningCli,
  recorded,
  recordFile,
  startCli,
} from './fixtures/run-gateway.js'

if (!hasRedisServer) {
  console.warn('\n\n*** SKIPPING the gateway fleet session tests: no redis-server on PATH ***\n\n')
}

const QUOTA = 3
const TOKENS = ['quota', 'control', 'elsewhere', 'closed', 'killed', 'outage'].map(
  (name) => `${name}-token-0123456789`,
)
const [QUOTA_T, CONTROL_T, ELSEWHERE_T, CLOSED_T, KILLED_T, OUTAGE_T] = TOKENS as [
  string,
  string,
  string,
  string,
  string,
  string,
]

function configFile(extra: Record<string, unknown>): string {
  const file = join(mkdtempSync(join(tmpdir(), 'gw-fleet-sessions-')), 'config.json')
  const credentials = TOKENS.map((t, i) => ({ name: `c${i}`, tokenSha256: hashBearerToken(t) }))
  writeFileSync(file, JSON.stringify({ credentials, routes: [{ path: '/mcp' }], ...extra }))
  return file
}

const start = (config: string, env: NodeJS.ProcessEnv = {}) =>
  startCli(
    [
      '--config',
      config,
      '--fleet-instances',
      '3',
      '--fleet-lease-ms',
      '3000',
      '--max-sessions-per-principal',
      String(QUOTA),
      '--',
      process.execPath,
      MISBEHAVING,
    ],
    env,
  )

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
})

const codeOf = (a: RpcAnswer) =>
  ((a.body?.error as { data?: { code?: string } } | undefined)?.data?.code ?? 'served') as string

/** One `initialize` as `token`: the session id, or the status and code of the refusal. */
async function open(g: RunningCli, token: string) {
  const a = await post(g.url, INITIALIZE, { authorization: `Bearer ${token}` })
  const id = a.headers.get('mcp-session-id')
  return {
    id: a.status === 200 && id !== null ? id : undefined,
    refusal: `${a.status} ${codeOf(a)}`,
    limit: (a.body?.error as { data?: { limit?: number } } | undefined)?.data?.limit,
    retryAfter: a.headers.get('retry-after'),
  }
}

/** `n` initializes as `token`, round robin over `fleet`. */
async function openMany(fleet: readonly RunningCli[], token: string, n: number) {
  const answers = []
  for (let i = 0; i < n; i++) answers.push(await open(fleet[i % fleet.length]!, token))
  return answers
}

const sessionHeaders = (token: string, id: string) => ({
  authorization: `Bearer ${token}`,
  'mcp-session-id': id,
  'mcp-protocol-version': '2025-06-18',
})

describe.runIf(hasRedisServer)('httpSessions: three gateways on one Redis', () => {
  let redis: RestartableRedis
  let fleet: RunningCli[] = []
  let alone: RunningCli[] = []
  const record = recordFile()

  beforeAll(async () => {
    redis = await startRestartableRedis()
    const shared = configFile({ redisUrl: redis.url })
    const local = configFile({})
    fleet = await Promise.all([
      start(shared),
      start(shared, { RECORD_FILE: record }),
      start(shared),
    ])
    alone = await Promise.all([start(local), start(local), start(local)])
  }, 90_000)
  afterAll(async () => {
    await Promise.all([...fleet, ...alone].map((g) => g.stop('SIGKILL')))
    await redis?.stop()
  })

  it('holds one principal to its session quota across the fleet, refusing the rest with 429 ERR_SESSION_QUOTA and Retry-After', async () => {
    const answers = await openMany(fleet, QUOTA_T, 4 * QUOTA)
    const admitted = answers.filter((a) => a.id !== undefined)
    expect(admitted.length).toBe(QUOTA)
    const refused = answers.filter((a) => a.id === undefined)
    expect(new Set(refused.map((r) => r.refusal))).toEqual(new Set(['429 ERR_SESSION_QUOTA']))
    expect(refused.every((r) => r.limit === QUOTA && Number(r.retryAfter) >= 1)).toBe(true)
  })

  it('control: without a Redis the same drive opens the quota on each of the three', async () => {
    const answers = await openMany(alone, CONTROL_T, 4 * QUOTA)
    expect(answers.filter((a) => a.id !== undefined).length).toBe(3 * QUOTA)
  })

  it('refuses a session id minted by another instance with 404 ERR_SESSION_ELSEWHERE, and its call never reaches that upstream', async () => {
    const [a, b] = fleet as [RunningCli, RunningCli]
    const { id } = await open(a, ELSEWHERE_T)
    expect(id).toBeDefined()
    const headers = sessionHeaders(ELSEWHERE_T, id as string)
    const there = await post(b.url, callBody(7, 'echo', { message: 'sentinel-elsewhere' }), headers)
    expect(there.status).toBe(404)
    expect(codeOf(there)).toBe('ERR_SESSION_ELSEWHERE')
    expect((there.body?.error as { code?: number } | undefined)?.code).toBe(-32018)
    expect(JSON.stringify(recorded(record))).not.toContain('sentinel-elsewhere')
    // The instance that minted it serves it; an id of its own shape that it never minted is
    // not found, not elsewhere.
    await post(a.url, '{"jsonrpc":"2.0","method":"notifications/initialized"}', headers)
    const home = await post(a.url, callBody(8, 'echo', { message: 'home' }), headers)
    expect(home.status).toBe(200)
    expect(codeOf(home)).toBe('served')
    const forged = `${(id as string).split('.')[0]}.${'A'.repeat(22)}`
    const unknown = await post(a.url, callBody(9, 'echo', { message: 'x' }), {
      ...headers,
      'mcp-session-id': forged,
    })
    expect([unknown.status, codeOf(unknown)]).toEqual([404, 'ERR_SESSION_UNKNOWN'])
  })

  it('gives a closed session back to the fleet: after a DELETE on one instance, another opens one', async () => {
    const opened = await openMany(fleet, CLOSED_T, QUOTA)
    expect(opened.every((o) => o.id !== undefined)).toBe(true)
    expect((await open(fleet[2]!, CLOSED_T)).refusal).toBe('429 ERR_SESSION_QUOTA')
    const res = await fetch(fleet[0]!.url, {
      method: 'DELETE',
      headers: sessionHeaders(CLOSED_T, opened[0]!.id as string),
    })
    expect(res.status).toBe(200)
    expect(
      await eventually(async () => (await open(fleet[2]!, CLOSED_T)).id !== undefined, 20_000),
    ).toBe(true)
  })

  it('frees the sessions of a gateway killed with SIGKILL within its lease', async () => {
    const opened = await openMany(fleet, KILLED_T, QUOTA)
    expect(opened.every((o) => o.id !== undefined)).toBe(true)
    expect((await open(fleet[1]!, KILLED_T)).refusal).toBe('429 ERR_SESSION_QUOTA')
    // fleet[2] holds one of the three; killed, it renews nothing and its lease expires.
    await fleet[2]!.stop('SIGKILL')
    expect(
      await eventually(async () => (await open(fleet[1]!, KILLED_T)).id !== undefined, 30_000, 250),
    ).toBe(true)
    expect((await open(fleet[0]!, KILLED_T)).refusal).toBe('429 ERR_SESSION_QUOTA')
  }, 60_000)

  it('while Redis is down, opens the local share (quota ÷ 3) on an instance and refuses the next', async () => {
    const [g] = fleet as [RunningCli]
    await redis.kill()
    const first = await open(g, OUTAGE_T)
    const second = await open(g, OUTAGE_T)
    expect(first.id).toBeDefined()
    expect([second.refusal, second.limit]).toEqual(['429 ERR_SESSION_QUOTA', 1])
    expect(
      g
        .logs()
        .filter((l) => l.event === 'limit_store_unavailable' && l.limit === 'gateway.sessions')
        .length,
    ).toBe(1)
    // Recovered without a restart: the fleet's count again (the fresh Redis holds none of them).
    await redis.start()
    expect(
      await eventually(async () => (await open(g, OUTAGE_T)).id !== undefined, 30_000, 250),
    ).toBe(true)
    expect(
      g.logs().some((l) => l.event === 'limit_store_recovered' && l.limit === 'gateway.sessions'),
    ).toBe(true)
  }, 60_000)
})
