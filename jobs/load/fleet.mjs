// The three-instance row of the load job (issue 31): three built reference servers on one
// private redis-server, behind a round-robin balancer with no affinity (balancer.mjs), driven
// on the 2026-07-28 path. Phases, in order, while four other credentials call at a steady pace
// throughout (their success rate and latency per phase):
//   in-flight  one principal sends 3 × its in-flight limit of held-back requests across the three;
//   rate       the same principal calls as fast as two connections allow, for RATE_S seconds;
//   state      a revocation on instance 1 read by the others; a 2025 session presented elsewhere;
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
import { startRestartableRedis } from '../../tools/test-kit/src/redis-server.mjs'
import { startBalancer } from './balancer.mjs'
import { call2026, codeOf, figures, holdPost, tally, toolCall } from './fleet-client.mjs'
import { driveGateways } from './fleet-gateways.mjs'
import { redisPhases } from './fleet-redis.mjs'
import { machine, openMcpSession, procMemory, ROOT, record, sleep, startApp } from './lib.mjs'

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
const ids = ['hot', 'holder', 'sessions', 'admin', 'revoked', 'roamer']
ids.push(...Array.from({ length: OTHERS }, (_, i) => `other-${i + 1}`))
const redis = await startRestartableRedis({ appendOnly: true })
const config = join(mkdtempSync(join(tmpdir(), 'tollgate-fleet-')), 'config.json')
writeFileSync(
  config,
  JSON.stringify({
    credentials: ids.map((id) => ({
      id,
      token: token(id),
      capabilities: id === 'admin' ? ['read', 'admin'] : ['read', 'documents'],
    })),
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
    endPhase('state', {
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

  // (b') state every instance shares: a revocation on instance 1, read by 2 and 3 at their next
  // call; a 2025 session of instance 1 presented to instance 2 (no affinity).
  {
    const [a, b, c] = fleet
    const admin = (action) =>
      call2026(a.port, '/mcp', token('admin'), {
        tool: 'admin',
        args: { action, params: { credentialId: 'revoked', capability: 'read' } },
      })
    const probe = (f) => call2026(f.port, '/mcp', token('revoked'))
    const before = [(await probe(b)).outcome, (await probe(c)).outcome]
    const revoke = await admin('revoke')
    const revokedAt = Date.now()
    const after = [await probe(b), await probe(c)]
    const msAfterRevoke = Date.now() - revokedAt
    const grant = await admin('grant')
    const regranted = [(await probe(b)).outcome, (await probe(c)).outcome]
    const session = await openMcpSession(a.port, token('roamer'), '/mcp')
    const elsewhere = await fetch(`http://127.0.0.1:${b.port}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token('roamer')}`,
        'mcp-session-id': session,
        'mcp-protocol-version': PROTOCOL_VERSION,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping' }),
    })
    const elsewhereText = await elsewhere.text()
    await fetch(`http://127.0.0.1:${a.port}/mcp`, {
      method: 'DELETE',
      headers: {
        authorization: `Bearer ${token('roamer')}`,
        'mcp-session-id': session,
        'mcp-protocol-version': PROTOCOL_VERSION,
      },
    }).then((r) => r.text())
    endPhase('kill', {
      hot: {
        revokedProbesBefore: before,
        revokeAnswer: revoke.outcome,
        revokedProbesAfterOnInstances2And3: after.map((r) => r.outcome),
        bothProbesDoneWithinMs: msAfterRevoke,
        grantAnswer: grant.outcome,
        probesAfterGrant: regranted,
        session2025OnAnotherInstance: `${elsewhere.status} ${codeOf(elsewhereText)}`,
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

  // (d) Redis stopped, started again with its data, then empty (fleet-redis.mjs).
  await redisPhases({
    ...{ fleet, backends, balancer, redis, token, endPhase, drive, waitFor, startInstance },
    limits: { BODIES, SESSIONS, OUTAGE_S },
  })
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

// A limit past ×1.05 across the fleet, a lease outliving its time, or a gateway part that did
// not run fails the job.
const verdicts = phases.flatMap((p) =>
  ['withinLimitTimes105', 'withinAllowanceTimes105', 'withinLeaseTime']
    .filter((k) => p.hot?.[k] !== undefined)
    .map((k) => p.hot[k]),
)
if (
  verdicts.includes(false) ||
  gateways.error !== undefined ||
  !gateways.rate?.withinAllowanceTimes105
)
  process.exitCode = 1
