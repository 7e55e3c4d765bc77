// Fault runs: client abort mid-body, slow senders, a stdio peer closing mid-line, Redis stopped
// during redemption. Each checks the answer is fail-closed and that nothing leaked: active
// handles by type and heap/array buffers after a forced GC against a baseline, and (for the
// in-flight byte budget, which lives inside the process) that a full budget admits as many
// bodies afterwards as before (one client's share since fair admission, not the whole budget).
//
//   node jobs/faults/run.mjs [abort|slow|stdio|redis|all]   (apps built first: pnpm build)
//
// 127.0.0.1 only; every scenario is bounded in count and time (the slow-sender one waits for
// the 10 s idle and 30 s total body deadlines, so about 35 s).
import { spawn, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
// Not a workspace package: the kit's plain-JavaScript modules, imported by path.
import { initializeRequest } from '../../tools/test-kit/src/mcp-initialize.mjs'
import { hasRedisServer, startRedis } from '../../tools/test-kit/src/redis-server.mjs'
import {
  MiB,
  openMcpSession,
  ROOT,
  rawRequest,
  record,
  sleep,
  startExpressExample,
  startMcpServer,
  tally,
} from '../load/lib.mjs'

const round = (n) => Math.round(n * 10) / 10
// Bodies one principal (a client address in express-example, a credential in the MCP server)
// may hold at once: http-admission's default maxBodiesPerPrincipal. Every client here is one
// principal, so exactly this many are admitted while the others are held.
const PER_PRINCIPAL = 8

function delta(before, after) {
  const types = new Set([...Object.keys(before.resources), ...Object.keys(after.resources)])
  const handles = {}
  for (const t of types) {
    // Only growth counts: the baseline may hold the script's own keep-alive sockets, which
    // close on their own later.
    const d = (after.resources[t] ?? 0) - (before.resources[t] ?? 0)
    if (d > 0) handles[t] = d
  }
  return {
    handlesLeaked: handles,
    heapAfterGcMiB: { before: round(before.heapUsedMiB), after: round(after.heapUsedMiB) },
    arrayBuffersAfterGcMiB: {
      before: round(before.arrayBuffersMiB),
      after: round(after.arrayBuffersMiB),
    },
  }
}

/**
 * Probes every 250 ms until the active handles are back to the baseline's (or `maxMs` passes);
 * returns the last probe and how long it took, so a release that waits for a deadline shows.
 */
async function settle(app, before, maxMs = 15_000) {
  const started = Date.now()
  let after = await app.probe()
  const first = after
  while (Date.now() - started < maxMs) {
    if (Object.keys(delta(before, after).handlesLeaked).length === 0) break
    await sleep(250)
    after = await app.probe()
  }
  return { after, first, settledMs: Date.now() - started }
}

function jsonBody(bytes, prefix, suffix) {
  return Buffer.from(`${prefix}"${'x'.repeat(bytes - prefix.length - suffix.length - 2)}"${suffix}`)
}

/** All `count` bodies in flight at once (first KiB, a pause, the rest): statuses by count. */
async function fullBudget(port, count, headersFor, body) {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      rawRequest(port, {
        path: headersFor.path,
        headers: headersFor.headers(i, body.length),
        parts: [body.subarray(0, 1024), body.subarray(1024)],
        gapMs: 1_000,
      }),
    ),
  )
  return tally(answers.map((a) => a.status))
}

