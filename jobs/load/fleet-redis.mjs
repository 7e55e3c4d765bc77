// The Redis phases of the fleet row (fleet.mjs): Redis SIGKILLed for a few seconds while the
// instances serve (the rate fails closed with 503; the 2025 bodies and sessions fall back to a
// local share of limit ÷ 3 on one instance), started again from its append-only file (recovery
// without a restart), then started again without its data (what the instances answer, and
// what a restart of one of them changes). `ctx` is the row's state and helpers.
import { PROTOCOL_VERSION } from '../../tools/test-kit/src/mcp-initialize.mjs'
import { call2026, figures, holdPost, tally } from './fleet-client.mjs'
import { openMcpSession, sleep } from './lib.mjs'

/** The audit lines named `event` of each instance, counted by the limit they name. */
function auditByLimit(fleet, event) {
  return fleet.map((f) =>
    tally(
      f
        .output()
        .split('\n')
        .filter((l) => l.includes(`"${event}"`))
        .map((l) => /"limit":"([^"]+)"/.exec(l)?.[1] ?? 'store'),
    ),
  )
}

/** Runs the phases `redis-down`, `recovery` and `empty-restart`, each closed by `ctx.endPhase`. */
export async function redisPhases(ctx) {
  const { fleet, backends, balancer, redis, token, endPhase, drive, waitFor, startInstance } = ctx
  const { BODIES, SESSIONS, OUTAGE_S } = ctx.limits
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
  const audit = (event) => auditByLimit(fleet, event)
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
      limitStoreUnavailableLinesPerInstanceAtEnd: audit('limit_store_unavailable'),
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
