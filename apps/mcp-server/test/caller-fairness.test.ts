// Fair per caller on the live server (a real child process, raw sockets): anonymous callers on
// /mcp/public are keyed each by its address (here named by X-Forwarded-For from a trusted
// loopback proxy, `--trusted-proxy 127.0.0.1`) inside one anonymous pool; sessions end; a
// refused request keeps no session alive; every early answer closes. The control of each row
// is the same server with the callers not told apart (no trusted proxy: every test client is
// the one caller 127.0.0.1) or the clock flags set high.
import { connect, type Socket } from 'node:net'
import { eventually } from '@tollgate/test-kit/eventually'
import { initializeRequest, PROTOCOL_VERSION } from '@tollgate/test-kit/mcp-initialize'
import { afterEach, describe, expect, it } from 'vitest'
import { tokenOf } from './helpers/continuations.js'
import { call2026 } from './helpers/modern-client.js'
import { post, toolResult } from './helpers/raw-client.js'
import { type LiveServer, startServer } from './helpers/server.js'

let servers: LiveServer[] = []
const sockets: Socket[] = []
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy()
  await Promise.all(servers.map((s) => s.stop()))
  servers = []
})

const MiB = 1024 * 1024
const PROXY = ['--trusted-proxy', '127.0.0.1']

async function start(args: string[]): Promise<LiveServer> {
  // The embedded demo config: /mcp/public admits anonymous callers.
  const server = await startServer(args, false)
  servers.push(server)
  return server
}

const as = (who: string) => ({ 'x-forwarded-for': who })

/** An anonymous 2025 session of caller `who`: its id. */
async function openSession(server: LiveServer, who: string): Promise<string> {
  const init = await post(server.url('/mcp/public'), initializeRequest(), as(who))
  const id = init.headers.get('mcp-session-id')
  if (init.status !== 200 || id === null) throw new Error(`initialize: ${init.status}`)
  return id
}

const list = { jsonrpc: '2.0', id: 3, method: 'tools/list' }
const inSession = (server: LiveServer, who: string, id: string) =>
  post(server.url('/mcp/public'), list, {
    ...as(who),
    'mcp-session-id': id,
    'mcp-protocol-version': PROTOCOL_VERSION,
  })

/** Writes a raw request head (and `body`) and keeps the socket; `answer` resolves at its close. */
function raw(server: LiveServer, lines: string[], body = '') {
  const socket = connect(server.port, '127.0.0.1')
  sockets.push(socket)
  socket.on('error', () => {})
  let data = ''
  const answer = new Promise<string>((resolve) => {
    socket.on('data', (d: Buffer) => {
      data += d.toString('latin1')
    })
    socket.on('close', () => resolve(data))
  })
  socket.write(`${[...lines, `host: 127.0.0.1:${server.port}`].join('\r\n')}\r\n\r\n${body}`)
  return { socket, answer, data: () => data }
}

/** A POST of caller `who` declaring 4 KiB and sending its first bytes only: a slow body, held. */
const slowInitialize = (server: LiveServer, who: string) =>
  raw(
    server,
    [
      'POST /mcp/public HTTP/1.1',
      'content-type: application/json',
      'accept: application/json, text/event-stream',
      'content-length: 4096',
      `x-forwarded-for: ${who}`,
    ],
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"pad":"',
  )

