// The fair-admission attack matrix: each way one client can starve others (endless bodies,
// session and continuation floods, unauthenticated bursts, held-back initializes) run against
// the built apps while a legitimate client keeps working, with that client's served count and
// latency (p50/p99) alone ("before") and under the attack ("during"). Results go to
// jobs/load/results/attacks-<target>.json; `node jobs/load/write-doc.mjs` renders them.
// Everything talks to 127.0.0.1 only; every loop is bounded in count and time.
//
//   node jobs/load/attacks.mjs [mcp|express|all] [label]

import { spawnSync } from 'node:child_process'
import { connect } from 'node:net'
// Not a workspace package: the kit's plain-JavaScript module, imported by path.
import {
  initializeRequest,
  MCP_POST_HEADERS,
  PROTOCOL_VERSION,
} from '../../tools/test-kit/src/mcp-initialize.mjs'
import {
  MiB,
  openMcpSession,
  ROOT,
  rawRequest,
  record,
  sleep,
  startExpressExample,
  startMcpServer,
} from './lib.mjs'

const LEGIT_REQUESTS = 40
const ATTACK_SECONDS = 5
// The attacker's sockets come from another loopback address than the legitimate client's
// (127.0.0.1): they are different clients, as an app keying shares by address sees them.
const ATTACKER = '127.0.0.2'

/** The reference server's session flags, when the built server has them (older builds do not). */
function sessionFlags(total, perCredential) {
  const help = spawnSync(process.execPath, [`${ROOT}apps/mcp-server/dist/main.js`, '--help'], {
    encoding: 'utf8',
  })
  const usage = `${help.stdout}${help.stderr}`
  return usage.includes('--max-sessions-per-credential')
    ? ['--max-sessions', String(total), '--max-sessions-per-credential', String(perCredential)]
    : []
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

/** Runs `request()` `count` times in sequence; served = 2xx answers. */
async function legitimate(request, count = LEGIT_REQUESTS) {
  const times = []
  let served = 0
  const statuses = {}
  for (let i = 0; i < count; i++) {
    const started = performance.now()
    let status
    try {
      status = await request()
    } catch (error) {
      status = `error ${error?.cause?.code ?? error?.name ?? 'unknown'}`
    }
    times.push(performance.now() - started)
    statuses[status] = (statuses[status] ?? 0) + 1
    if (typeof status === 'number' && status >= 200 && status < 300) served++
  }
  times.sort((a, b) => a - b)
  const ms = (v) => (v === null ? null : Number(v.toFixed(1)))
  return {
    requests: count,
    served,
    statuses,
    p50Ms: ms(percentile(times, 50)),
    p99Ms: ms(percentile(times, 99)),
  }
}

/**
 * Opens a socket that sends a POST head and then an endless chunked body as fast as the
 * server takes it; counts the body bytes the server accepted until it closes or `stop()`.
 */
function endlessBody(port, path, headers = {}) {
  const socket = connect({ host: '127.0.0.1', port, localAddress: ATTACKER })
  const piece = Buffer.alloc(64 * 1024, 0x20)
  const framed = Buffer.concat([
    Buffer.from(`${piece.length.toString(16)}\r\n`),
    piece,
    Buffer.from('\r\n'),
  ])
  let accepted = 0
  let status
  let closed = false
  let stopped = false
  const started = Date.now()
  let closedAfterMs
  socket.on('error', () => {})
  socket.on('data', (chunk) => {
    status ??= Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? 0)
  })
  socket.on('close', () => {
    closed = true
    closedAfterMs = Date.now() - started
  })
  const pump = () => {
    while (!closed && !stopped) {
      if (!socket.write(framed)) {
        socket.once('drain', pump)
        return
      }
      accepted += piece.length
    }
  }
  socket.on('connect', () => {
    socket.write(
      [
        `POST ${path} HTTP/1.1`,
        'Host: 127.0.0.1',
        'Content-Type: application/json',
        'Transfer-Encoding: chunked',
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
        '',
        '',
      ].join('\r\n'),
    )
    pump()
  })
  return {
    stop() {
      stopped = true
      socket.destroy()
      return {
        answer: status ?? 'none',
        bytesSent: accepted,
        closedByServerAfterMs: closedAfterMs ?? null,
      }
    },
  }
}

/** Holds `count` sockets that declare `declared` bytes and trickle one byte every `everyMs`. */
function idleDeclared(port, path, count, declared, headers = {}, everyMs = 8_000) {
  const sockets = []
  const answers = {}
  for (let i = 0; i < count; i++) {
    const socket = connect({ host: '127.0.0.1', port, localAddress: ATTACKER })
    socket.on('error', () => {})
    socket.once('data', (chunk) => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? 'other'
      answers[status] = (answers[status] ?? 0) + 1
    })
    socket.on('connect', () => {
      socket.write(
        [
          `POST ${path} HTTP/1.1`,
          'Host: 127.0.0.1',
          'Content-Type: application/json',
          `Content-Length: ${declared}`,
          ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
          '',
          '[',
        ].join('\r\n'),
      )
    })
    sockets.push(socket)
  }
  const timer = setInterval(() => {
    for (const s of sockets) if (!s.destroyed) s.write(' ')
  }, everyMs)
  return {
    stop() {
      clearInterval(timer)
      const open = sockets.filter((s) => !s.destroyed).length
      for (const s of sockets) s.destroy()
      return { sockets: count, declaredBytes: declared, stillOpenAtEnd: open, answers }
    },
  }
}

