// Fair admission on the live server (a real child process, raw sockets and fetch): a few cheap
// connections must not deny service to an authenticated client. Each test asserts the
// legitimate client's outcome (served before a generous deadline, never a timing) and, where a
// server flag removes the control, shows the attack then succeeds.
import { connect } from 'node:net'
import { eventually } from '@tollgate/test-kit/eventually'
import { initializeRequest } from '@tollgate/test-kit/mcp-initialize'
import { afterEach, describe, expect, it } from 'vitest'
import { post, RawSession, toolResult } from './helpers/raw-client.js'
import { ALICE, BOB, type LiveServer, startServer } from './helpers/server.js'

const MiB = 1024 * 1024
const MARKER = 'MARKER9d41'

let servers: LiveServer[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()))
  servers = []
})

async function start(args: string[] = []): Promise<LiveServer> {
  const server = await startServer(args)
  servers.push(server)
  return server
}

/**
 * POSTs an endless chunked body to `path` with no credential: writes 64 KiB chunks until the
 * answer begins to arrive, the server closes the connection, 64 MiB are sent, or 10 s pass (the
 * connection stays open, the body unfinished, until the server closes it). Resolves with the status line's
 * code, the bytes written and whether the server closed it.
 */
function endlessBody(port: number, path: string) {
  return new Promise<{ status: number; sent: number; closed: boolean }>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let head = ''
    let sent = 0
    let closed = false
    const chunk = Buffer.concat([
      Buffer.from('10000\r\n'),
      Buffer.alloc(0x10000, 0x20),
      Buffer.from('\r\n'),
    ])
    const finish = () => {
      clearTimeout(deadline)
      socket.destroy()
      resolve({ status: Number(head.split(' ')[1] ?? 0), sent, closed })
    }
    const deadline = setTimeout(finish, 10_000)
    socket.on('error', () => {})
    socket.on('data', (d: Buffer) => {
      head += d.toString('latin1')
    })
    socket.on('close', () => {
      closed = true
      finish()
    })
    const pump = () => {
      // It stops writing once the answer has begun to arrive, as RFC 9112 §9.5 asks of a client
      // whose request is answered early: a sender that went on past the server's lingering
      // close (1 MiB) is reset, and a reset makes the kernel drop the answer still unread in
      // this process's receive queue (under load, before this event loop has run).
      while (!closed && head === '' && sent < 64 * MiB) {
        sent += chunk.length
        if (!socket.write(chunk)) return void socket.once('drain', pump)
      }
      if (sent >= 64 * MiB) finish()
    }
    socket.write(
      `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n` +
        'accept: application/json, text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n',
    )
    pump()
  })
}

/** Calls `project.list` until `stop` resolves; every answer must be a served tool result. */
async function keepCalling(session: RawSession, stop: Promise<unknown>) {
  let done = false
  void stop.then(() => {
    done = true
  })
  let served = 0
  let id = 100
  while (!done) {
    const res = await session.call('project.list', {}, id++)
    expect(res.status).toBe(200)
    expect(toolResult(res).isError).toBeUndefined()
    served++
  }
  return served
}

/**
 * Opens a POST on `session` that declares 4 KiB and sends only its first bytes, then holds it.
 * `answered` resolves with what the server sent once the connection closes.
 */
function heldBody(port: number, session: RawSession, token: string) {
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  let head = ''
  // The whole answer (status line, headers, body) once the server closes the connection.
  const answered = new Promise<string>((resolve) => {
    socket.on('data', (d: Buffer) => {
      head += d.toString('latin1')
    })
    socket.on('close', () => resolve(head))
  })
  socket.write(
    `POST /mcp/team HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n` +
      `accept: application/json, text/event-stream\r\nauthorization: Bearer ${token}\r\n` +
      `mcp-session-id: ${session.sessionId}\r\ncontent-length: 4096\r\n\r\n` +
      '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"',
  )
  return { answered, release: () => socket.destroy() }
}

const initialize = (server: LiveServer, token: string) =>
  post(server.url('/mcp/team'), initializeRequest(), { authorization: `Bearer ${token}` })