describe('the reference server, fair per caller (issue 29 rows 1, 2, 5)', () => {
  it('holds one anonymous caller to its share of the anonymous pool while another anonymous caller is served', async () => {
    const server = await start(PROXY)
    const held = Array.from({ length: 8 }, () => slowInitialize(server, '198.51.100.7'))
    // Two are being read (a quarter of 8); the other six are refused at once and closed.
    const refused = await Promise.all(held.slice(2).map((h) => h.answer))
    for (const answer of refused) {
      expect(answer).toMatch(/^HTTP\/1\.1 503/)
      expect(answer).toContain('"code":"ERR_ADMISSION_PRINCIPAL_BUSY","limit":2')
    }
    const other = await openSession(server, '203.0.113.9')
    expect((await inSession(server, '203.0.113.9', other)).status).toBe(200)
  })

  it('control: with every anonymous caller one key (no trusted proxy), 8 slow bodies of one caller starve the others', async () => {
    const server = await start([])
    const held = Array.from({ length: 8 }, () => slowInitialize(server, '198.51.100.7'))
    expect(await eventually(async () => held.every((h) => h.data() === ''))).toBe(true)
    const starved = await post(server.url('/mcp/public'), initializeRequest(), as('203.0.113.9'))
    expect(starved.status).toBe(503)
    expect(JSON.parse(starved.text).error.data.code).toBe('ERR_ADMISSION_PRINCIPAL_BUSY')
  })

  it('holds one anonymous caller to a quarter of the anonymous sessions; another still opens one', async () => {
    const server = await start([...PROXY, '--max-sessions-per-credential', '8'])
    await openSession(server, '198.51.100.7')
    await openSession(server, '198.51.100.7')
    const refused = await post(server.url('/mcp/public'), initializeRequest(), as('198.51.100.7'))
    expect(refused.status).toBe(429)
    expect(JSON.parse(refused.text).error.data).toEqual({ code: 'ERR_SESSION_QUOTA', limit: 2 })
    await openSession(server, '203.0.113.9')
  })

  it('control: with every anonymous caller one key, one caller takes the anonymous sessions and the next gets 429', async () => {
    const server = await start(['--max-sessions-per-credential', '8'])
    for (let i = 0; i < 2; i++) await openSession(server, '198.51.100.7')
    const locked = await post(server.url('/mcp/public'), initializeRequest(), as('203.0.113.9'))
    expect(locked.status).toBe(429)
  })

  it("holds the 2026-07-28 requests of one anonymous caller to its own quota while another's are served", async () => {
    const server = await start([...PROXY, '--max-requests-in-flight-per-principal', '2'])
    const modern = (who: string) =>
      raw(
        server,
        [
          'POST /mcp/public HTTP/1.1',
          'content-type: application/json',
          'accept: application/json, text/event-stream',
          'mcp-protocol-version: 2026-07-28',
          'mcp-method: tools/call',
          'mcp-name: project.list',
          'content-length: 4096',
          `x-forwarded-for: ${who}`,
        ],
        '{"jsonrpc":"2.0","id":1,',
      )
    const held = Array.from({ length: 4 }, () => modern('198.51.100.7'))
    for (const h of held.slice(2)) expect(await h.answer).toMatch(/^HTTP\/1\.1 429/)
    const served = await call2026(
      server.url('/mcp/public'),
      'project.list',
      {},
      {
        headers: as('203.0.113.9'),
      },
    )
    expect(served.status).toBe(200)
  })

  it("keeps one anonymous caller's continuations when another anonymous caller mints past the quota", async () => {
    const server = await start([
      ...PROXY,
      '--heavy-threshold-bytes',
      '64',
      '--max-continuations-per-credential',
      '2',
    ])
    const victim = await openSession(server, '203.0.113.9')
    const call = (who: string, id: string, name: string, args: unknown) =>
      post(
        server.url('/mcp/public'),
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } },
        { ...as(who), 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL_VERSION },
      )
    const token = tokenOf(await call('203.0.113.9', victim, 'project.list', {}))
    const attacker = await openSession(server, '198.51.100.7')
    for (let i = 0; i < 5; i++) tokenOf(await call('198.51.100.7', attacker, 'project.list', {}))
    const fetched = await call('203.0.113.9', victim, 'continuation.fetch', { token })
    expect(toolResult(fetched).isError).toBeUndefined()
  })
})