const MCP_HEADERS = { ...MCP_POST_HEADERS, 'mcp-protocol-version': PROTOCOL_VERSION }

async function mcpPost(port, path, token, session, message) {
  const answer = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: {
      ...MCP_HEADERS,
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(session === undefined ? {} : { 'mcp-session-id': session }),
    },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(10_000),
  })
  const text = await answer.text()
  return { status: answer.status, text, session: answer.headers.get('mcp-session-id') }
}

async function runAttack(name, legit, attack, settleMs = 500) {
  const before = await legitimate(legit)
  const handle = await attack.start()
  await sleep(settleMs)
  const during = await legitimate(legit)
  const observed = await attack.stop(handle)
  return { attack: name, before, during, observed }
}

async function mcpMatrix() {
  const results = []
  // A small session cap makes the session rows cheap to reach; the idle expiry is left at its default.
  const flags = sessionFlags(50, 10)
  const app = await startMcpServer(flags)
  const admin = app.token
  const reader = app.tokens?.['demo-reader']
  try {
    const session = await openMcpSession(app.port, admin, '/mcp')
    let seq = 0
    const ping = async () =>
      (
        await mcpPost(app.port, '/mcp', admin, session, {
          jsonrpc: '2.0',
          id: ++seq,
          method: 'ping',
        })
      ).status

    results.push(
      await runAttack('2 sockets: unauthenticated POST with an endless chunked body', ping, {
        start: () => [endlessBody(app.port, '/mcp'), endlessBody(app.port, '/mcp')],
        stop: async (socks) => {
          await sleep(ATTACK_SECONDS * 1000)
          return socks.map((s) => s.stop())
        },
      }),
    )
    results.push(
      await runAttack('2 sockets: endless chunked body to an unknown route (404)', ping, {
        start: () => [endlessBody(app.port, '/nope'), endlessBody(app.port, '/nope')],
        stop: async (socks) => {
          await sleep(ATTACK_SECONDS * 1000)
          return socks.map((s) => s.stop())
        },
      }),
    )
    if (reader !== undefined) {
      results.push(
        await runAttack(
          '64 idle sockets of demo-reader declaring 4 MiB on /mcp/public, 1 byte every 8 s',
          ping,
          {
            start: () =>
              idleDeclared(app.port, '/mcp/public', 64, 4 * MiB, {
                Authorization: `Bearer ${reader}`,
                Accept: 'application/json, text/event-stream',
              }),
            stop: async (h) => h.stop(),
          },
          2_000,
        ),
      )
      // Continuation minting by one credential, then another credential's older token (before
      // the session row below, which leaves demo-reader at its session quota).
      results.push(await continuationRow(app.port, admin, reader))
      // One credential opening sessions until refused; another credential still opens one.
      const opened = { ok: 0, refused: {} }
      for (let i = 0; i < 60; i++) {
        const r = await mcpPost(
          app.port,
          '/mcp/public',
          reader,
          undefined,
          initializeRequest(i, `attack-${i}`),
        )
        if (r.session) opened.ok++
        else opened.refused[r.status] = (opened.refused[r.status] ?? 0) + 1
      }
      const other = await legitimate(async () => {
        const r = await mcpPost(
          app.port,
          '/mcp',
          admin,
          undefined,
          initializeRequest(0, 'attack-0'),
        )
        if (r.session) await closeSession(app.port, '/mcp', admin, r.session)
        return r.status
      }, 5)
      results.push({
        attack: 'demo-reader opens 60 sessions',
        serverArgs: flags,
        before: null,
        during: other,
        observed: opened,
      })
    }
    // Unauthenticated burst: audit lines written for 2,000 refused requests.
    const linesBefore = auditCount(app.output(), 'auth_refused')
    const burst = await Promise.all(
      Array.from({ length: 2000 }, () =>
        rawRequest(app.port, {
          method: 'POST',
          path: '/mcp',
          headers: { 'Content-Length': '0' },
          timeoutMs: 10_000,
        }),
      ),
    )
    await sleep(1_500)
    results.push({
      attack: 'unauthenticated burst: 2,000 POSTs without a credential',
      before: null,
      during: null,
      observed: {
        answers: tallyStatus(burst),
        auditLinesNamingAuthRefused: auditCount(app.output(), 'auth_refused') - linesBefore,
      },
    })
  } finally {
    await app.stop()
  }
  // Held-back initializes against a cap of 5 (fresh server).
  const cappedFlags = sessionFlags(5, 5)
  const capped = await startMcpServer(cappedFlags)
  try {
    const body = JSON.stringify(initializeRequest(1, 'attack-1'))
    const held = await Promise.all(
      Array.from({ length: 40 }, () =>
        rawRequest(capped.port, {
          method: 'POST',
          path: '/mcp',
          headers: {
            Authorization: `Bearer ${capped.token}`,
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            'Content-Length': String(Buffer.byteLength(body)),
          },
          parts: [body.slice(0, 10), body.slice(10)],
          gapMs: 1_000,
          timeoutMs: 15_000,
        }),
      ),
    )
    results.push({
      attack: '40 concurrent initializes with held-back bodies',
      serverArgs: cappedFlags,
      before: null,
      during: null,
      observed: {
        answers: tallyStatus(held),
        sessionsOpened: held.filter((r) => r.status === 200).length,
      },
    })
  } finally {
    await capped.stop()
  }
  return results
}

