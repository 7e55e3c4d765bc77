// Three real gateways (each with its own stdio child) on one private redis-server, driven by
// one principal (the anonymous caller of 127.0.0.1), each call to the next gateway in turn:
// the per-principal × tool rate is held once across the three (within the burst × 1.05 plus
// what refills during the drive); the control, the same three without Redis, admits three
// times the burst. Redis killed mid-run: calls are refused with 503 ERR_LIMITER_UNAVAILABLE
// (the rate fails closed), logged once, and served again once Redis is back, without a
// restart. The Redis URL is never written to the log, and a bad one is refused without echo.
import { spawnSync } from 'node:child_process'
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
import {
  CLI,
  MISBEHAVING,
  modern,
  type RpcAnswer,
  type RunningCli,
  startCli,
} from './fixtures/run-gateway.js'

if (!hasRedisServer) {
  console.warn('\n\n*** SKIPPING the gateway fleet tests: no redis-server on PATH ***\n\n')
}

const BURST = 6
const LIMITS = { burst: BURST, ratePerMinute: BURST, concurrentPerPrincipal: 16 }

function configFile(extra: Record<string, unknown>): string {
  const file = join(mkdtempSync(join(tmpdir(), 'gw-fleet-')), 'config.json')
  writeFileSync(
    file,
    JSON.stringify({ routes: [{ path: '/mcp', anonymous: true }], limits: LIMITS, ...extra }),
  )
  return file
}

const start = (config: string) =>
  startCli(['--config', config, '--fleet-instances', '3', '--', process.execPath, MISBEHAVING])

const codeOf = (a: RpcAnswer) =>
  ((a.body?.error as { data?: { code?: string } } | undefined)?.data?.code ?? 'served') as string

/** `calls` echo calls, round robin over `fleet`; what was admitted and refused, and how long it took. */
async function drive(fleet: readonly RunningCli[], calls: number) {
  const started = Date.now()
  const answers: string[] = []
  for (let i = 0; i < calls; i++) {
    const a = await modern(fleet[i % fleet.length]!.url, i + 1, 'tools/call', {
      name: 'echo',
      arguments: { message: 'x' },
    })
    answers.push(
      a.status === 200 && codeOf(a) === 'served'
        ? 'served'
        : `${a.status} ${codeOf(a)} ${a.headers.get('retry-after')}`,
    )
  }
  return {
    answers,
    admitted: answers.filter((a) => a === 'served').length,
    elapsedMs: Date.now() - started,
  }
}

describe.runIf(hasRedisServer)('sharedLimiter: three gateways on one Redis', () => {
  let redis: RestartableRedis
  let fleet: RunningCli[] = []
  let alone: RunningCli[] = []

  beforeAll(async () => {
    redis = await startRestartableRedis()
    // The URL (a password would be in it) comes from the config file, which ps does not show.
    const shared = configFile({ redisUrl: redis.url })
    const local = configFile({})
    fleet = await Promise.all([start(shared), start(shared), start(shared)])
    alone = await Promise.all([start(local), start(local), start(local)])
  }, 90_000)
  afterAll(async () => {
    await Promise.all([...fleet, ...alone].map((g) => g.stop('SIGKILL')))
    await redis?.stop()
  })

  it('holds one principal × tool to its rate across the fleet, refusing the rest with 429 ERR_RATE_LIMITED and Retry-After', async () => {
    const { answers, admitted, elapsedMs } = await drive(fleet, 4 * BURST)
    const bound = Math.floor(BURST * 1.05) + Math.ceil((BURST * elapsedMs) / 60_000)
    expect(admitted).toBeGreaterThanOrEqual(BURST)
    expect(admitted).toBeLessThanOrEqual(bound)
    const refused = answers.filter((a) => a !== 'served')
    expect(new Set(refused.map((r) => r.split(' ').slice(0, 2).join(' ')))).toEqual(
      new Set(['429 ERR_RATE_LIMITED']),
    )
    expect(refused.every((r) => Number(r.split(' ')[2]) >= 1)).toBe(true)
  })

  it('control: without a Redis the same drive admits three times the burst', async () => {
    const { admitted } = await drive(alone, 4 * BURST)
    expect(admitted).toBeGreaterThanOrEqual(3 * BURST)
  })

  it('refuses with 503 ERR_LIMITER_UNAVAILABLE while Redis is down, logs the outage once, and serves again once it is back', async () => {
    const [g] = fleet as [RunningCli]
    await redis.kill()
    const down = await drive([g], 4)
    expect(new Set(down.answers.map((r) => r.split(' ').slice(0, 2).join(' ')))).toEqual(
      new Set(['503 ERR_LIMITER_UNAVAILABLE']),
    )
    const outages = () =>
      g
        .logs()
        .filter(
          (l) => l.event === 'limit_store_unavailable' && l.limit === 'gateway.calls-per-minute',
        ).length
    expect(outages()).toBe(1)
    await redis.start()
    expect(await eventually(async () => (await drive([g], 1)).admitted === 1, 30_000, 250)).toBe(
      true,
    )
    expect(g.logs().some((l) => l.event === 'limit_store_recovered')).toBe(true)
    expect(outages()).toBe(1)
    expect(fleet.flatMap((f) => f.logs()).some((l) => JSON.stringify(l).includes(redis.url))).toBe(
      false,
    )
  }, 60_000)

  it('refuses a --redis-url that is not a redis URL at start, without echoing it', () => {
    const secret = 'http://user:hunter2-secret@127.0.0.1:1'
    const result = spawnSync(
      process.execPath,
      [CLI, '--redis-url', secret, '--', process.execPath, MISBEHAVING],
      {
        encoding: 'utf8',
        timeout: 30_000,
      },
    )
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('--redis-url')
    expect(result.stderr).not.toContain('hunter2')
  })
})