describe('the reference server under cheap connections', () => {
  it('cuts an unauthenticated endless chunked POST and one to an unknown route while an authenticated client is served', async () => {
    const server = await start()
    const session = await RawSession.open(server.url('/mcp/team'), ALICE)
    const attacks = Promise.all([
      endlessBody(server.port, '/mcp/team'),
      endlessBody(server.port, '/nope'),
    ])
    const served = await keepCalling(session, attacks)
    const [unauthenticated, unrouted] = await attacks
    expect(unauthenticated).toMatchObject({ status: 401, closed: true })
    expect(unrouted).toMatchObject({ status: 404, closed: true })
    // Cut by the server, far short of what an endless body would have drained.
    expect(unauthenticated.sent).toBeLessThan(64 * MiB)
    expect(unrouted.sent).toBeLessThan(64 * MiB)
    expect(served).toBeGreaterThan(0)
    // Served once more after the attack, before a generous deadline.
    expect((await session.call('project.list', {}, 1)).status).toBe(200)
  })

  it('refuses the ninth concurrent body of one credential with ERR_ADMISSION_PRINCIPAL_BUSY while another credential is served', async () => {
    const server = await start()
    const bob = await RawSession.open(server.url('/mcp/team'), BOB)
    const alice = await RawSession.open(server.url('/mcp/team'), ALICE)
    const held = Array.from({ length: 8 }, () => heldBody(server.port, bob, BOB))
    try {
      // Wait until the server holds all eight (each has begun admission).
      await new Promise((resolve) => setTimeout(resolve, 300))
      const ninth = heldBody(server.port, bob, BOB)
      held.push(ninth)
      const answer = await ninth.answered
      expect(answer.startsWith('HTTP/1.1 503')).toBe(true)
      expect(answer).toContain('"ERR_ADMISSION_PRINCIPAL_BUSY"')
      expect(answer).not.toContain('"pad"')
      expect(server.audit.raw.join('\n')).not.toContain('"pad"')
      // Another credential is served meanwhile, and so is Bob once his bodies are gone.
      expect((await alice.call('project.list', {}, 2)).status).toBe(200)
    } finally {
      for (const h of held) h.release()
    }
    expect(
      await eventually(async () => (await bob.call('project.list', {}, 3)).status === 200),
    ).toBe(true)
  })

  it('answers ERR_SESSION_QUOTA to a credential at its quota and still opens sessions for another', async () => {
    const server = await start(['--max-sessions', '4', '--max-sessions-per-credential', '2'])
    expect((await initialize(server, ALICE)).status).toBe(200)
    expect((await initialize(server, ALICE)).status).toBe(200)
    const refused = await initialize(server, ALICE)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('5')
    expect(JSON.parse(refused.text).error.data).toEqual({ code: 'ERR_SESSION_QUOTA', limit: 2 })
    const bob = await RawSession.open(server.url('/mcp/team'), BOB)
    expect((await bob.call('project.list', {})).status).toBe(200)
  })

  it('locks another credential out once one fills every slot when the quota is the cap (the control)', async () => {
    const server = await start(['--max-sessions', '4', '--max-sessions-per-credential', '4'])
    for (let i = 0; i < 4; i++) expect((await initialize(server, ALICE)).status).toBe(200)
    const locked = await initialize(server, BOB)
    expect(locked.status).toBe(503)
    expect(JSON.parse(locked.text).error.data).toEqual({ code: 'ERR_SESSION_LIMIT', limit: 4 })
  })

  it('never opens more than --max-sessions for 40 concurrent initializes held back mid-body', async () => {
    const server = await start(['--max-sessions', '5', '--max-sessions-per-credential', '5'])
    const body = Buffer.from(JSON.stringify(initializeRequest()))
    const held = Array.from({ length: 40 }, () => heldInitialize(server.port, body))
    // The slots are taken at the heads: 35 are answered 503 before any body is sent.
    let answered = 0
    for (const h of held) void h.response.then(() => answered++)
    expect(await eventually(async () => answered >= 35)).toBe(true)
    for (const h of held) h.sendBody()
    const statuses = await Promise.all(held.map((h) => h.response))
    expect(statuses.filter((s) => s === 200)).toHaveLength(5)
    expect(statuses.filter((s) => s === 503)).toHaveLength(35)
    const bob = await initialize(server, BOB)
    expect(bob.status).toBe(503)
    expect(server.audit.named('session_opened')).toHaveLength(5)
  })

  it('closes an idle session and frees its slot for another credential', async () => {
    const server = await start([
      '--max-sessions',
      '1',
      '--max-sessions-per-credential',
      '1',
      '--session-idle-ms',
      '300',
    ])
    const alice = await RawSession.open(server.url('/mcp/team'), ALICE)
    expect((await initialize(server, BOB)).status).toBe(503)
    // Served before a generous deadline once alice's session has been idle past 300 ms.
    expect(await eventually(async () => (await initialize(server, BOB)).status === 200)).toBe(true)
    expect((await alice.call('project.list', {})).status).toBe(404)
  })

  it('writes a bounded number of auth_refused lines for an unauthenticated burst, none holding caller bytes', async () => {
    const server = await start(['--audit-repeat-window-ms', '2000'])
    const began = Date.now()
    const burst = await unauthenticatedBurst(server, 200)
    expect(burst.every((s) => s === 401)).toBe(true)
    // The sentinel: lines are written in order, so every refusal line is in once it arrives.
    await RawSession.open(server.url('/mcp/team'), ALICE)
    await server.audit.waitFor((e) => e.event === 'session_opened')
    // At most two lines per window the burst spanned (the first refusal and the window's closing
    // count): a loaded machine stretches the burst over more windows, never more lines per one.
    const windows = Math.ceil((Date.now() - began) / 2000) + 1
    const lines = server.audit.named('auth_refused').length
    expect(lines).toBeLessThanOrEqual(2 * windows)
    expect(lines).toBeLessThan(200)
    // Nothing is lost: a window's closing line carries the count of the repeats it held back.
    const total = () =>
      server.audit
        .named('auth_refused')
        .reduce((n, e) => n + (typeof e.repeated === 'number' ? e.repeated : 1), 0)
    expect(await eventually(async () => total() === 200)).toBe(true)
    expect(server.audit.raw.some((line) => line.includes(MARKER))).toBe(false)
  })

  it('writes one auth_refused line per request when aggregation is off (the control)', async () => {
    const server = await start(['--audit-repeat-window-ms', '0'])
    await unauthenticatedBurst(server, 200)
    await RawSession.open(server.url('/mcp/team'), ALICE)
    await server.audit.waitFor((e) => e.event === 'session_opened')
    expect(server.audit.named('auth_refused')).toHaveLength(200)
  })
})

