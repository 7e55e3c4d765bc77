// Renders the fleet row (jobs/load/results/fleet.json, written by fleet.mjs) as a section of
// docs/load-and-faults.md: one table of phases for the three servers, one for the three
// gateways, each with the load average it was measured under.

const fmt = (v) => (typeof v === 'object' && v !== null ? `\`${JSON.stringify(v)}\`` : String(v))
const codes = (outcomes) =>
  Object.entries(outcomes ?? {})
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ')
const latency = (f) => (f.served === 0 ? 'none served' : `p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms`)
// Audit lines of each instance, by the limit they name.
const byInstance = (list) =>
  list.map((o, i) => `${i + 1}: ${typeof o === 'object' ? codes(o) || 'none' : o}`).join('; ')
const others = (f) =>
  `${f.served}/${f.requests} served (${(100 * (f.successRate ?? 0)).toFixed(1)} %), ${latency(f)}; ${codes(f.outcomes)}`

/** What the driven principal got in each phase, in one sentence. */
function driven(p) {
  const h = p.hot
  switch (p.phase) {
    case 'in-flight':
      return `${h.sent} requests held after their first bytes, round robin: **${h.admittedInFlight} admitted in flight** (limit ${h.limit}; within ×1.05: ${h.withinLimitTimes105 ? 'yes' : '**no**'}), refused ${codes(h.refused)}; the admitted, once finished: ${codes(h.admittedThenServed)}`
    case 'rate':
      return `${h.requests} calls on 2 connections, ${h.reqPerS} req/s: **${h.admitted} admitted** against an allowance of ${h.allowance} (${h.limitPerMinute}/min bucket + refill over the drive; within ×1.05: ${h.withinAllowanceTimes105 ? 'yes' : '**no**'}); ${codes(h.outcomes)}; Retry-After ${fmt(h.retryAfterSeconds)} s; served ${latency(h)}`
    case 'state':
      return `a credential's \`read\` revoked on instance 1 (${h.revokeAnswer}): its next call on instances 2 and 3 answers ${h.revokedProbesAfterOnInstances2And3.join(' / ')} (both within ${h.bothProbesDoneWithinMs} ms of the revocation; before it: ${h.revokedProbesBefore.join(' / ')}); granted again (${h.grantAnswer}): ${h.probesAfterGrant.join(' / ')}. A 2025 session of instance 1 presented to instance 2: ${h.session2025OnAnotherInstance}`
    case 'kill':
      return `another credential holds its ${h.heldOnKilledInstance} leases on instance 3; before the kill instance 1 answers ${h.probeBeforeKill}; instance 3 SIGKILLed: **served again on instances 1–2 after ${h.servedAgainAfterMs} ms** (lease ${h.leaseMs} ms; probes ${codes(h.probesAfterKill)}); balancer 502s so far: ${h.balancer502}`
    case 'redis-down':
      return `Redis SIGKILLed for ${h.outageSeconds} s. Rate (2026): ${codes(h.rate.outcomes)}. 2025 bodies in flight on one session of instance 1: ${h.bodiesInFlight2025.admitted} of ${h.bodiesInFlight2025.held} admitted (local share ${h.bodiesInFlight2025.localShare} of ${h.bodiesInFlight2025.limit}), refused ${codes(h.bodiesInFlight2025.refused)}, the admitted then answered ${codes(h.bodiesInFlight2025.admittedThenServed)}. 2025 sessions on instance 1 (local share ${h.sessions2025.localShare}): ${h.sessions2025.attempts.join(', ')}. \`limit_store_unavailable\` lines by instance: ${byInstance(h.limitStoreUnavailableLinesPerInstance)}`
    case 'recovery':
      return `Redis started again from its append-only file: **first call served ${h.firstServedAfterRedisStartMs} ms later**, nothing restarted; next 8 s: ${others(h.rate)}; \`limit_store_recovered\` lines by instance at the end of this phase: ${byInstance(h.limitStoreRecoveredLinesPerInstance)}${h.limitStoreUnavailableLinesPerInstanceAtEnd === undefined ? '' : `; \`limit_store_unavailable\` by then: ${byInstance(h.limitStoreUnavailableLinesPerInstanceAtEnd)}`}`
    case 'empty-restart':
      return `Redis started again **empty** (its file deleted): ${codes(h.emptyRedis.outcomes)}; \`capability_state_lost\` lines by instance: ${byInstance(h.capabilityStateLostLinesPerInstance)} (instance 1's count is of its new process); after restarting instance 1 only, one call to each: ${h.afterRestartingInstance1OnlyOneCallEach.join(' / ')}`
    default:
      return h === undefined ? '—' : fmt(h)
  }
}

