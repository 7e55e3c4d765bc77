// Three real server processes on one private redis-server (this file's own, so it can be killed
// mid-run) driven by one principal, each request to the next instance in turn (a balancer
// without affinity on the 2026 path): the aggregate each per-principal limit admits stays
// within the limit (× 1.05, plus what the rate refills during the drive), a lease of a killed
// instance is freed when it expires, a continuation minted on one instance is served by
// another, a revocation on one is refused on the others at the next call, and a Redis outage
// gives each limit its stated rule (rate: 503 ERR_QUOTA_UNAVAILABLE; sessions: a local share of
// limit ÷ instances), audited once, and the fleet recovers without a restart. The control: the
// same three instances without --redis-url admit about three times each limit.
import { type ClientRequest, request } from 'node:http'
import { eventually } from '@tollgate/test-kit/eventually'
import { PROTOCOL_VERSION } from '@tollgate/test-kit/mcp-initialize'
import {
  hasRedisServer,
  type RestartableRedis,
  startRestartableRedis,
} from '@tollgate/test-kit/redis-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fetchToken, mintGroup } from './helpers/continuations.js'
import { call2026, MODERN_META, MODERN_VERSION } from './helpers/modern-client.js'
import { RawSession, toolResult } from './helpers/raw-client.js'
import { ALICE, BOB, type LiveServer, startServer } from './helpers/server.js'

if (!hasRedisServer) {
  console.warn('\n\n*** SKIPPING the fleet tests: no redis-server on PATH ***\n\n')
}

const RATE = 30
const IN_FLIGHT = 4
const SESSIONS = 3
const LEASE_MS = 3000
const LIMITS = [
  ['--requests-per-minute-per-principal', String(RATE)],
  ['--max-requests-in-flight-per-principal', String(IN_FLIGHT)],
  ['--max-sessions-per-credential', String(SESSIONS)],
  ['--fleet-instances', '3'],
  ['--fleet-lease-ms', String(LEASE_MS)],
].flat()

const dataCode = (text: string) =>
  (JSON.parse(text) as { error?: { data?: { code?: string } } }).error?.data?.code

/** `calls` 2026 `project.list` calls by BOB, round robin; what was admitted and refused, and how long it took. */
async function driveRate(fleet: readonly LiveServer[], calls: number) {
  const started = Date.now()
  let admitted = 0
  const refused: string[] = []
  for (let i = 0; i < calls; i++) {
    const res = await call2026(
      fleet[i % fleet.length]!.url('/mcp/team'),
      'project.list',
      {},
      {
        token: BOB,
      },
    )
    if (res.status === 200) admitted++
    else refused.push(`${res.status} ${dataCode(res.text)} ${res.headers['retry-after'] ?? '-'}`)
  }
  return { admitted, refused, elapsedMs: Date.now() - started }
}

let nextId = 1
// Each request its own id: a session answers by id, so two in flight must not share one.
const body = () =>
  Buffer.from(
    JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: { name: 'project.list', arguments: {}, _meta: MODERN_META },
    }),
  )

/**
 * A request by ALICE whose body is held back after ten bytes: it holds its lease. A 2026
 * request, or with `session` a 2025 POST on that session (no request quota: its body counts).
 */