describe('the reference server, sessions end (issue 29 rows 2, 9)', () => {
  /** Opens a GET event stream on session `id` of `who` and holds it. */
  const stream = (server: LiveServer, who: string, id: string) =>
    raw(server, [
      'GET /mcp/public HTTP/1.1',
      'accept: text/event-stream',
      `mcp-session-id: ${id}`,
      `mcp-protocol-version: ${PROTOCOL_VERSION}`,
      `x-forwarded-for: ${who}`,
    ])

  it('closes a session held only by an open GET stream after --stream-idle-ms, freeing its slot', async () => {
    const server = await start([
      ...PROXY,
      '--max-sessions',
      '1',
      '--max-sessions-per-credential',
      '1',
      '--stream-idle-ms',
      '300',
    ])
    const id = await openSession(server, '198.51.100.7')
    const held = stream(server, '198.51.100.7', id)
    expect(await eventually(async () => held.data().startsWith('HTTP/1.1 200'))).toBe(true)
    // Served before a generous deadline once the stream alone has kept the session 300 ms.
    expect(
      await eventually(
        async () =>
          (await post(server.url('/mcp/public'), initializeRequest(), as('203.0.113.9'))).status ===
          200,
      ),
    ).toBe(true)
    expect((await inSession(server, '198.51.100.7', id)).status).toBe(404)
  })

  it('closes a busy session at --session-lifetime-ms', async () => {
    const server = await start([...PROXY, '--session-lifetime-ms', '500'])
    const id = await openSession(server, '198.51.100.7')
    stream(server, '198.51.100.7', id)
    expect(
      await eventually(async () => (await inSession(server, '198.51.100.7', id)).status === 404),
    ).toBe(true)
  })

  it('control: with the stream and lifetime caps high, an open GET stream holds the only slot past both short values', async () => {
    const server = await start([
      ...PROXY,
      '--max-sessions',
      '1',
      '--max-sessions-per-credential',
      '1',
    ])
    const id = await openSession(server, '198.51.100.7')
    const held = stream(server, '198.51.100.7', id)
    expect(await eventually(async () => held.data().startsWith('HTTP/1.1 200'))).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const locked = await post(server.url('/mcp/public'), initializeRequest(), as('203.0.113.9'))
    expect(locked.status).toBe(503)
  })

  it("refuses another anonymous caller naming a session (bound to its opener's address) without keeping it alive", async () => {
    const server = await start([...PROXY, '--session-idle-ms', '400'])
    const id = await openSession(server, '198.51.100.7')
    // Another caller holding the id is refused, as an unknown session.
    expect((await inSession(server, '203.0.113.9', id)).status).toBe(404)
    // Refused requests every 50 ms do not restart the session's idle clock: it expires.
    let expired = false
    const poke = (async () => {
      while (!expired) {
        await inSession(server, '203.0.113.9', id)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    })()
    await server.audit.waitFor((e) => e.event === 'session_refused')
    // Three idle lifetimes of refused requests; then the opener finds its session expired.
    await new Promise((resolve) => setTimeout(resolve, 1200))
    expect((await inSession(server, '198.51.100.7', id)).status).toBe(404)
    expired = true
    await poke
  })
})

describe('the reference server, every early answer closes (issue 29 row 3)', () => {
  it('refuses a GET with an endless body on a session unread (413, limit 0) and closes, reading a bounded number of bytes', async () => {
    const server = await start(PROXY)
    const id = await openSession(server, '198.51.100.7')
    const attack = raw(server, [
      'GET /mcp/public HTTP/1.1',
      'accept: text/event-stream',
      `mcp-session-id: ${id}`,
      `mcp-protocol-version: ${PROTOCOL_VERSION}`,
      'x-forwarded-for: 198.51.100.7',
      'transfer-encoding: chunked',
    ])
    const piece = Buffer.concat([
      Buffer.from('10000\r\n'),
      Buffer.alloc(0x10000, 0x20),
      Buffer.from('\r\n'),
    ])
    let sent = 0
    let closed = false
    void attack.answer.then(() => {
      closed = true
    })
    while (!closed && sent < 64 * MiB) {
      const ok = await new Promise<boolean>((resolve) =>
        attack.socket.write(piece, (error) => resolve(!error)),
      )
      if (!ok) break
      sent += piece.length
    }
    await attack.answer
    expect(sent).toBeLessThan(64 * MiB)
    expect(attack.data()).toMatch(/^HTTP\/1\.1 413/)
    expect(attack.data()).toContain('"code":"ERR_BODY_TOO_LARGE","limit":0')
    // The legitimate caller is served meanwhile and after.
    expect((await inSession(server, '198.51.100.7', id)).status).toBe(200)
  })

  it("closes the SDK's own error answer (a GET that does not accept an event stream: 406)", async () => {
    const server = await start(PROXY)
    const id = await openSession(server, '198.51.100.7')
    const answer = await raw(server, [
      'GET /mcp/public HTTP/1.1',
      'accept: application/json',
      `mcp-session-id: ${id}`,
      `mcp-protocol-version: ${PROTOCOL_VERSION}`,
      'x-forwarded-for: 198.51.100.7',
    ]).answer
    expect(answer).toMatch(/^HTTP\/1\.1 406/)
    expect(answer.toLowerCase()).toContain('connection: close')
  })
})
