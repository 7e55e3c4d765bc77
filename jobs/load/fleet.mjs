// The three-instance row of the load job (issue 31): three built reference servers on one
// private redis-server, behind a round-robin balancer with no affinity (balancer.mjs), driven
// on the 2026-07-28 path. Phases, in order, while four other credentials call at a steady pace
// throughout (their success rate and latency per phase):
//   in-flight  one principal sends 3 × its in-flight limit of held-back requests across the three;
//   rate       the same principal calls as fast as two connections allow, for RATE_S seconds;
//   kill       another credential holds every in-flight lease on instance 3, which is SIGKILLed:
//              how long until the credential is served again on the others (lease time: LEASE_MS);
//   redis-down Redis SIGKILLed for OUTAGE_S seconds: the rate fails closed (503), the 2025 bodies
//              and sessions fall back to a local share (limit ÷ 3) on one instance;
//   recovery   Redis started again on the same port from its append-only file, nothing restarted;
//   empty-restart  Redis started again without its data: what the instances then answer.
// Then three gateways (fleet-gateways.mjs) on the same Redis. Results go to
// jobs/load/results/fleet.json; write-doc.mjs renders them. Apps must be built first.
//
//   node jobs/load/fleet.mjs
import { mkdtempSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROTOCOL_VERSION } from '../../tools/test-kit/src/mcp-initialize.mjs'
import { startBalancer } from './balancer.mjs'
import { call2026, figures, holdPost, tally, toolCall } from './fleet-client.mjs'
import { driveGateways } from './fleet-gateways.mjs'
import { machine, openMcpSession, procMemory, ROOT, record, sleep, startApp } from './lib.mjs'
import { startPersistentRedis } from './redis-aof.mjs'

const RATE = 240 // requests per minute per principal
const IN_FLIGHT = 6 // requests in flight per principal
const SESSIONS = 3 // 2025 sessions per credential
const BODIES = 8 // bodies in flight per principal (http-admission's default; not a flag)
const LEASE_MS = 3_000
const RATE_S = 15
const OUTAGE_S = 5
const OTHERS = 4
const OTHER_PACE_MS = 500 // each other credential: one call, then this pause (about 2/s)

const atStart = machine()
const token = (id) => `${id}-token-0123456789abcdef`
const ids = [
  'hot',
  'holder',
  'sessions',
  ...Array.from({ length: OTHERS }, (_, i) => `other-${i + 1}`),
]
const redis = await startPersistentRedis()
const config = join(mkdtempSync(join(tmpdir(), 'tollgate-fleet-')), 'config.json')
writeFileSync(
  config,
  JSON.stringify({
    credentials: ids.map((id) => ({ id, token: token(id), capabilities: ['read', 'documents'] })),
    redisUrl: redis.url,
  }),
)
const ARGS = [
  ...['--config', config, '--fleet-instances', '3', '--fleet-lease-ms', String(LEASE_MS)],
  ...['--requests-per-minute-per-principal', String(RATE)],
  ...['--max-requests-in-flight-per-principal', String(IN_FLIGHT)],
  ...['--max-sessions-per-credential', String(SESSIONS)],
]
const startInstance = () =>
  startApp(`${ROOT}apps/mcp-server/dist/main.js`, {
    args: ['--port', '0', ...ARGS],
    timeoutMs: 60_000,
    ready: (line) => {
      try {
        const e = JSON.parse(line)
        return e.event === 'listening' && typeof e.port === 'number' ? { port: e.port } : undefined
      } catch {
        return undefined
      }
    },
  })
const load = () => loadavg().map((l) => Number(l.toFixed(1)))
const rss = (apps) => apps.map((a) => Number(procMemory(a.child.pid).rssMiB.toFixed(1)))

const fleet = await Promise.all([startInstance(), startInstance(), startInstance()])
const backends = fleet.map((a) => a.port)
const balancer = await startBalancer(backends)
const started = Date.now()
const phases = []
let phase = 'baseline'
let phaseStarted = Date.now()
const otherSamples = []

// The other credentials, for the whole run: one call, a pause, the next; each sample tagged
// with the phase it started in.
let running = true
const others = Array.from({ length: OTHERS }, async (_, i) => {
  const t = token(`other-${i + 1}`)
  await sleep(i * (OTHER_PACE_MS / OTHERS))
  while (running) {
    const tag = phase
    const r = await call2026(balancer.port, '/mcp', t)
    otherSamples.push({ ...r, phase: tag })
    await sleep(OTHER_PACE_MS)
  }
})

/** Ends the current phase: its figures, the others' figures in it, load and RSS; starts `next`. */
function endPhase(next, hot) {
  const seconds = (Date.now() - phaseStarted) / 1000
  phases.push({
    phase,
    seconds: Number(seconds.toFixed(1)),
    loadAverage: load(),
    rssMiB: rss(fleet),
    ...hot,
    others: figures(
      otherSamples.filter((s) => s.phase === phase),
      seconds,
    ),
  })
  console.log(JSON.stringify(phases.at(-1)))
  phase = next
  phaseStarted = Date.now()
}

