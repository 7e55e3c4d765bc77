// Per-principal quotas of the 2026-07-28 path, live: anonymous callers connecting from
// different loopback addresses (127.0.0.2, 127.0.0.3) are different principals, so one at its
// limits leaves the other's untouched. The limits are tiny so a handful of requests reach them;
// nothing waits on a clock (the rate refills one request per 30 s, far longer than the test).
import { type ClientRequest, request } from 'node:http'
import { eventually } from '@tollgate/test-kit/eventually'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { principalQuota } from '../src/principal-quota.js'
import { call2026, MODERN_META, MODERN_VERSION } from './helpers/modern-client.js'
import { type LiveServer, startServer, writeConfig } from './helpers/server.js'

const ANONYMOUS = { anonymous: { routes: ['/mcp/public'], capabilities: ['read', 'notes'] } }
const A = '127.0.0.2'
const B = '127.0.0.3'

let rated: LiveServer
let concurrent: LiveServer

beforeAll(async () => {
  const config = writeConfig(ANONYMOUS)
  ;[rated, concurrent] = await Promise.all([
    startServer(['--config', config, '--requests-per-minute-per-principal', '2'], false),
    startServer(['--config', config, '--max-requests-in-flight-per-principal', '1'], false),
  ])
})
afterAll(async () => {
  await Promise.all([rated.stop(), concurrent.stop()])
})

const runs = (s: LiveServer) =>
  s.audit.named('tool_invoked').filter((e) => e.tool === 'project.list').length
const list = (s: LiveServer, localAddress: string) =>
  call2026(s.url('/mcp/public'), 'project.list', {}, { localAddress })

describe('principalQuota on the 2026-07-28 path', () => {
  it('refuses a third request in a minute from one anonymous caller with 429 ERR_QUOTA_RATE, unserved, and serves another anonymous caller', async () => {
    expect((await list(rated, A)).status).toBe(200)
    expect((await list(rated, A)).status).toBe(200)
    const refused = await list(rated, A)
    expect(refused.status).toBe(429)
    expect(JSON.parse(refused.text).error.data).toEqual({ code: 'ERR_QUOTA_RATE', limit: 2 })
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    expect((await list(rated, B)).status).toBe(200)
    // The audit lines arrive in the order the requests were handled: A, A, (refused), B.
    expect(await eventually(() => runs(rated) >= 3, 20_000)).toBe(true)
    expect(runs(rated)).toBe(3)
  })

  it('refuses a second request in flight from one anonymous caller with 429 ERR_QUOTA_CONCURRENT before its body, and serves another caller meanwhile', async () => {
    const body = Buffer.from(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'project.list', arguments: {}, _meta: MODERN_META },
      }),
    )
    const { port } = new URL(concurrent.url('/'))
    // A's first request: the head and ten bytes of the body, the rest held back.
    let held: ClientRequest | undefined
    const answered = new Promise<number>((resolve, reject) => {
      held = request(
        {
          host: '127.0.0.1',
          port: Number(port),
          path: '/mcp/public',
          method: 'POST',
          localAddress: A,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'content-length': String(body.length),
            'mcp-protocol-version': MODERN_VERSION,
            'mcp-method': 'tools/call',
            'mcp-name': 'project.list',
          },
        },
        (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode ?? 0))
        },
      )
      held.on('error', reject)
      held.write(body.subarray(0, 10))
    })
    // A probe that arrives before the held request took its slot is served; once the slot is
    // taken, A's probes are refused. Bounded: the held request arrives within a few probes.
    let refused = await list(concurrent, A)
    for (let i = 0; i < 50 && refused.status === 200; i++) refused = await list(concurrent, A)
    expect(refused.status).toBe(429)
    expect(JSON.parse(refused.text).error.data).toEqual({ code: 'ERR_QUOTA_CONCURRENT', limit: 1 })
    expect((await list(concurrent, B)).status).toBe(200)
    held!.end(body.subarray(10))
    expect(await answered).toBe(200)
    expect((await list(concurrent, A)).status).toBe(200)
  })
})

describe('principalQuota', () => {
  it('refills the rate continuously: one request per 60,000 / requestsPerMinute ms', () => {
    const quota = principalQuota({ requestsPerMinute: 2 })
    expect(quota.acquire('k', 0).ok).toBe(true)
    expect(quota.acquire('k', 0).ok).toBe(true)
    expect(quota.acquire('k', 29_999)).toMatchObject({
      ok: false,
      error: { code: 'ERR_QUOTA_RATE' },
    })
    expect(quota.acquire('k', 30_000).ok).toBe(true)
  })

  it('keeps pooled keys in their own table: anonymous callers filling it never refuse a credential', () => {
    const quota = principalQuota({ maxKeys: 2, maxConcurrent: 1 })
    // Two anonymous addresses, each holding a request in flight, fill the pooled table.
    expect(quota.acquire('ip:192.0.2.1', 0, 'anonymous').ok).toBe(true)
    expect(quota.acquire('ip:192.0.2.2', 0, 'anonymous').ok).toBe(true)
    expect(quota.acquire('ip:192.0.2.3', 0, 'anonymous')).toMatchObject({
      ok: false,
      error: { code: 'ERR_QUOTA_KEYS', limit: 2, status: 503 },
    })
    expect(quota.acquire('alice', 0).ok).toBe(true)
    expect(quota.acquire('bob', 0).ok).toBe(true)
  })

  it('control: with every key in one table, anonymous callers filling it refuse a credential', () => {
    const quota = principalQuota({ maxKeys: 2, maxConcurrent: 1 })
    expect(quota.acquire('ip:192.0.2.1', 0).ok).toBe(true)
    expect(quota.acquire('ip:192.0.2.2', 0).ok).toBe(true)
    expect(quota.acquire('alice', 0)).toMatchObject({
      ok: false,
      error: { code: 'ERR_QUOTA_KEYS' },
    })
  })

  it('frees a slot when its lease is released, once however often release is called', () => {
    const quota = principalQuota({ maxConcurrent: 1 })
    const first = quota.acquire('k', 0)
    if (!first.ok) throw new Error('refused')
    expect(quota.acquire('k', 0)).toMatchObject({
      ok: false,
      error: { code: 'ERR_QUOTA_CONCURRENT', limit: 1, status: 429 },
    })
    first.lease.release()
    const second = quota.acquire('k', 0)
    first.lease.release()
    expect(second.ok).toBe(true)
    expect(quota.acquire('k', 0).ok).toBe(false)
  })

  it('forgets a quiet key when the table is full, and refuses a new key with 503 ERR_QUOTA_KEYS while every key is busy', () => {
    const quota = principalQuota({ maxKeys: 1, maxConcurrent: 1, requestsPerMinute: 60 })
    const busy = quota.acquire('a', 0)
    expect(quota.acquire('b', 0)).toMatchObject({
      ok: false,
      error: { code: 'ERR_QUOTA_KEYS', limit: 1, status: 503 },
    })
    if (busy.ok) busy.lease.release()
    // 'a' is idle but has spent one request: not quiet until it has refilled (1 s at 60/min).
    expect(quota.acquire('b', 500).ok).toBe(false)
    expect(quota.acquire('b', 1000).ok).toBe(true)
  })

  it('refuses a limit that is not a positive safe integer at construction', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => principalQuota({ maxConcurrent: bad })).toThrow(TypeError)
      expect(() => principalQuota({ requestsPerMinute: bad })).toThrow(TypeError)
      expect(() => principalQuota({ maxKeys: bad })).toThrow(TypeError)
    }
  })
})
