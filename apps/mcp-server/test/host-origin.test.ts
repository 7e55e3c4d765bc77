// DNS rebinding against the live server: a page on a foreign name that resolves to 127.0.0.1
// reaches the loopback listener with its own name in `Host` and `Origin`. The server binds
// 127.0.0.1, so `mcpHttpHandler` (@tollgate/mcp-transport) checks both before reading a body;
// a valid bearer token does not help. The handler sentinel is the `tool_invoked` audit line.

import { initializeRequest, PROTOCOL_VERSION } from '@tollgate/test-kit/mcp-initialize'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postWithHost, RawSession } from './helpers/raw-client.js'
import { ALICE, type LiveServer, startServer } from './helpers/server.js'

let server: LiveServer
let session: RawSession

beforeAll(async () => {
  server = await startServer()
  session = await RawSession.open(server.url('/mcp/team'), ALICE)
})
afterAll(async () => {
  await server.stop()
})

const call = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'project.list', arguments: {} },
})
const sessionHeaders = () => ({
  authorization: `Bearer ${ALICE}`,
  'mcp-session-id': session.sessionId,
  'mcp-protocol-version': PROTOCOL_VERSION,
})
const invoked = () => server.audit.named('tool_invoked').length

/** A refusal: 403, a JSON-RPC error with the stable code, nothing of the foreign name echoed. */
function expectRefused(res: { status: number; text: string }, code: string) {
  expect(res.status).toBe(403)
  const body = JSON.parse(res.text) as { jsonrpc: string; id: unknown; error: { data: unknown } }
  expect(body.jsonrpc).toBe('2.0')
  expect(body.id).toBeNull()
  expect(body.error.data).toEqual({ code })
  expect(res.text).not.toContain('evil')
}

/** Sends a served call and waits for its sentinel, so every earlier audit line has arrived. */
async function settle(before: number, servedCalls: number) {
  await server.audit.waitFor(() => invoked() >= before + servedCalls)
  expect(invoked()).toBe(before + servedCalls)
}

describe('mcpHttpHandler in the live server', () => {
  it('refuses a foreign Host with 403 and a JSON-RPC error before any handler runs, and serves the loopback host', async () => {
    const before = invoked()
    const sessionsBefore = server.audit.named('session_opened').length
    const url = server.url('/mcp/team')
    const foreign = `evil.example:${server.port}`

    expectRefused(
      await postWithHost(url, call(1), { ...sessionHeaders(), host: foreign }),
      'ERR_HOST_NOT_ALLOWED',
    )
    expectRefused(
      await postWithHost(url, initializeRequest(), {
        authorization: `Bearer ${ALICE}`,
        host: foreign,
      }),
      'ERR_HOST_NOT_ALLOWED',
    )

    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`]) {
      const ok = await postWithHost(url, call(2), { ...sessionHeaders(), host })
      expect(ok.status).toBe(200)
      expect(JSON.parse(ok.text).result.isError).toBeUndefined()
    }
    // Exactly the two loopback calls ran; the refused initialize opened no session.
    await settle(before, 2)
    expect(server.audit.named('session_opened')).toHaveLength(sessionsBefore)
  })

  it('refuses a foreign Origin with 403 and a JSON-RPC error before any handler runs, and serves a loopback Origin or none', async () => {
    const before = invoked()
    const url = server.url('/mcp/team')
    const host = `127.0.0.1:${server.port}`

    for (const origin of ['http://evil.example', `http://evil.example:${server.port}`, 'null']) {
      const res = await postWithHost(url, call(3), { ...sessionHeaders(), host, origin })
      expectRefused(res, 'ERR_ORIGIN_NOT_ALLOWED')
    }

    for (const origin of [`http://127.0.0.1:${server.port}`, `http://localhost:${server.port}`]) {
      const ok = await postWithHost(url, call(4), { ...sessionHeaders(), host, origin })
      expect(ok.status).toBe(200)
      expect(JSON.parse(ok.text).result.isError).toBeUndefined()
    }
    const none = await postWithHost(url, call(5), { ...sessionHeaders(), host })
    expect(none.status).toBe(200)
    await settle(before, 3)
  })
})
