// The HTTP surface of the live server: demo credentials at start, bearer auth, sessions bound
// to their route and credential, route surfaces as tools/list shows them.

import { initializeRequest } from '@tollgate/test-kit/mcp-initialize'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { post, RawSession } from './helpers/raw-client.js'
import { ALICE, BOB, type LiveServer, startServer } from './helpers/server.js'

let server: LiveServer

beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server.stop()
})

const names = async (s: RawSession) =>
  (
    JSON.parse((await s.post({ jsonrpc: '2.0', id: 3, method: 'tools/list' })).text).result
      .tools as { name: string }[]
  )
    .map((t) => t.name)
    .sort()

describe('startHttpServer', () => {
  it('prints working demo tokens at start when no config is given and listens on 127.0.0.1', async () => {
    const demo = await startServer([], false)
    try {
      const line = await demo.audit.waitFor((e) => e.event === 'demo_credentials')
      const creds = line.credentials as { id: string; token: string }[]
      expect(creds.map((c) => c.id)).toEqual(['demo-admin', 'demo-reader'])
      const listening = await demo.audit.waitFor((e) => e.event === 'listening')
      expect(listening.host).toBe('127.0.0.1')
      const s = await RawSession.open(demo.url('/mcp/public'), creds[0]!.token)
      expect(await names(s)).toContain('knowledge')
    } finally {
      await demo.stop()
    }
  })

  it('answers a request without a valid bearer token with 401 and opens no session', async () => {
    const none = await post(server.url('/mcp'), initializeRequest())
    const wrong = await post(server.url('/mcp'), initializeRequest(), {
      authorization: 'Bearer not-a-real-token-at-all',
    })
    expect(none.status).toBe(401)
    expect(wrong.status).toBe(401)
    expect(JSON.parse(none.text).error.code).toBe(-32001)
    expect(server.audit.named('session_opened')).toHaveLength(0)
  })

  it('refuses a session id on another route or under another credential as an unknown session', async () => {
    const team = await RawSession.open(server.url('/mcp/team'), ALICE)
    const list = { jsonrpc: '2.0', id: 3, method: 'tools/list' }
    const headers = { 'mcp-session-id': team.sessionId, 'mcp-protocol-version': '2025-06-18' }
    const otherRoute = await post(server.url('/mcp/public'), list, {
      ...headers,
      authorization: `Bearer ${ALICE}`,
    })
    const otherCredential = await post(server.url('/mcp/team'), list, {
      ...headers,
      authorization: `Bearer ${BOB}`,
    })
    expect(otherRoute.status).toBe(404)
    expect(otherCredential.status).toBe(404)
    expect(otherRoute.text).toBe(otherCredential.text)
  })

  it('mounts the same read-ceiling surface on team and public except the documents reads and admin', async () => {
    const team = await names(await RawSession.open(server.url('/mcp/team'), ALICE))
    const pub = await names(await RawSession.open(server.url('/mcp/public'), ALICE))
    expect(team.filter((n) => !pub.includes(n))).toEqual(['admin', 'knowledge.get'])
    expect(pub.filter((n) => !team.includes(n))).toEqual([])
  })
})
