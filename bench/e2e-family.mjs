// The measurement shared by the end-to-end family benchmarks (admission-family, mcp-family):
// two servers on 127.0.0.1, one keep-alive raw client each, calls interleaved one by one with
// the order flipped every call. Each call's cost is the CPU time of this process (client and
// server together: process.cpuUsage, user + system) from the write to the last byte of the
// answer, so the time spent waiting for a shared core does not count; the wall time is kept
// beside it. The figure per shape is the median over rounds of (anchor median CPU per call ÷
// subject median CPU per call): a throughput ratio, 1 = no cost.
import { loadavg } from 'node:os'
import { rawClient } from './raw-http.mjs'

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/** The load average now, as the report prints it (1/5/15 min). */
export function loadNow() {
  return loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')
}

/** Opens one raw client per server. */
export async function clientsFor(anchorPort, subjectPort) {
  return { anchor: await rawClient(anchorPort), subject: await rawClient(subjectPort) }
}

/**
 * Interleaved timing of one input: `requests.anchor` and `requests.subject` are prepared
 * request bytes (as `requestBytes` makes them); `accept(leg, answer)` throws on a wrong answer,
 * so a refusal is never timed as a fast call. Calls per round come from a warm-up: about
 * `roundMs` of CPU time per leg (both legs together), between `minCalls` and `maxCalls`.
 */
export async function interleaved(clients, requests, accept, options = {}) {
  const { rounds = 3, roundMs = 250, minCalls = 9, maxCalls = 400 } = options
  const once = async (leg) => {
    const before = process.cpuUsage()
    const answer = await clients[leg].send(requests[leg])
    const used = process.cpuUsage(before)
    accept(leg, answer)
    wall[leg].push(answer.ns)
    return (used.user + used.system) * 1000
  }
  const wall = { anchor: [], subject: [] }
  // Warm-up: both legs, also the estimate of a call's time.
  let warmNs = 0
  for (let i = 0; i < 4; i++) {
    warmNs = (await once('anchor')) + (await once('subject'))
  }
  wall.anchor.length = 0
  wall.subject.length = 0
  const calls = Math.max(minCalls, Math.min(maxCalls, Math.round((roundMs * 1e6) / warmNs)))
  const ratios = []
  let anchorNs = 0
  let subjectNs = 0
  for (let round = 0; round < rounds; round++) {
    const times = { anchor: [], subject: [] }
    for (let i = 0; i < calls; i++) {
      const legs = (round + i) % 2 ? ['subject', 'anchor'] : ['anchor', 'subject']
      for (const leg of legs) times[leg].push(await once(leg))
    }
    anchorNs = median(times.anchor)
    subjectNs = median(times.subject)
    ratios.push(anchorNs / subjectNs)
  }
  return {
    ratio: median(ratios),
    ratios,
    anchorNs,
    subjectNs,
    anchorWallNs: median(wall.anchor),
    subjectWallNs: median(wall.subject),
    calls,
  }
}

/** Median and worst (least) ratio over `rows`, the worst with the shape it was measured on. */
export function summarize(figure, rows, goal) {
  const ratios = rows.map((r) => r.ratio)
  const worst = rows.reduce((w, r) => (r.ratio < w.ratio ? r : w))
  return {
    figure,
    instance: worst.instance,
    median: median(ratios),
    worst: worst.ratio,
    ratio: worst.ratio,
    goal,
  }
}
