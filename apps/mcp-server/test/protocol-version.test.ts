// An unsupported MCP-Protocol-Version on the live server (a real child process, fetch): refused
// by the transport's guard before the SDK, which would echo the value back (its control is in
// @tollgate/mcp-transport's test/http-steps.test.ts, the SDK alone).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RawSession } from './helpers/raw-client.js'
import { ALICE, type LiveServer, startServer } from './helpers/server.js'

const MARKER = 'MARKER-71be'
let server: LiveServer
let session: RawSession

beforeAll(async () => {
  server = await startServer()
  session = await RawSession.open(server.url('/mcp/team'), ALICE)
})
afterAll(async () => {
  await server.stop()
})

describe('MCP-Protocol-Version on the live server', () => {
  it('refuses an unsupported version on POST and DELETE with ERR_MCP_PROTOCOL_VERSION, never echoing it, and keeps the session', async () => {
    for (const method of ['POST', 'DELETE']) {
      const res = await fetch(server.url('/mcp/team'), {
        method,
        headers: {
          authorization: `Bearer ${ALICE}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': session.sessionId,
          'mcp-protocol-version': MARKER,
        },
        body: method === 'POST' ? '{"jsonrpc":"2.0","id":3,"method":"tools/list"}' : undefined,
      })
      const text = await res.text()
      expect(res.status).toBe(400)
      expect(text).not.toContain(MARKER)
      expect(JSON.parse(text).error.data.code).toBe('ERR_MCP_PROTOCOL_VERSION')
    }
    expect(server.audit.raw.some((line) => line.includes(MARKER))).toBe(false)
    const served = await session.call('project.list', {})
    expect(served.status).toBe(200)
  })
})
