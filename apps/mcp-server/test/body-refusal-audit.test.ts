// The reference server's body_refused audit lines, through the real process and a raw client:
// each refused request body (413 over the cap, 422 for a repeated key, 415 for another media
// type, 422 for an empty body) writes one line naming its code, status and control, never the
// caller's bytes, and the server never opens a session for it; with the repeat window on, a
// burst costs a bounded number of lines whose counts add up to the burst.
import { eventually } from '@tollgate/test-kit/eventually'
import { initializeRequest } from '@tollgate/test-kit/mcp-initialize'
import { afterEach, describe, expect, it } from 'vitest'
import { send2026 } from './helpers/modern-client.js'
import { post, RawSession } from './helpers/raw-client.js'
import { ALICE, type LiveServer, startServer } from './helpers/server.js'

const MARKER = 'MARKERb0d7'
const CAP = 1024

const servers: LiveServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()))
})

async function start(window: string): Promise<LiveServer> {
  const server = await startServer([
    '--max-body-bytes',
    String(CAP),
    '--audit-repeat-window-ms',
    window,
  ])
  servers.push(server)
  return server
}

const auth = { authorization: `Bearer ${ALICE}` }
const overCap = () => JSON.stringify({ ...initializeRequest(1), pad: MARKER.repeat(CAP) })
// A repeated key in an otherwise valid initialize request.
const repeatedKey = () =>
  `{"jsonrpc":"2.0","id":1,"id":2,${JSON.stringify(initializeRequest(1)).slice(1)}`

/** Sends one refusal of each kind and returns the statuses answered. */
async function badBodies(server: LiveServer): Promise<number[]> {
  const url = server.url('/mcp')
  return [
    (await post(url, overCap(), auth)).status,
    (await post(url, repeatedKey(), auth)).status,
    (
      await post(url, JSON.stringify(initializeRequest(1)), {
        ...auth,
        'content-type': 'text/plain',
      })
    ).status,
    (await post(url, '', auth)).status,
  ]
}

/** Lines are written in order: once a session line is in, every refusal line before it is too. */
async function settle(server: LiveServer): Promise<void> {
  await RawSession.open(server.url('/mcp'), ALICE)
  await server.audit.waitFor((e) => e.event === 'session_opened')
}

describe('body_refused audit lines', () => {
  it('writes one line per refused body with its code, status and control, and opens no session for it', async () => {
    const server = await start('0')
    expect(await badBodies(server)).toEqual([413, 422, 415, 422])
    expect(server.audit.named('session_opened')).toHaveLength(0)
    await settle(server)
    expect(server.audit.named('session_opened')).toHaveLength(1)
    const lines = server.audit
      .named('body_refused')
      .map(({ code, status, control, limit }) => ({ code, status, control, limit }))
    expect(lines).toEqual([
      { code: 'ERR_BODY_TOO_LARGE', status: 413, control: 'mcp-body', limit: CAP },
      { code: 'ERR_JSON_DUPLICATE_KEY', status: 422, control: 'mcp-body', limit: undefined },
      { code: 'ERR_BODY_MEDIA_TYPE', status: 415, control: 'mcp-body', limit: undefined },
      { code: 'ERR_JSON_SYNTAX', status: 422, control: 'mcp-body', limit: undefined },
    ])
    expect(server.audit.raw.some((line) => line.includes(MARKER))).toBe(false)
  })

  it('names the route a refused 2026-07-28 body arrived on, by its configured name, never the path', async () => {
    const server = await start('0')
    // A repeated key, under every byte cap: refused by the body step itself.
    const call = `{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"project.list","arguments":{"q":"${MARKER}"}}}`
    const res = await send2026(
      server.url('/mcp/team'),
      call,
      { 'mcp-method': 'tools/call', 'mcp-name': 'project.list' },
      { token: ALICE },
    )
    expect(res.status).toBe(422)
    await eventually(() => server.audit.named('body_refused').length > 0, 30_000, 50)
    expect(server.audit.named('body_refused')[0]).toMatchObject({
      code: 'ERR_JSON_DUPLICATE_KEY',
      control: 'mcp-body',
      route: 'team',
    })
    expect(server.audit.raw.some((l) => l.includes(MARKER))).toBe(false)
  })

  it('aggregates a burst of refused bodies into a bounded number of lines that count them all', async () => {
    const server = await start('2000')
    const url = server.url('/mcp')
    const statuses: number[] = []
    for (let i = 0; i < 60; i++) statuses.push((await post(url, overCap(), auth)).status)
    expect(statuses.every((s) => s === 413)).toBe(true)
    await settle(server)
    expect(server.audit.named('body_refused').length).toBeLessThanOrEqual(4)
    const total = () =>
      server.audit
        .named('body_refused')
        .reduce((n, e) => n + (typeof e.repeated === 'number' ? e.repeated : 1), 0)
    expect(await eventually(async () => total() === 60)).toBe(true)
  })
})