/** 200 POSTs with a wrong bearer token holding the marker, 20 at a time. */
async function unauthenticatedBurst(server: LiveServer, count: number): Promise<number[]> {
  const statuses: number[] = []
  for (let i = 0; i < count; i += 20) {
    const wave = Array.from({ length: Math.min(20, count - i) }, () =>
      post(server.url(`/mcp/team?${MARKER}`), initializeRequest(), {
        authorization: `Bearer ${MARKER}`,
      }).then((r) => r.status),
    )
    statuses.push(...(await Promise.all(wave)))
  }
  return statuses
}

/** An initialize POST as alice whose head is sent now and body on `sendBody()`. */
function heldInitialize(port: number, body: Buffer) {
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  let data = ''
  const response = new Promise<number>((resolve) => {
    const settle = () => {
      const status = Number(data.split(' ')[1] ?? 0)
      if (status > 0 && data.includes('\r\n\r\n')) resolve(status)
    }
    socket.on('data', (d: Buffer) => {
      data += d.toString('latin1')
      settle()
    })
    socket.on('close', () => resolve(Number(data.split(' ')[1] ?? 0)))
  })
  socket.write(
    `POST /mcp/team HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${ALICE}\r\n` +
      'content-type: application/json\r\naccept: application/json, text/event-stream\r\n' +
      `content-length: ${body.length}\r\n\r\n`,
  )
  return {
    response: response.finally(() => socket.destroy()),
    sendBody: () => {
      if (!socket.destroyed) socket.write(body)
    },
  }
}
