// The issue-29 rows of the attack matrix, against the built reference server: each runs the
// attack one caller can mount and reports whether another caller was still served ("held") or
// not ("fell"), with the figure. The attacker's sockets come from 127.0.0.2, the other
// anonymous caller's from 127.0.0.1: two addresses, as the server keys anonymous callers.
// Results go to jobs/load/results/fairness-mcp.json. Loopback only; every loop is bounded.
//
//   node jobs/load/fairness.mjs [label]

import { connect } from 'node:net'
import { initializeRequest, PROTOCOL_VERSION } from '../../tools/test-kit/src/mcp-initialize.mjs'
import { MiB, rawRequest, record, sleep, startMcpServer } from './lib.mjs'

const ATTACKER = '127.0.0.2'
const VICTIM = '127.0.0.1'
const ACCEPT = 'application/json, text/event-stream'

/** A raw POST of `message` as an anonymous caller from `from`; `{ status, session }`. */
async function anonymousPost(port, from, message, session) {
  const body = JSON.stringify(message)
  const r = await rawRequest(port, {
    path: '/mcp/public',
    localAddress: from,
    headers: {
      'Content-Type': 'application/json',
      Accept: ACCEPT,
      'Content-Length': String(Buffer.byteLength(body)),
      ...(session === undefined
        ? {}
        : { 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': PROTOCOL_VERSION }),
    },
    parts: [body],
    timeoutMs: 20_000,
  })
  return { status: r.status, session: /\r\nmcp-session-id: *([^\r\n]+)/i.exec(r.head ?? '')?.[1] }
}

/** Holds `count` anonymous POST bodies from `from`, `bytes` every `everyMs` (above any minimum rate). */
function slowBodies(port, from, count, bytes = 8, everyMs = 25) {
  const sockets = []
  for (let i = 0; i < count; i++) {
    const socket = connect({ host: '127.0.0.1', port, localAddress: from })
    socket.on('error', () => {})
    socket.on('connect', () =>
      socket.write(
        `POST /mcp/public HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: ${ACCEPT}\r\nContent-Length: ${4 * MiB}\r\n\r\n[`,
      ),
    )
    sockets.push(socket)
  }
  const timer = setInterval(() => {
    for (const s of sockets) if (!s.destroyed) s.write(' '.repeat(bytes))
  }, everyMs)
  return () => {
    clearInterval(timer)
    const open = sockets.filter((s) => !s.destroyed).length
    for (const s of sockets) s.destroy()
    return open
  }
}

/** A `method` request with an endless chunked body from `from`: body bytes the server took, and whether it closed. */
async function endlessBody(port, method, from, seconds) {
  const socket = connect({ host: '127.0.0.1', port, localAddress: from })
  const piece = Buffer.alloc(64 * 1024, 0x20)
  const framed = Buffer.concat([
    Buffer.from(`${piece.length.toString(16)}\r\n`),
    piece,
    Buffer.from('\r\n'),
  ])
  let sent = 0
  let status
  let closed = false
  socket.on('error', () => {})
  socket.on('data', (c) => {
    status ??= /^HTTP\/1\.1 (\d{3})/.exec(c.toString('latin1'))?.[1]
  })
  socket.on('close', () => {
    closed = true
  })
  const pump = () => {
    while (!closed && socket.write(framed)) sent += piece.length
    if (!closed) socket.once('drain', pump)
  }
  socket.on('connect', () => {
    socket.write(
      `${method} /mcp/public HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: ${ACCEPT}\r\nTransfer-Encoding: chunked\r\n\r\n`,
    )
    pump()
  })
  for (let t = 0; t < seconds * 10 && !closed; t++) await sleep(100)
  socket.destroy()
  return { method, answer: status ?? 'none', bodyBytesSent: sent, closedByServer: closed }
}

const rows = []
const server = await startMcpServer(['--heavy-threshold-bytes', '64'])
try {
  const port = server.port
  // Row 1: one anonymous caller holds eight slow bodies; another anonymous caller opens a session.
  {
    const stop = slowBodies(port, ATTACKER, 8)
    await sleep(1_000)
    const tries = []
    for (let i = 0; i < 10; i++)
      tries.push((await anonymousPost(port, VICTIM, initializeRequest(i, 'victim'))).status)
    const open = stop()
    const served = tries.filter((s) => s === 200).length
    rows.push({
      row: 1,
      attack: 'one anonymous address holds 8 slow bodies (8 B / 25 ms each)',
      verdict: served === 10 ? 'held' : 'fell',
      figure: { otherAddressInitializesServed: `${served}/10`, attackerBodiesStillOpen: open },
    })
  }
  // Row 2: one anonymous address opens 100 sessions; another address still opens one.
  {
    const statuses = {}
    for (let i = 0; i < 100; i++) {
      const s = (await anonymousPost(port, ATTACKER, initializeRequest(i, 'flood'))).status
      statuses[s] = (statuses[s] ?? 0) + 1
    }
    const other = await anonymousPost(port, VICTIM, initializeRequest(1, 'victim'))
    rows.push({
      row: 2,
      attack: 'one anonymous address sends 100 initializes',
      verdict: other.status === 200 ? 'held' : 'fell',
      figure: { attackerAnswers: statuses, otherAddressInitialize: other.status },
    })
  }
  // Row 3: GET and DELETE with endless bodies are closed early, unread.
  for (const method of ['GET', 'DELETE']) {
    const r = await endlessBody(port, method, ATTACKER, 5)
    rows.push({
      row: 3,
      attack: `${method} with an endless chunked body, 5 s`,
      verdict: r.closedByServer && r.bodyBytesSent < 16 * MiB ? 'held' : 'fell',
      figure: r,
    })
  }
  // Row 6: 2,000 input-validation refusals in one session write a bounded number of audit lines.
  {
    const { session } = await anonymousPost(port, VICTIM, initializeRequest(1, 'probe'))
    await anonymousPost(
      port,
      VICTIM,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      session,
    )
    const before = server.output().split('\n').length
    const answers = {}
    for (let i = 0; i < 2000; i++) {
      const { status } = await anonymousPost(
        port,
        VICTIM,
        {
          jsonrpc: '2.0',
          id: i + 10,
          method: 'tools/call',
          params: { name: 'project.list', arguments: { [`k${i}`]: 1 } },
        },
        session,
      )
      answers[status] = (answers[status] ?? 0) + 1
    }
    await sleep(500)
    const lines = server
      .output()
      .split('\n')
      .slice(before - 1)
    const refusedLines = lines.filter((l) => l.includes('call_refused')).length
    rows.push({
      row: 6,
      attack: '2,000 tools/call refused by input validation, each with its own unknown key',
      verdict: refusedLines <= 20 ? 'held' : 'fell',
      figure: { answers, auditLinesNamingCallRefused: refusedLines, auditLinesInAll: lines.length },
    })
  }
} finally {
  await server.stop()
}
// A row that fell fails the job.
if (rows.some((r) => r.verdict !== 'held')) process.exitCode = 1
const label = process.argv[2] === undefined ? '' : `-${process.argv[2]}`
record(new URL('.', import.meta.url), `fairness-mcp${label}`, {
  target: 'mcp-server /mcp/public (anonymous, Streamable HTTP, 127.0.0.1)',
  notRun:
    'row 4 (WebAssembly 1-byte pushes at depth) is a scanner cost, measured in bench/, not a server row',
  results: rows,
})