const PHASE_NAMES = {
  baseline: 'baseline',
  'in-flight': '(a) in flight',
  rate: '(a) rate',
  state: 'revocation, session elsewhere',
  kill: '(c) instance killed',
  rejoin: 'instance 3 restarted, rejoins',
  'redis-down': '(d) Redis down',
  recovery: '(d) recovery',
  'empty-restart': 'Redis back empty',
}

/** The lines of the fleet section for `run` (a parsed fleet result); `machineLine` as write-doc's. */
export function fleetSection(run, machineLine) {
  const s = run.settings
  const out = [
    '',
    '## A fleet: three instances on one Redis',
    '',
    machineLine(run),
    '',
    `${run.target}. Limits: ${s.requestsPerMinutePerPrincipal} requests per minute and ${s.requestsInFlightPerPrincipal} in flight per principal, ${s.sessionsPerCredential} sessions per credential, ${s.bodiesInFlightPerPrincipal} bodies in flight per principal; \`--fleet-instances 3\`, \`--fleet-lease-ms ${s.fleetLeaseMs}\`; Redis with AOF (fsync every second). ${s.otherCredentials} other credentials call \`project.list\` throughout, each one call then ${s.otherPaceMs} ms pause. ${run.seconds} s in all; the balancer forwarded ${fmt(run.balancer.forwarded)} (by port) and answered ${run.balancer.badGateway} 502s. **Measured on a shared 2-core machine under load** (load average per phase below): latencies are this machine's, not the fleet's.`,
    '',
    '| phase | s | the driven principal | other credentials | load avg (1/5/15 min) | RSS per instance (MiB) |',
    '| --- | --- | --- | --- | --- | --- |',
  ]
  for (const p of run.phases) {
    out.push(
      `| ${PHASE_NAMES[p.phase] ?? p.phase} | ${p.seconds} | ${p.hot === undefined ? '—' : driven(p)} | ${others(p.others)} | ${p.loadAverage.join(' / ')} | ${p.rssMiB.map((r) => r ?? 'killed').join(' / ')} |`,
    )
  }
  out.push(
    '',
    `Other credentials over the whole run: ${others(run.othersOverall)}. RSS after GC at the end: ${run.rssAtEndAfterGcMiB.join(' / ')} MiB; peak RSS per process: ${run.peakRssMiB.join(' / ')} MiB (instances 1 and 3 are restarted processes).`,
  )
  const g = run.gateways
  if (g === undefined) return out
  out.push('', '### Three gateways in front of one upstream', '')
  if (g.error !== undefined) {
    out.push(`Not measured: ${g.error}.`)
    return out
  }
  out.push(
    `${g.target}. Config limits: burst ${g.settings.burst}, ${g.settings.ratePerMinute} per minute per principal × tool. Load average ${g.loadAverage.before.join(' / ')} before, ${g.loadAverage.after.join(' / ')} after.`,
    '',
    '| measure | value |',
    '| --- | --- |',
    `| rate, ${g.settings.driveSeconds} s round robin | ${g.rate.requests} calls, ${g.rate.reqPerS} req/s: **${g.rate.admitted} admitted** (${g.rate.admittedPerGateway.join(' / ')} per gateway) against an allowance of ${g.rate.allowance} (burst + refill; within ×1.05: ${g.rate.withinAllowanceTimes105 ? 'yes' : '**no**'}); served ${latency(g.rate)} |`,
    `| Redis down ${g.settings.outageSeconds} s | ${g.redisDown.requests} calls: ${codes(g.redisDown.outcomes)} |`,
    `| Redis started again | first call served ${g.firstServedAfterRedisStartMs} ms later, nothing restarted |`,
    `| audit lines per gateway | \`limit_store_unavailable\` ${g.limiterStoreUnavailableLinesPerGateway.join(' / ')}; \`limit_store_recovered\` ${g.limiterStoreRecoveredLinesPerGateway.join(' / ')} (written by a gateway on its first call after Redis is back) |`,
    `| refusals by code | ${codes(g.refusalsByCode)} |`,
    `| RSS per gateway; upstream | ${g.rssMiB.join(' / ')} MiB; ${g.upstreamRssMiB} MiB |`,
  )
  return out
}
