// /healthz, /readyz and the SIGTERM drain of the real server (dist/main.js, a child process),
// through real sockets on 127.0.0.1. Two instances share one private redis-server; the
// principal's in-flight quota is 1 and a fleet lease outlives a dead holder by a minute, so
// "another instance admits the principal at once" can only mean the drained instance released
// its lease in Redis before it exited. The control: SIGKILL instead of SIGTERM, and the other
// instance refuses the principal until the lease expires.
import { type ClientRequest, request } from 'node:http'
import { eventually } from '@tollgate/test-kit/eventually'
import {
  hasRedisServer,
  type RestartableRedis,
  startRestartableRedis,
} from '@tollgate/test-kit/redis-server'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { call2026, MODERN_META, MODERN_VERSION } from './helpers/modern-client.js'
import { ALICE, type LiveServer, startServer } from './helpers/server.js'

if (!hasRedisServer) {
  console.warn('\n\n*** SKIPPING the drain tests: no redis-server on PATH ***\n\n')
}

const LIMITS = [
  '--max-requests-in-flight-per-principal',
  '1',
  '--fleet-lease-ms',
  '60000',
  '--drain-timeout-ms',
  '30000',
]

/** GET (or another method) of a probe path; status and parsed body. */
function probe(server: LiveServer, path: string, method = 'GET') {
  return new Promise<{ status: number; body: unknown; raw: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8')
        resolve({
          status: res.statusCode ?? 0,
          body: raw === '' ? undefined : JSON.parse(raw),
          raw,
        })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

const dataCode = (text: string) =>
  (JSON.parse(text) as { error?: { data?: { code?: string } } }).error?.data?.code

/** A 2026 `project.list` by ALICE whose body is held back after ten bytes: it holds its lease. */
function holdCall(server: LiveServer) {
  const body = Buffer.from(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'project.list', arguments: {}, _meta: MODERN_META },
    }),
  )
  let req: ClientRequest | undefined
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
          'content-length': String(body.length),
          'mcp-protocol-version': MODERN_VERSION,
          'mcp-method': 'tools/call',
          'mcp-name': 'project.list',
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
        )
      },
    )
    req.on('error', () => resolve({ status: 0, text: '' }))
    req.write(body.subarray(0, 10))
  })
  return { answered, finish: () => req!.end(body.subarray(10)) }
}

const callAlice = async (server: LiveServer) => {
  const r = await call2026(server.url('/mcp'), 'project.list', {}, { token: ALICE })
  return r.status === 200 ? 'served' : `${r.status} ${dataCode(r.text)}`
}

const exitCode = (server: LiveServer) =>
  new Promise<number | null>((resolve) => {
    if (server.child.exitCode !== null) resolve(server.child.exitCode)
    else server.child.once('exit', (code) => resolve(code))
  })

/** Waits until `server` counts ALICE's held call as in flight (its lease is taken). */
const heldOn = (server: LiveServer) =>
  eventually(async () => (await callAlice(server)) === '429 ERR_QUOTA_CONCURRENT', 20_000, 100)

describe.runIf(hasRedisServer)('startHttpServer: /healthz and /readyz', () => {
  let redis: RestartableRedis
  let server: LiveServer
  beforeAll(async () => {
    redis = await startRestartableRedis()
    server = await startServer(['--redis-url', redis.url, ...LIMITS])
  }, 60_000)
  afterAll(async () => {
    await server?.stop()
    await redis?.stop()
  })

  it('answers /healthz and /readyz 200 with a tiny body that names no secret, without a credential', async () => {
    const health = await probe(server, '/healthz')
    expect(health.status).toBe(200)
    expect(health.body).toEqual({ status: 'ok' })
    const ready = await probe(server, '/readyz')
    expect(ready.status).toBe(200)
    expect(ready.body).toEqual({ status: 'ready' })
    for (const r of [health, ready]) {
      expect(r.raw.length).toBeLessThan(64)
      expect(r.raw).not.toContain(redis.url)
      expect(r.raw).not.toContain('redis')
    }
    expect((await probe(server, '/readyz', 'HEAD')).status).toBe(200)
    expect((await probe(server, '/readyz', 'POST')).status).toBe(405)
  })

  it('stays ready but says degraded while Redis is unreachable, and ready again once it is back', async () => {
    await redis.kill()
    try {
      const degraded = await eventually(async () => {
        const r = await probe(server, '/readyz')
        return r.status === 200 && (r.body as { status: string }).status === 'degraded'
      }, 20_000)
      expect(degraded).toBe(true)
      expect((await probe(server, '/readyz')).body).toEqual({
        status: 'degraded',
        reason: 'limit_store_unavailable',
      })
      expect((await probe(server, '/healthz')).status).toBe(200)
    } finally {
      await redis.start()
    }
    const back = await eventually(
      async () => {
        const r = await probe(server, '/readyz')
        return (r.body as { status: string }).status === 'ready'
      },
      30_000,
      250,
    )
    expect(back).toBe(true)
  }, 60_000)
})

describe.runIf(hasRedisServer)('main: the SIGTERM drain', () => {
  let redis: RestartableRedis
  let other: LiveServer
  const started: LiveServer[] = []
  beforeAll(async () => {
    redis = await startRestartableRedis()
    other = await startServer(['--redis-url', redis.url, ...LIMITS])
  }, 60_000)
  afterEach(async () => {
    await Promise.all(started.map((s) => s.stop()))
    started.length = 0
  })
  afterAll(async () => {
    await other?.stop()
    await redis?.stop()
  })

  it('finishes the call in flight, refuses new calls with 503 ERR_SERVER_DRAINING and readyz 503, releases the lease and exits 0', async () => {
    const a = await startServer(['--redis-url', redis.url, ...LIMITS])
    started.push(a)
    const held = holdCall(a)
    expect(await heldOn(a)).toBe(true)
    // Held on a: the fleet's count refuses the principal on the other instance too.
    expect(await callAlice(other)).toBe('429 ERR_QUOTA_CONCURRENT')
    const exited = exitCode(a)
    a.child.kill('SIGTERM')
    await a.audit.waitFor((e) => e.event === 'draining')
    const ready = await probe(a, '/readyz')
    expect(ready.status).toBe(503)
    expect(ready.body).toEqual({ status: 'not_ready', reason: 'draining' })
    expect((await probe(a, '/healthz')).status).toBe(200)
    const refused = await call2026(a.url('/mcp'), 'project.list', {}, { token: ALICE })
    expect(refused.status).toBe(503)
    expect(dataCode(refused.text)).toBe('ERR_SERVER_DRAINING')
    expect(refused.headers['retry-after']).toBe('1')
    expect(a.child.exitCode).toBe(null)
    held.finish()
    const answer = await held.answered
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.text).result.isError).toBe(undefined)
    expect(await exited).toBe(0)
    // No wait: the lease was released in Redis before the exit.
    expect(await callAlice(other)).toBe('served')
  }, 60_000)

  it('control: killed instead of drained, its lease stays in Redis and the other instance refuses the principal', async () => {
    const a = await startServer(['--redis-url', redis.url, ...LIMITS])
    started.push(a)
    const held = holdCall(a)
    expect(await heldOn(a)).toBe(true)
    const exited = exitCode(a)
    a.child.kill('SIGKILL')
    expect(await exited).toBe(null)
    expect((await held.answered).status).toBe(0)
    expect(await callAlice(other)).toBe('429 ERR_QUOTA_CONCURRENT')
  }, 60_000)
})
