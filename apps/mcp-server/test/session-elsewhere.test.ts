// Two real server processes and no proxy: a 2025-era session opened on one instance is sent to
// the other, as a load balancer without affinity by Mcp-Session-Id does. The other instance
// answers 404 with ERR_SESSION_ELSEWHERE, not the "Session not found" an expired session gets,
// and the call does not run there (no tool_invoked line). The control: an id the instance minted
// itself and closed gets the plain 404, so the code names the cause, not every miss.
import { PROTOCOL_VERSION } from '@tollgate/test-kit/mcp-initialize'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { post, RawSession, toolResult } from './helpers/raw-client.js'
import { ALICE, type LiveServer, startServer } from './helpers/server.js'

const CALL = {
  jsonrpc: '2.0',
  id: 3,
  method: 'tools/call',
  params: {
    name: 'knowledge.get',
    arguments: { projectId: 'atlas', documentId: 'atlas-handbook' },
  },
}

const onSession = (server: LiveServer, sessionId: string) =>
  post(server.url('/mcp'), CALL, {
    authorization: `Bearer ${ALICE}`,
    'mcp-session-id': sessionId,
    'mcp-protocol-version': PROTOCOL_VERSION,
  })

const errorOf = (text: string) =>
  (JSON.parse(text) as { error: { code: number; data?: { code?: string } } }).error

describe('SessionPool.locate (on the reference server)', () => {
  let one: LiveServer
  let two: LiveServer

  beforeAll(async () => {
    ;[one, two] = await Promise.all([startServer(), startServer()])
  })
  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()])
  })

  it('refuses on another instance a session it did not mint with 404 and ERR_SESSION_ELSEWHERE, running nothing', async () => {
    const session = await RawSession.open(one.url('/mcp'), ALICE)
    expect(toolResult(await session.call('knowledge.get', CALL.params.arguments)).isError).toBe(
      undefined,
    )
    const calledBefore = two.audit.named('tool_invoked').length
    const res = await onSession(two, session.sessionId)
    expect(res.status).toBe(404)
    expect(errorOf(res.text)).toMatchObject({
      code: -32001,
      data: { code: 'ERR_SESSION_ELSEWHERE' },
    })
    expect(res.text).not.toContain(session.sessionId)
    await two.audit.waitFor((e) => e.event === 'session_refused' && e.reason === 'elsewhere')
    expect(two.audit.named('tool_invoked').length).toBe(calledBefore)
  })

  it('answers a session it minted and closed with the plain 404, without the code', async () => {
    const session = await RawSession.open(two.url('/mcp'), ALICE)
    const closed = await fetch(two.url('/mcp'), {
      method: 'DELETE',
      headers: {
        authorization: `Bearer ${ALICE}`,
        'mcp-session-id': session.sessionId,
        'mcp-protocol-version': PROTOCOL_VERSION,
      },
    })
    expect(closed.status).toBe(200)
    const res = await onSession(two, session.sessionId)
    expect(res.status).toBe(404)
    expect(errorOf(res.text).code).toBe(-32001)
    expect(errorOf(res.text).data).toBeUndefined()
  })

  it('mints ids that carry one tag per instance, two instances two tags', async () => {
    const a = await RawSession.open(one.url('/mcp'), ALICE)
    const b = await RawSession.open(one.url('/mcp'), ALICE)
    const c = await RawSession.open(two.url('/mcp'), ALICE)
    const tag = (id: string) => /^([0-9a-f]{12})\.[A-Za-z0-9_-]{22}$/.exec(id)?.[1]
    expect(tag(a.sessionId)).toBeDefined()
    expect(tag(a.sessionId)).toBe(tag(b.sessionId))
    expect(tag(c.sessionId)).toBeDefined()
    expect(tag(c.sessionId)).not.toBe(tag(a.sessionId))
  })
})