/** `count` calls of `who`, `connections` at a time, for at most `seconds`; its samples. */
async function drive(who, seconds, { connections = 2, pauseMs = 0, port = balancer.port } = {}) {
  const samples = []
  const until = Date.now() + seconds * 1000
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) {
        samples.push(await call2026(port, '/mcp', token(who)))
        if (pauseMs > 0) await sleep(pauseMs)
      }
    }),
  )
  return samples
}

/** Waits until `check()` or `ms` pass; whether it held. */
async function waitFor(check, ms, everyMs = 100) {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await check()) return true
    await sleep(everyMs)
  }
  return check()
}

const held = (port, who) => {
  const { body, headers } = toolCall(token(who))
  return holdPost(port, '/mcp', body, headers)
}

try {
  await sleep(6_000)
  endPhase('in-flight')

  // (a) in flight: 3 × the limit through the balancer, each held after its first bytes.
  {
    const holds = Array.from({ length: 3 * IN_FLIGHT }, () => held(balancer.port, 'hot'))
    const answered = () => holds.filter((h) => h.answer() !== undefined).length
    await waitFor(() => answered() >= 2 * IN_FLIGHT, 20_000)
    await sleep(1_000) // a late answer would show here
    const refused = holds.filter((h) => h.answer() !== undefined).map((h) => h.answer())
    const waiting = holds.filter((h) => h.answer() === undefined)
    for (const h of waiting) h.finish()
    const finished = await Promise.all(waiting.map((h) => h.answered))
    endPhase('rate', {
      hot: {
        limit: IN_FLIGHT,
        sent: holds.length,
        admittedInFlight: waiting.length,
        withinLimitTimes105: waiting.length <= IN_FLIGHT * 1.05,
        refused: tally(refused),
        admittedThenServed: tally(finished),
      },
    })
  }

  // (a) rate: as fast as two connections go, round robin across the three.
  {
    const t0 = Date.now()
    const samples = await drive('hot', RATE_S)
    const elapsed = (Date.now() - t0) / 1000
    const admitted = samples.filter((s) => s.outcome === 'served').length
    // The bucket holds RATE and refills RATE per minute while the drive runs.
    const allowance = RATE + Math.ceil((RATE * elapsed) / 60)
    endPhase('kill', {
      hot: {
        limitPerMinute: RATE,
        ...figures(samples, elapsed),
        admitted,
        allowance,
        withinAllowanceTimes105: admitted <= allowance * 1.05,
        retryAfterSeconds: tally(samples.filter((s) => s.retryAfter).map((s) => s.retryAfter)),
      },
    })
  }

  // (c) one instance SIGKILLed while it holds every in-flight lease of `holder`.
  {
    const victim = fleet[2]
    const holds = Array.from({ length: IN_FLIGHT }, () => held(victim.port, 'holder'))
    await sleep(1_500)
    const waitingBefore = holds.filter((h) => h.answer() === undefined).length
    const probe = (port) => call2026(port, '/mcp', token('holder')).then((r) => r.outcome)
    const beforeKill = await probe(fleet[0].port)
    const killedAt = Date.now()
    victim.child.kill('SIGKILL')
    const probes = []
    let servedAfterMs
    await waitFor(
      async () => {
        const o = await probe(fleet[probes.length % 2].port)
        probes.push(o)
        if (o === 'served') servedAfterMs = Date.now() - killedAt
        return o === 'served'
      },
      4 * LEASE_MS,
      200,
    )
    await sleep(Math.max(0, 3_000 - (Date.now() - killedAt)))
    const rssAlive = rss(fleet.slice(0, 2))
    endPhase('rejoin', {
      hot: {
        leaseMs: LEASE_MS,
        heldOnKilledInstance: waitingBefore,
        probeBeforeKill: beforeKill,
        probesAfterKill: tally(probes),
        servedAgainAfterMs: servedAfterMs ?? null,
        withinLeaseTime: servedAfterMs !== undefined && servedAfterMs <= LEASE_MS,
        rssOfSurvivorsMiB: rssAlive,
        balancer502: balancer.counts.badGateway,
      },
    })
    // The instance comes back on a new port and the balancer sends it its share again.
    fleet[2] = await startInstance()
    backends[2] = fleet[2].port
    await sleep(3_000)
    endPhase('redis-down')
  }

  // (d) Redis stopped for OUTAGE_S seconds.
  {
    const [a] = fleet
    const session = await openMcpSession(a.port, token('holder'), '/mcp')
    await redis.kill()
    const downAt = Date.now()
    const hotSamples = drive('hot', OUTAGE_S, { connections: 1, pauseMs: 100 })
    // Bodies in flight (2025, one session on instance 1): a local share of floor(8 ÷ 3).
    const bodyHolds = Array.from({ length: 4 }, (_, i) => {
      const body = Buffer.from(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 100 + i,
          method: 'tools/call',
          params: { name: 'project.list', arguments: {} },
        }),
      )
      return holdPost(a.port, '/mcp', body, {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': String(body.length),
        authorization: `Bearer ${token('holder')}`,
        'mcp-session-id': session,
        'mcp-protocol-version': PROTOCOL_VERSION,
      })
    })
    await sleep(1_500)
    const bodyRefused = bodyHolds.filter((h) => h.answer() !== undefined).map((h) => h.answer())
    const bodyWaiting = bodyHolds.filter((h) => h.answer() === undefined)
    for (const h of bodyWaiting) h.finish()
    const bodyServed = await Promise.all(bodyWaiting.map((h) => h.answered))
    // Sessions: a local share of floor(3 ÷ 3) = 1 on instance 1.
    const sessions = []
    for (let i = 0; i < 2; i++) {
      sessions.push(
        await openMcpSession(a.port, token('sessions'), '/mcp').then(
          () => 'opened',
          (e) => String(e.message).replace(/ without a session$/, ''),
        ),
      )
    }
    const hot = await hotSamples
    await sleep(Math.max(0, OUTAGE_S * 1000 - (Date.now() - downAt)))
    const audit = (event) =>
      fleet.map(
        (f) =>
          f
            .output()
            .split('\n')
            .filter((l) => l.includes(`"${event}"`)).length,
      )
    endPhase('recovery', {
      hot: {
        outageSeconds: OUTAGE_S,
        rate: figures(hot, OUTAGE_S),
        bodiesInFlight2025: {
          limit: BODIES,
          localShare: Math.max(1, Math.floor(BODIES / 3)),
          held: 4,
          admitted: bodyWaiting.length,
          refused: tally(bodyRefused),
          admittedThenServed: tally(bodyServed),
        },
        sessions2025: { localShare: Math.max(1, Math.floor(SESSIONS / 3)), attempts: sessions },
        limitStoreUnavailableLinesPerInstance: audit('limit_store_unavailable'),
      },
    })
    await redis.start()
    const upAt = Date.now()
    let firstServedMs
    await waitFor(
      async () => {
        const ok = (await call2026(balancer.port, '/mcp', token('hot'))).outcome === 'served'
        if (ok) firstServedMs = Date.now() - upAt
        return ok
      },
      30_000,
      200,
    )
    const after = await drive('hot', 8, { connections: 1, pauseMs: 100 })
    endPhase('empty-restart', {
      hot: {
        firstServedAfterRedisStartMs: firstServedMs ?? null,
        rate: figures(after, 8),
        limitStoreRecoveredLinesPerInstance: audit('limit_store_recovered'),
      },
    })

    // (d') Redis back without its data (no persistence, or a lost volume): the capability
    // store finds its epoch gone and refuses every check until the instance restarts, since an
    // empty Redis has forgotten every revocation. Instance 1 is restarted; 2 and 3 are not.
    await redis.kill()
    redis.wipe()
    await redis.start()
    await sleep(1_000)
    const empty = await drive('hot', 4, { connections: 1, pauseMs: 100 })
    await fleet[0].stop()
    fleet[0] = await startInstance()
    backends[0] = fleet[0].port
    const perInstance = []
    for (const f of fleet) perInstance.push((await call2026(f.port, '/mcp', token('hot'))).outcome)
    endPhase('done', {
      hot: {
        emptyRedis: figures(empty, 4),
        capabilityStateLostLinesPerInstance: audit('capability_state_lost'),
        afterRestartingInstance1OnlyOneCallEach: perInstance,
      },
    })
  }
} finally {
  running = false
  await Promise.all(others)
}
const total = (Date.now() - started) / 1000
const rssEnd = await Promise.all(fleet.map((f) => f.probe().catch(() => null)))
await balancer.close()
await Promise.all(fleet.map((f) => f.stop()))

const gateways = await driveGateways({ redis, token, load }).catch((e) => ({
  error: String(e?.message ?? e),
}))
await redis.stop()

record(new URL('.', import.meta.url), 'fleet', {
  machine: atStart,
  target:
    'three mcp-server instances on one redis-server, behind a round-robin balancer (2026-07-28 path, 127.0.0.1)',
  settings: {
    requestsPerMinutePerPrincipal: RATE,
    requestsInFlightPerPrincipal: IN_FLIGHT,
    sessionsPerCredential: SESSIONS,
    bodiesInFlightPerPrincipal: BODIES,
    fleetLeaseMs: LEASE_MS,
    otherCredentials: OTHERS,
    otherPaceMs: OTHER_PACE_MS,
  },
  seconds: Number(total.toFixed(1)),
  balancer: balancer.counts,
  phases,
  othersOverall: figures(otherSamples, total),
  rssAtEndAfterGcMiB: rssEnd.map((p) => (p === null ? null : Number(p.rssMiB.toFixed(1)))),
  peakRssMiB: rssEnd.map((p) => (p === null ? null : Number(p.maxRssMiB.toFixed(1)))),
  gateways,
})