async function abortExpress() {
  const app = await startExpressExample()
  try {
    const body = jsonBody(MiB, '{"title":"abort","pad":', '}')
    const headers = {
      path: '/notes',
      headers: (_i, len) => ({ 'Content-Type': 'application/json', 'Content-Length': len }),
    }
    await sleep(300)
    // What a full budget admits with nothing aborted yet: since fair admission, one client
    // address gets at most its share (8 bodies), so "the whole budget" is what it got before.
    const budgetBefore = await fullBudget(app.port, 256, headers, body)
    await sleep(300)
    const before = await app.probe()
    // 300 clients each declare 1 MiB, send 256 KiB and vanish, 50 at a time.
    const aborted = []
    for (let batch = 0; batch < 6; batch++) {
      aborted.push(
        ...(await Promise.all(
          Array.from({ length: 50 }, () =>
            rawRequest(app.port, {
              path: '/notes',
              headers: { 'Content-Type': 'application/json', 'Content-Length': body.length },
              parts: [body.subarray(0, 256 * 1024)],
              abortAfterPart: 0,
            }),
          ),
        )),
      )
    }
    const { after, first, settledMs } = await settle(app, before)
    // Had any aborted body kept its reservation, fewer of these 256 would be admitted than before.
    const budget = await fullBudget(app.port, 256, headers, body)
    return {
      scenario:
        'client abort mid-body (express-example, POST /notes, 1 MiB declared, 256 KiB sent)',
      aborts: aborted.length,
      clientSide: tally(aborted.map((a) => a.status)),
      handlesRightAfter: delta(before, first).handlesLeaked,
      msUntilHandlesBackToBaseline: settledMs,
      ...delta(before, after),
      budgetBefore: { concurrentAtCap: 256, inFlightBudgetMiB: 256, statuses: budgetBefore },
      budgetAfterwards: { concurrentAtCap: 256, inFlightBudgetMiB: 256, statuses: budget },
      pass:
        Object.keys(delta(before, after).handlesLeaked).length === 0 &&
        budgetBefore['201'] === PER_PRINCIPAL &&
        budgetBefore['503'] === 256 - PER_PRINCIPAL &&
        budget['201'] === budgetBefore['201'] &&
        budget['503'] === budgetBefore['503'],
    }
  } finally {
    await app.stop()
  }
}

