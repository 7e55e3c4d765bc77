// The gateway part of the fleet row: three built gateways (packages/gateway/dist/cli.js) on one
// Redis, each in front of the same upstream (one reference server, anonymous /mcp/public, its own
// limits set out of the way), driven by one principal (the anonymous caller of 127.0.0.1) round
// robin across the three: the per-principal × tool rate admitted in all against its burst plus
// what refills during the drive; then Redis stopped for a few seconds (the rate fails closed:
// 503 ERR_LIMITER_UNAVAILABLE) and started again, nothing restarted.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { call2026, figures, tally } from './fleet-client.mjs'
import { procMemory, ROOT, sleep, startApp } from './lib.mjs'

const BURST = 30
const PER_MINUTE = 60
const DRIVE_S = 10
const OUTAGE_S = 3

const listening = (line) => {
  try {
    const e = JSON.parse(line)
    return e.event === 'listening' && typeof e.port === 'number' ? { port: e.port } : undefined
  } catch {
    return undefined
  }
}

/** Calls `project.list` round robin over `ports` for `seconds`, one at a time. */
async function roundRobin(ports, seconds) {
  const samples = []
  const until = Date.now() + seconds * 1000
  for (let i = 0; Date.now() < until; i++) {
    samples.push({ ...(await call2026(ports[i % ports.length], '/mcp')), at: i % ports.length })
  }
  return samples
}

/** Runs the gateway part on `redis` (a restartable test-kit Redis); resolves its figures. */
export async function driveGateways({ redis, load }) {
  const upstream = await startApp(`${ROOT}apps/mcp-server/dist/main.js`, {
    args: [
      ...['--port', '0', '--requests-per-minute-per-principal', '100000'],
      ...['--max-requests-in-flight-per-principal', '256', '--max-sessions-per-credential', '64'],
    ],
    timeoutMs: 60_000,
    ready: listening,
  })
  const config = join(mkdtempSync(join(tmpdir(), 'tollgate-gw-fleet-')), 'config.json')
  writeFileSync(
    config,
    JSON.stringify({
      routes: [{ path: '/mcp', anonymous: true }],
      limits: { burst: BURST, ratePerMinute: PER_MINUTE, concurrentPerPrincipal: 16 },
      redisUrl: redis.url,
    }),
  )
  const gateways = []
  try {
    for (let i = 0; i < 3; i++) {
      gateways.push(
        await startApp(`${ROOT}packages/gateway/dist/cli.js`, {
          args: [
            ...['--port', '0', '--config', config, '--fleet-instances', '3'],
            ...['--upstream', `http://127.0.0.1:${upstream.port}/mcp/public`],
          ],
          timeoutMs: 60_000,
          ready: listening,
        }),
      )
    }
    const ports = gateways.map((g) => g.port)
    const loadBefore = load()
    const t0 = Date.now()
    const drive = await roundRobin(ports, DRIVE_S)
    const elapsed = (Date.now() - t0) / 1000
    const admitted = drive.filter((s) => s.outcome === 'served').length
    const allowance = BURST + Math.ceil((PER_MINUTE * elapsed) / 60)
    const perGateway = ports.map(
      (_, i) => drive.filter((s) => s.at === i && s.outcome === 'served').length,
    )
    await redis.kill()
    const down = await roundRobin(ports, OUTAGE_S)
    await redis.start()
    const upAt = Date.now()
    let firstServedMs
    for (let i = 0; Date.now() - upAt < 30_000; i++) {
      const r = await call2026(ports[i % 3], '/mcp')
      if (r.outcome === 'served') {
        firstServedMs = Date.now() - upAt
        break
      }
      await sleep(200)
    }
    const lines = (event) =>
      gateways.map(
        (g) =>
          g
            .output()
            .split('\n')
            .filter((l) => l.includes(`"${event}"`)).length,
      )
    return {
      target: `three gateways (--upstream, one reference server) on one redis-server, anonymous caller 127.0.0.1 round robin`,
      settings: {
        burst: BURST,
        ratePerMinute: PER_MINUTE,
        driveSeconds: DRIVE_S,
        outageSeconds: OUTAGE_S,
      },
      loadAverage: { before: loadBefore, after: load() },
      rate: {
        ...figures(drive, elapsed),
        admitted,
        admittedPerGateway: perGateway,
        allowance,
        withinAllowanceTimes105: admitted <= allowance * 1.05,
      },
      redisDown: figures(down, OUTAGE_S),
      firstServedAfterRedisStartMs: firstServedMs ?? null,
      limiterStoreUnavailableLinesPerGateway: lines('limit_store_unavailable'),
      limiterStoreRecoveredLinesPerGateway: lines('limit_store_recovered'),
      rssMiB: gateways.map((g) => Number(procMemory(g.child.pid).rssMiB.toFixed(1))),
      upstreamRssMiB: Number(procMemory(upstream.child.pid).rssMiB.toFixed(1)),
      refusalsByCode: tally(
        [...drive, ...down].map((s) => s.outcome).filter((o) => o !== 'served'),
      ),
    }
  } finally {
    await Promise.all(gateways.map((g) => g.stop()))
    await upstream.stop()
  }
}