async function closeSession(port, path, token, session) {
  await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'DELETE',
    headers: { ...MCP_HEADERS, authorization: `Bearer ${token}`, 'mcp-session-id': session },
  }).then((r) => r.text())
}

async function continuationRow(port, admin, reader) {
  const call = (id, token, session, name, args) =>
    mcpPost(port, '/mcp', token, session, {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    })
  const heavy = { projectId: 'atlas', documentId: 'atlas-handbook' }
  const adminSession = await openMcpSession(port, admin, '/mcp')
  const first = await call(1, admin, adminSession, 'knowledge.get', heavy)
  const minted = continuationToken(first.text)
  let mints = 0
  if (reader !== undefined) {
    const readerSession = await openMcpSession(port, reader, '/mcp')
    for (let batch = 0; batch < 12; batch++) {
      const answer = await mcpPost(
        port,
        '/mcp',
        reader,
        readerSession,
        Array.from({ length: 100 }, (_, i) => ({
          jsonrpc: '2.0',
          id: batch * 100 + i + 10,
          method: 'tools/call',
          params: { name: 'knowledge.get', arguments: heavy },
        })),
      )
      if (answer.status === 200) mints += 100
    }
  }
  const redeemed =
    minted === undefined
      ? 'no token in the first answer'
      : JSON.parse(
            (await call(2, admin, adminSession, 'continuation.fetch', { token: minted })).text,
          )?.result?.isError === true
        ? 'refused (expired-or-unknown)'
        : 'served'
  return {
    attack: 'demo-reader mints 1,200 heavy results in batches of 100',
    before: null,
    during: null,
    observed: { readerMintsAttempted: mints, adminTokenMintedBeforeIsThen: redeemed },
  }
}

function continuationToken(text) {
  try {
    const inner = JSON.parse(JSON.parse(text).result.content[0].text)
    return inner.continuation?.token
  } catch {
    return undefined
  }
}

function auditCount(output, event) {
  return output.split('\n').filter((line) => line.includes(`"${event}"`)).length
}

function tallyStatus(answers) {
  const out = {}
  for (const a of answers) out[a.status] = (out[a.status] ?? 0) + 1
  return out
}

async function expressMatrix() {
  const results = []
  const app = await startExpressExample()
  try {
    let n = 0
    const post = async () => {
      const r = await fetch(`http://127.0.0.1:${app.port}/notes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: `note ${++n}` }),
        signal: AbortSignal.timeout(10_000),
      })
      await r.text()
      return r.status
    }
    results.push(
      await runAttack('2 sockets: endless chunked body to a route that takes none', post, {
        start: () => [
          endlessBody(app.port, '/notes/does-not-exist'),
          endlessBody(app.port, '/nope'),
        ],
        stop: async (socks) => {
          await sleep(ATTACK_SECONDS * 1000)
          return socks.map((s) => s.stop())
        },
      }),
    )
    results.push(
      await runAttack(
        '256 idle sockets declaring 1 MiB on POST /notes, 1 byte every 8 s',
        post,
        {
          start: () => idleDeclared(app.port, '/notes', 256, MiB),
          stop: async (h) => h.stop(),
        },
        2_000,
      ),
    )
  } finally {
    await app.stop()
  }
  return results
}

const which = process.argv[2] ?? 'all'
// An optional label names the run (`before` for a build without the fair-admission controls).
const label = process.argv[3] === undefined ? '' : `-${process.argv[3]}`
if (which === 'mcp' || which === 'all') {
  record(new URL('.', import.meta.url), `attacks-mcp${label}`, {
    target: 'mcp-server (Streamable HTTP, 127.0.0.1)',
    legitimateClient: `${LEGIT_REQUESTS} sequential pings of demo-admin in one session on /mcp`,
    results: await mcpMatrix(),
  })
}
if (which === 'express' || which === 'all') {
  record(new URL('.', import.meta.url), `attacks-express${label}`, {
    target: 'express-example (127.0.0.1)',
    legitimateClient: `${LEGIT_REQUESTS} sequential small POST /notes`,
    results: await expressMatrix(),
  })
}
