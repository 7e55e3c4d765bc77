// Concurrent at-cap bodies against the Express example and the reference MCP server.
//
//   node jobs/load/at-cap.mjs [express|mcp|all]      (apps built first: pnpm build)
//
// Each app runs as a child process on 127.0.0.1 with its defaults (the process-wide in-flight
// budget of 256 MiB). A wave opens N sockets at once, each declaring a body exactly at the
// route's cap; each writes its first KiB, waits 1 s, then writes the rest, so all N bodies are
// in flight at the same time (the budget reserves a declared length when the headers arrive). N is chosen so that N × cap exceeds the budget: the bodies past it must be
// answered 503 (ERR_ADMISSION_BUSY), the rest served, none left unanswered. The child's RSS is
// sampled every 20 ms (the instrument: VmRSS from /proc, plus the kernel's peak VmHWM), and
// after the waves the probe reports heap and active handles after a full GC against the
// baseline taken before them. Bounded: 3 waves, at most ~2 minutes.
import {
  MiB,
  openMcpSession,
  procMemory,
  rawRequest,
  record,
  sampleRss,
  sleep,
  startExpressExample,
  startMcpServer,
  tally,
} from './lib.mjs'

const BUDGET_MiB = 256
const WAVES = 3

/** A JSON body of exactly `bytes` bytes: `prefix` + a padding string + `suffix`. */
function bodyOf(bytes, prefix, suffix) {
  const pad = bytes - Buffer.byteLength(prefix) - Buffer.byteLength(suffix) - 2
  return Buffer.from(`${prefix}"${'x'.repeat(pad)}"${suffix}`)
}

async function wave(app, count, makeRequest) {
  const sampler = sampleRss(app.child.pid)
  const started = Date.now()
  const answers = await Promise.all(Array.from({ length: count }, (_, i) => makeRequest(i)))
  const seconds = (Date.now() - started) / 1000
  const peak = sampler.stop()
  return { statuses: tally(answers.map((a) => a.status)), seconds, sampledPeakRssMiB: peak }
}

async function run(name, start, capBytes, count, allowed, requestFor) {
  const app = await start()
  try {
    await sleep(500)
    const before = await app.probe()
    const waves = []
    for (let i = 0; i < WAVES; i++) {
      waves.push(await wave(app, count, (j) => requestFor(app, i * count + j)))
      await sleep(500)
    }
    const after = await app.probe()
    const kernel = procMemory(app.child.pid)
    const statuses = {}
    for (const w of waves)
      for (const [k, v] of Object.entries(w.statuses)) statuses[k] = (statuses[k] ?? 0) + v
    const unexpected = Object.keys(statuses).filter((s) => !allowed.includes(s))
    const sampledPeak = Math.max(...waves.map((w) => w.sampledPeakRssMiB))
    const result = {
      target: name,
      capBytes,
      concurrentPerWave: count,
      waves: WAVES,
      inFlightBudgetMiB: BUDGET_MiB,
      statuses,
      unexpectedStatuses: unexpected,
      everyRequestAnswered: unexpected.length === 0,
      baselineRssMiB: round(before.rssMiB),
      sampledPeakRssMiB: round(sampledPeak),
      kernelPeakRssMiB: round(kernel.peakRssMiB),
      peakOverBaselineMiB: round(Math.max(sampledPeak, kernel.peakRssMiB) - before.rssMiB),
      peakOverBaselineMinusBudgetMiB: round(
        Math.max(sampledPeak, kernel.peakRssMiB) - before.rssMiB - BUDGET_MiB,
      ),
      heapAfterGcMiB: { before: round(before.heapUsedMiB), after: round(after.heapUsedMiB) },
      arrayBuffersAfterGcMiB: {
        before: round(before.arrayBuffersMiB),
        after: round(after.arrayBuffersMiB),
      },
      activeResources: { before: before.resources, after: after.resources },
      waveSeconds: waves.map((w) => round(w.seconds)),
      instrument:
        'RSS of the app process: VmRSS sampled every 20 ms and VmHWM (kernel peak) from /proc/<pid>/status; heap and handles from process.memoryUsage() and process.getActiveResourcesInfo() after two forced GCs',
    }
    return result
  } finally {
    await app.stop()
  }
}

function round(n) {
  return Math.round(n * 10) / 10
}

async function express() {
  const cap = 1 * MiB // POST /notes: admission({ maxBytes: 1 MiB })
  const body = bodyOf(cap, '{"title":"load","pad":', '}')
  return run(
    'express-example POST /notes (1 MiB cap)',
    startExpressExample,
    cap,
    300,
    ['201', '503'],
    (app) =>
      rawRequest(app.port, {
        path: '/notes',
        headers: { 'Content-Type': 'application/json', 'Content-Length': body.length },
        parts: [body.subarray(0, 1024), body.subarray(1024)],
        gapMs: 1_000,
      }),
  )
}

async function mcp() {
  const cap = 4 * MiB // Streamable HTTP POST default cap
  let session
  let token
  return run(
    'mcp-server POST /mcp ping (4 MiB cap)',
    async () => {
      const app = await startMcpServer()
      token = app.token
      session = await openMcpSession(app.port, token)
      return app
    },
    cap,
    80,
    ['200', '503'],
    (app, i) => {
      const body = bodyOf(
        cap,
        `{"jsonrpc":"2.0","id":${1000 + i},"method":"ping","params":{"_meta":{"pad":`,
        '}}}',
      )
      return rawRequest(app.port, {
        path: '/mcp',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Mcp-Session-Id': session,
          'Mcp-Protocol-Version': '2025-06-18',
          'Content-Length': body.length,
        },
        parts: [body.subarray(0, 1024), body.subarray(1024)],
        gapMs: 1_000,
      })
    },
  )
}

const which = process.argv[2] ?? 'all'
const results = []
if (which === 'express' || which === 'all') results.push(await express())
if (which === 'mcp' || which === 'all') results.push(await mcp())
record(new URL('./', import.meta.url), `at-cap-${which}`, { results })
if (results.some((r) => !r.everyRequestAnswered)) process.exitCode = 1