function holdRequest(server: LiveServer, session?: RawSession) {
  const BODY = body()
  let req: ClientRequest | undefined
  let answer: { status: number; text: string } | undefined
  const answered = new Promise<{ status: number; text: string }>((resolve) => {
    req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: '/mcp',
        method: 'POST',
        headers: {
          authorization: `Bearer ${ALICE}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': String(BODY.length),
          ...(session === undefined
            ? {
                'mcp-protocol-version': MODERN_VERSION,
                'mcp-method': 'tools/call',
                'mcp-name': 'project.list',
              }
            : { 'mcp-session-id': session.sessionId, 'mcp-protocol-version': PROTOCOL_VERSION }),
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          answer = { status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }
          resolve(answer)
        })
      },
    )
    req.on('error', () => {
      // A refusal that closes the connection before the client has sent its body.
      answer ??= { status: 0, text: '' }
      resolve(answer)
    })
    req.write(BODY.subarray(0, 10))
  })
  return {
    answered,
    answer: () => answer,
    finish: () => req!.end(BODY.subarray(10)),
  }
}

/** Sends `perInstance` held requests to each instance; waits until `expectRefused` are answered. */
async function holdAcross(
  fleet: readonly LiveServer[],
  perInstance: number,
  expectRefused: number,
) {
  const held = fleet.flatMap((s) => Array.from({ length: perInstance }, () => holdRequest(s)))
  const answeredCount = () => held.filter((h) => h.answer() !== undefined).length
  await eventually(() => answeredCount() >= expectRefused, 20_000)
  // A refusal is answered before the body is read; an admitted request waits for its body.
  const refused = held.filter((h) => h.answer() !== undefined)
  const waiting = held.filter((h) => h.answer() === undefined)
  return { held, refused, waiting }
}

/** Opens `count` BOB sessions on /mcp/team round robin; the statuses and codes of the refusals. */
async function openSessions(fleet: readonly LiveServer[], count: number) {
  const opened: RawSession[] = []
  const refused: string[] = []
  for (let i = 0; i < count; i++) {
    try {
      opened.push(await RawSession.open(fleet[i % fleet.length]!.url('/mcp/team'), BOB))
    } catch (error) {
      const m = /initialize failed: (\d+) (.*)$/s.exec((error as Error).message)
      refused.push(`${m?.[1]} ${m === null ? '' : dataCode(m[2]!)}`)
    }
  }
  return { opened, refused }
}

const closeSession = (s: RawSession) =>
  fetch(s.url, {
    method: 'DELETE',
    headers: {
      authorization: `Bearer ${s.token}`,
      'mcp-session-id': s.sessionId,
      'mcp-protocol-version': '2025-11-25',
    },
  })

describe.runIf(hasRedisServer)('sharedLimits: three instances on one Redis', () => {
  let redis: RestartableRedis
  let fleet: LiveServer[] = []
  let alone: LiveServer[] = []

  beforeAll(async () => {
    redis = await startRestartableRedis()
    const shared = ['--redis-url', redis.url, ...LIMITS]
    fleet = await Promise.all([startServer(shared), startServer(shared), startServer(shared)])
    alone = await Promise.all([startServer(LIMITS), startServer(LIMITS), startServer(LIMITS)])
  }, 60_000)
  afterAll(async () => {
    await Promise.all([...fleet, ...alone].map((s) => s.stop()))
    await redis?.stop()
  })

  it('admits one principal’s 2026 requests per minute once across the fleet, refusing the rest with 429 ERR_QUOTA_RATE and Retry-After', async () => {
    const { admitted, refused, elapsedMs } = await driveRate(fleet, 3.5 * RATE)
    // The bucket refills RATE per minute while the drive runs; the rest is the 5 % margin.
    const bound = Math.floor(RATE * 1.05) + Math.ceil((RATE * elapsedMs) / 60_000)
    expect(admitted).toBeGreaterThanOrEqual(RATE)
    expect(admitted).toBeLessThanOrEqual(bound)
    expect(new Set(refused.map((r) => r.split(' ').slice(0, 2).join(' ')))).toEqual(
      new Set(['429 ERR_QUOTA_RATE']),
    )
    expect(refused.every((r) => Number(r.split(' ')[2]) >= 1)).toBe(true)
  })

  it('control: without --redis-url the same drive admits about three times the rate', async () => {
    const { admitted } = await driveRate(alone, 3.5 * RATE)
    expect(admitted).toBeGreaterThanOrEqual(3 * RATE)
  })

  it('holds one principal to its requests in flight across the fleet: the rest are refused before their bodies with 429 ERR_QUOTA_CONCURRENT', async () => {
    const { held, refused, waiting } = await holdAcross(fleet, IN_FLIGHT, 2 * IN_FLIGHT)
    expect(refused.length).toBe(2 * IN_FLIGHT)
    expect(waiting.length).toBe(IN_FLIGHT)
    for (const h of refused) {
      expect(h.answer()!.status).toBe(429)
      expect(dataCode(h.answer()!.text)).toBe('ERR_QUOTA_CONCURRENT')
    }
    for (const h of waiting) h.finish()
    const served = await Promise.all(waiting.map((h) => h.answered))
    expect(served.map((a) => a.status)).toEqual(Array(IN_FLIGHT).fill(200))
    expect(held.length).toBe(3 * IN_FLIGHT)
  })

  it('control: without --redis-url every instance admits its own in-flight quota', async () => {
    const held = alone.flatMap((s) => Array.from({ length: IN_FLIGHT }, () => holdRequest(s)))
    // Each is admitted or refused before its body; finished, an admitted one is served.
    for (const h of held) h.finish()
    const answers = await Promise.all(held.map((h) => h.answered))
    expect(answers.filter((a) => a.status === 200).length).toBe(3 * IN_FLIGHT)
  })

  it('holds one credential to its bodies in flight across the fleet (2025 POSTs, no request quota): 8 in all, the rest 503 ERR_ADMISSION_PRINCIPAL_BUSY', async () => {
    const sessions = await Promise.all(fleet.map((s) => RawSession.open(s.url('/mcp'), ALICE)))
    const held = fleet.flatMap((s, i) =>
      Array.from({ length: 4 }, () => holdRequest(s, sessions[i])),
    )
    const answered = () => held.filter((h) => h.answer() !== undefined)
    expect(await eventually(() => answered().length >= 4, 15_000)).toBe(true)
    expect(answered().length).toBe(4)
    for (const h of answered()) {
      expect(h.answer()!.status).toBe(503)
      expect(h.answer()!.text).toContain('ERR_ADMISSION_PRINCIPAL_BUSY')
    }
    for (const h of held) h.finish()
    const answers = await Promise.all(held.map((h) => h.answered))
    expect(answers.filter((a) => a.status === 200).length).toBe(8)
    await Promise.all(sessions.map(closeSession))
  })

  it('control: without --redis-url each instance admits 8 bodies of one credential', async () => {
    const sessions = await Promise.all(alone.map((s) => RawSession.open(s.url('/mcp'), ALICE)))
    const held = alone.flatMap((s, i) =>
      Array.from({ length: 4 }, () => holdRequest(s, sessions[i])),
    )
    for (const h of held) h.finish()
    const answers = await Promise.all(held.map((h) => h.answered))
    expect(answers.filter((a) => a.status === 200).length).toBe(12)
    await Promise.all(sessions.map(closeSession))
  })

  it('holds one credential to its session quota across the fleet (429 ERR_SESSION_QUOTA), and frees a lease when a session closes', async () => {
    const { opened, refused } = await openSessions(fleet, 3 * SESSIONS)
    expect(opened.length).toBe(SESSIONS)
    expect(new Set(refused)).toEqual(new Set(['429 ERR_SESSION_QUOTA']))
    await closeSession(opened[0]!)
    const again = await openSessions(fleet, 1)
    expect(again.opened.length).toBe(1)
    await Promise.all([...opened.slice(1), ...again.opened].map(closeSession))
  })

  it('control: without --redis-url one credential holds its session quota on each instance', async () => {
    const { opened, refused } = await openSessions(alone, 3 * SESSIONS)
    expect(refused).toEqual([])
    expect(opened.length).toBe(3 * SESSIONS)
    await Promise.all(opened.map(closeSession))
  })

  it('serves on one instance a continuation minted on another, and refuses on every instance at the next call what a revocation on one took away', async () => {
    const [a, b, c] = fleet as [LiveServer, LiveServer, LiveServer]
    const bobA = await RawSession.open(a.url('/mcp/team'), BOB)
    const bobB = await RawSession.open(b.url('/mcp/team'), BOB)
    const token = await mintGroup(bobA)
    expect(toolResult(await fetchToken(bobB, token)).isError).toBe(undefined)
    const admin = await RawSession.open(c.url('/mcp'), ALICE)
    const revoke = (action: 'revoke' | 'grant') =>
      admin.call('admin', { action, params: { credentialId: 'bob', capability: 'read' } })
    expect(toolResult(await revoke('revoke')).isError).toBe(undefined)
    try {
      // No wait at all: the next call on each instance reads the revocation.
      for (const s of [bobA, bobB]) {
        expect(toolResult(await s.call('project.list', {})).isError).toBe(true)
      }
    } finally {
      await revoke('grant')
    }
    expect(toolResult(await bobA.call('project.list', {})).isError).toBe(undefined)
    await Promise.all([bobA, bobB, admin].map(closeSession))
  })

  it('gives each limit its stated rule while Redis is down, audited once per outage, and recovers without a restart', async () => {
    const [a] = fleet as [LiveServer]
    await redis.kill()
    // Rate: closed. Every 2026 request is refused with 503 and Retry-After while Redis is away.
    const down = await driveRate(fleet, 9)
    expect(down.admitted).toBe(0)
    expect(new Set(down.refused.map((r) => r.split(' ').slice(0, 2).join(' ')))).toEqual(
      new Set(['503 ERR_QUOTA_UNAVAILABLE']),
    )
    // Sessions: a local share, SESSIONS ÷ 3 = 1 per instance.
    const local = await openSessions([a], 2)
    expect(local.opened.length).toBe(1)
    expect(local.refused).toEqual(['429 ERR_SESSION_QUOTA'])
    const outages = (s: LiveServer, limit: string) =>
      s.audit.named('limit_store_unavailable').filter((e) => e.limit === limit).length
    expect(outages(a, 'mcp.requests-per-minute')).toBe(1)
    await redis.start()
    const back = await eventually(async () => (await driveRate([a], 1)).admitted === 1, 30_000, 250)
    expect(back).toBe(true)
    // The limits recovered; the tool itself does not run: this Redis came back empty, and the
    // capability store, which has forgotten its revocations, fails closed until a restart
    // (docs/deploy.md). A 200 here is the limit's admission, not the tool's success.
    const after = await call2026(a.url('/mcp/team'), 'project.list', {}, { token: BOB })
    const result = (JSON.parse(after.text) as { result?: { isError?: boolean; content?: unknown } })
      .result
    expect(result?.isError).toBe(true)
    expect(JSON.stringify(result?.content)).toContain('ERR_CAPABILITIES_UNAVAILABLE')
    expect(
      a.audit.named('limit_store_recovered').some((e) => e.limit === 'mcp.requests-per-minute'),
    ).toBe(true)
    expect(outages(a, 'mcp.requests-per-minute')).toBe(1)
    await Promise.all(local.opened.map(closeSession))
  }, 60_000)

  it('frees the leases of a killed instance when they expire: the principal is served again on the others', async () => {
    const [a, , c] = fleet as [LiveServer, LiveServer, LiveServer]
    // One more than the quota, all to c: once one is refused, c holds every lease.
    const { refused, waiting } = await holdAcross([c], IN_FLIGHT + 1, 1)
    expect(refused.length).toBe(1)
    expect(waiting.length).toBe(IN_FLIGHT)
    const probe = () =>
      call2026(a.url('/mcp'), 'project.list', {}, { token: ALICE }).then((r) =>
        r.status === 200 ? 'served' : `${r.status} ${dataCode(r.text)}`,
      )
    expect(await probe()).toBe('429 ERR_QUOTA_CONCURRENT')
    c.child.kill('SIGKILL')
    expect(await eventually(async () => (await probe()) === 'served', 30_000, 250)).toBe(true)
  }, 60_000)
})