async function abortMcp() {
  const app = await startMcpServer()
  try {
    const session = await openMcpSession(app.port, app.token)
    const headers = {
      path: '/mcp',
      headers: (i, len) => ({
        Authorization: `Bearer ${app.token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': session,
        'Mcp-Protocol-Version': '2025-06-18',
        'Content-Length': len,
        'X-Seq': i,
      }),
    }
    const body = jsonBody(
      4 * MiB,
      '{"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":{"pad":',
      '}}}',
    )
    await sleep(300)
    // What a full budget admits before any abort (one credential: its share, 8 bodies).
    const budgetBefore = await fullBudget(app.port, 64, headers, body)
    await sleep(300)
    const before = await app.probe()
    const aborted = await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        rawRequest(app.port, {
          path: '/mcp',
          headers: headers.headers(i, body.length),
          parts: [body.subarray(0, MiB)],
          abortAfterPart: 0,
        }),
      ),
    )
    const { after, first, settledMs } = await settle(app, before)
    const budget = await fullBudget(app.port, 64, headers, body)
    return {
      scenario:
        'client abort mid-body (mcp-server, POST /mcp in a session, 4 MiB declared, 1 MiB sent)',
      aborts: aborted.length,
      clientSide: tally(aborted.map((a) => a.status)),
      handlesRightAfter: delta(before, first).handlesLeaked,
      msUntilHandlesBackToBaseline: settledMs,
      ...delta(before, after),
      budgetBefore: { concurrentAtCap: 64, inFlightBudgetMiB: 256, statuses: budgetBefore },
      budgetAfterwards: { concurrentAtCap: 64, inFlightBudgetMiB: 256, statuses: budget },
      pass:
        Object.keys(delta(before, after).handlesLeaked).length === 0 &&
        budgetBefore['200'] === PER_PRINCIPAL &&
        budgetBefore['503'] === 64 - PER_PRINCIPAL &&
        budget['200'] === budgetBefore['200'] &&
        budget['503'] === budgetBefore['503'],
    }
  } finally {
    await app.stop()
  }
}

async function slowSenders() {
  const app = await startExpressExample()
  try {
    const body = jsonBody(4096, '{"title":"slow","pad":', '}')
    const headers = { 'Content-Type': 'application/json', 'Content-Length': body.length }
    await sleep(300)
    const before = await app.probe()
    const started = Date.now()
    const [silent, trickle] = await Promise.all([
      // 20 clients send 100 bytes and then nothing: the 10 s idle deadline.
      Promise.all(
        Array.from({ length: 20 }, () =>
          rawRequest(app.port, {
            path: '/notes',
            headers,
            parts: [body.subarray(0, 100), body.subarray(100)],
            gapMs: 40_000,
            timeoutMs: 45_000,
          }),
        ),
      ),
      // 10 clients send one byte every 500 ms: under the idle deadline, past the 30 s total one.
      Promise.all(
        Array.from({ length: 10 }, () =>
          rawRequest(app.port, {
            path: '/notes',
            headers,
            parts: Array.from({ length: 100 }, (_, i) => body.subarray(i, i + 1)),
            gapMs: 500,
            timeoutMs: 45_000,
          }),
        ),
      ),
    ])
    await sleep(500)
    const after = await app.probe()
    const d = delta(before, after)
    return {
      scenario:
        'slow senders (express-example, 20 silent after 100 bytes, 10 trickling 1 byte / 500 ms)',
      silent: {
        statuses: tally(silent.map((a) => a.status)),
        msMax: Math.max(...silent.map((a) => a.ms)),
      },
      trickle: {
        statuses: tally(trickle.map((a) => a.status)),
        msMax: Math.max(...trickle.map((a) => a.ms)),
      },
      seconds: round((Date.now() - started) / 1000),
      ...d,
      // Since fair admission one client address holds at most 8 bodies at once: the rest are
      // refused at once with 503 (ERR_ADMISSION_PRINCIPAL_BUSY), which is fail-closed too; every
      // body that was admitted must end at a deadline (408).
      pass:
        [...silent, ...trickle].every((a) => a.status === 408 || a.status === 503) &&
        [...silent, ...trickle].filter((a) => a.status === 408).length === PER_PRINCIPAL &&
        Object.keys(d.handlesLeaked).length === 0,
    }
  } finally {
    await app.stop()
  }
}

/** Runs the reference server over stdio, feeds it `steps`, and reports how it ended. */
function stdioRun(steps) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`${ROOT}apps/mcp-server/dist/main.js`, '--stdio'], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    const started = Date.now()
    child.stdout.on('data', (c) => {
      stdout += c.toString()
    })
    child.stdin.on('error', () => {})
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      const lines = stdout.split('\n').filter(Boolean)
      resolve({
        code,
        signal,
        ms: Date.now() - started,
        responses: lines.map((l) => {
          try {
            const m = JSON.parse(l)
            return m.error ? `error ${m.error.code}` : `result id ${m.id}`
          } catch {
            return 'not JSON'
          }
        }),
      })
    })
    void (async () => {
      for (const step of steps) {
        if (step === 'end') child.stdin.end()
        else if (step === 'destroy') child.stdin.destroy()
        else if (typeof step === 'number') await sleep(step)
        else child.stdin.write(step)
      }
    })()
  })
}

async function stdioPeerClose() {
  const init = `${JSON.stringify(initializeRequest(1, 'faults'))}\n`
  const half = '{"jsonrpc":"2.0","id":2,"method":"tools/list","par'
  const cases = {
    'initialize answered, then half a line and stdin closed': [init, 500, half, 200, 'end'],
    'half a line and stdin closed before any message': [half, 200, 'end'],
    'initialize, then half of a 1 MiB line and the pipe destroyed': [
      init,
      500,
      `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"pad":"${'x'.repeat(MiB)}`,
      200,
      'destroy',
    ],
  }
  const out = {}
  for (const [name, steps] of Object.entries(cases)) out[name] = await stdioRun(steps)
  return {
    scenario: 'stdio peer closing mid-line (mcp-server --stdio as a child process)',
    cases: out,
    pass: Object.values(out).every(
      (r) => r.code === 0 && r.signal === null && !r.responses.includes('not JSON'),
    ),
  }
}

async function redisStop() {
  const requireFromBench = createRequire(`${ROOT}bench/package.json`)
  let redis
  let continuation
  let redisStore
  try {
    redis = requireFromBench('redis')
    continuation = requireFromBench('@tollgate/continuation')
    redisStore = requireFromBench('@tollgate/continuation/redis')
  } catch (error) {
    return {
      scenario: 'Redis stopped during redemption',
      skipped: `cannot load: ${error.message}`,
      pass: false,
    }
  }
  if (!hasRedisServer) {
    return { scenario: 'Redis stopped during redemption', skipped: 'no redis-server', pass: false }
  }
  let server
  try {
    server = await startRedis()
  } catch (error) {
    return { scenario: 'Redis stopped during redemption', error: String(error), pass: false }
  }
  const unhandled = []
  const onUnhandled = (reason) => unhandled.push(String(reason))
  process.on('unhandledRejection', onUnhandled)
  try {
    const client = redis.createClient({
      url: server.url,
      socket: { reconnectStrategy: () => 100 },
    })
    const clientErrors = []
    client.on('error', (e) => clientErrors.push(e.code ?? e.name))
    await client.connect()
    const store = redisStore.createRedisStore({ client, commandTimeoutMs: 300 })
    const events = []
    const service = continuation.createContinuations({
      store,
      audit: { record: (e) => events.push(e) },
    })
    const registry = continuation.createToolRegistry([
      { name: 'knowledge', tier: 'read' },
      { name: 'knowledge.documents.get', tier: 'read' },
    ])
    const route = continuation.createRouteView({
      name: '/mcp',
      registry,
      ceiling: 'read',
      mount: ['knowledge', 'knowledge.**'],
    })
    const permissions = new Set()
    const resolved = continuation.resolveScoped(
      route,
      { kind: 'group', dispatcher: 'knowledge', resource: 'documents', action: 'get' },
      permissions,
    )
    if (!resolved.ok) throw new Error('the fault fixture did not resolve')
    const payload = JSON.stringify({ body: 'y'.repeat(70 * 1024) })
    const ctx = { ownerKey: 'owner', route, permissions }
    const minted = await service.mint({ ownerKey: 'owner', target: resolved.target, payload })
    const servedBefore = minted.ok ? await service.redeem(minted.token, ctx) : { ok: false }
    const handlesBefore = tally(process.getActiveResourcesInfo())
    await server.stop()
    const t0 = Date.now()
    const refused = minted.ok ? await service.redeem(minted.token, ctx) : undefined
    const redeemMs = Date.now() - t0
    const mintAfter = await service.mint({ ownerKey: 'owner', target: resolved.target, payload })
    await sleep(300)
    await client.destroy?.()
    await sleep(200)
    const handlesAfter = tally(process.getActiveResourcesInfo())
    return {
      scenario:
        'Redis stopped during redemption (@tollgate/continuation with its Redis store, private redis-server killed)',
      mintBefore: minted.ok ? 'ok' : minted,
      redeemBefore: servedBefore.ok ? 'served' : 'refused',
      redeemAfterStop:
        refused === continuation.CONTINUATION_REFUSED
          ? 'CONTINUATION_REFUSED (the one expired-or-not-found outcome)'
          : JSON.stringify(refused),
      redeemAfterStopMs: redeemMs,
      auditReasonAfterStop:
        events.filter((e) => e.event === 'continuation_refused').at(-1)?.reason ?? 'none recorded',
      mintAfterStop: mintAfter.ok ? 'ok (unexpected)' : mintAfter.error.code,
      unhandledRejections: unhandled,
      clientErrors: tally(clientErrors),
      handlesBefore,
      handlesAfterClientDestroyed: handlesAfter,
      pass:
        minted.ok &&
        servedBefore.ok &&
        refused === continuation.CONTINUATION_REFUSED &&
        !mintAfter.ok &&
        unhandled.length === 0,
    }
  } catch (error) {
    return { scenario: 'Redis stopped during redemption', error: String(error), pass: false }
  } finally {
    process.off('unhandledRejection', onUnhandled)
    await server.stop()
  }
}

const which = process.argv[2] ?? 'all'
const results = []
if (which === 'abort' || which === 'all') results.push(await abortExpress(), await abortMcp())
if (which === 'slow' || which === 'all') results.push(await slowSenders())
if (which === 'stdio' || which === 'all') results.push(await stdioPeerClose())
if (which === 'redis' || which === 'all') results.push(await redisStop())
record(new URL('./', import.meta.url), `faults-${which}`, { results })
if (results.some((r) => !r.pass)) process.exitCode = 1

// `pnpm faults` ends with the document, so it always states the result just recorded.
const doc = spawnSync(
  process.execPath,
  [new URL('../load/write-doc.mjs', import.meta.url).pathname],
  {
    stdio: 'inherit',
  },
)
if (doc.status !== 0) process.exitCode = 1
