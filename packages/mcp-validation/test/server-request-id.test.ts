// A server may send the client requests of its own (ping, roots/list, sampling/createMessage,
// elicitation/create), numbered by the SDK's own counter from 0: nothing keeps that id apart
// from the ids of the client's requests in flight. Only a response settles the decorator's
// entry for an id; a server request under the same id must leave it alone, or the entry is
// freed early: a request reusing the id is then admitted (two requests in flight under one
// id, the reused-id bypass of the rewrite), and a tools/list in flight goes out unrewritten.
// A real McpServer over the SDK's in-memory pair, driven by a raw JSON-RPC client.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { INITIALIZED_NOTIFICATION, initializeRequest } from '@tollgate/test-kit/mcp-initialize'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { REUSED_ID_ERROR, withInputValidation } from '../src/index.js'
import { fixtureRegistry, type Json } from './helpers/raw-clients.js'
import { InMemoryTransport, McpServer, SDK_DERIVED_DIALECT } from './helpers/sdk-line.js'

const PUBLISHED = ['notes.search', 'system.ping']

/**
 * A server whose `system.ping` tool pings the client (a server→client request) and answers
 * once the client has answered; `notes.unpublished` has no published schema. `calls` is the
 * sentinel of handler runs; `server` is the application's handle on the low-level server.
 */
async function session(decorated: boolean) {
  const calls: string[] = []
  const mcp = new McpServer({ name: 'tollgate-server-requests', version: '1.0.0' })
  mcp.registerTool(
    'notes.search',
    { description: 'Search notes.', inputSchema: { projectId: z.string(), query: z.string() } },
    async () => {
      calls.push('notes.search')
      return { content: [{ type: 'text' as const, text: 'found' }] }
    },
  )
  mcp.registerTool('system.ping', { description: 'Ping the client.' }, async () => {
    calls.push('system.ping')
    await mcp.server.ping()
    return { content: [{ type: 'text' as const, text: 'client answered' }] }
  })
  mcp.registerTool(
    'notes.unpublished',
    { description: 'Registered with no published schema.', inputSchema: { q: z.string() } },
    async () => {
      calls.push('notes.unpublished')
      return { content: [{ type: 'text' as const, text: 'unpublished' }] }
    },
  )
  const [client, serverSide] = InMemoryTransport.createLinkedPair()
  await mcp.connect(decorated ? withInputValidation(serverSide, fixtureRegistry()) : serverSide)
  const received: Json[] = []
  const waiters: (() => void)[] = []
  client.onmessage = (message) => {
    received.push(message as Json)
    for (const wake of waiters.splice(0)) wake()
  }
  await client.start()
  /** The first message received since `mark` that `match` accepts (10 s deadline). */
  const next = async (mark: number, match: (m: Json) => boolean): Promise<Json> => {
    const deadline = Date.now() + 10_000
    for (;;) {
      const found = received.slice(mark).find(match)
      if (found !== undefined) return found
      if (Date.now() > deadline) throw new Error('no such message before the deadline')
      await new Promise<void>((resolve) => {
        waiters.push(resolve)
        setTimeout(resolve, 250)
      })
    }
  }
  const send = (m: Json) => client.send(m as JSONRPCMessage)
  await send(initializeRequest(100))
  await next(0, (m) => m.id === 100)
  await send(INITIALIZED_NOTIFICATION as Json)
  return { calls, server: mcp.server, received, next, send, close: () => client.close() }
}

const isResult = (id: unknown) => (m: Json) => m.id === id && 'result' in m
const isAnswer = (id: unknown) => (m: Json) => m.id === id && ('result' in m || 'error' in m)
const names = (list: Json) => (list.result as { tools: Json[] }).tools.map((t) => t.name)

describe('withInputValidation when the server sends a request under a client id in flight', () => {
  it('keeps refusing a request that reuses the id of a tools/call whose handler pinged the client under that id', async () => {
    const s = await session(true)
    try {
      const mark = s.received.length
      await s.send({
        jsonrpc: '2.0',
        id: 0,
        method: 'tools/call',
        params: { name: 'system.ping', arguments: {} },
      })
      // The server's first request of the session: id 0, the id of the tools/call in flight.
      const ping = await s.next(mark, (m) => m.method === 'ping')
      expect(ping.id).toBe(0)
      await s.send({ jsonrpc: '2.0', id: 0, method: 'tools/list' })
      expect(await s.next(mark, isAnswer(0))).toEqual({
        jsonrpc: '2.0',
        id: 0,
        error: REUSED_ID_ERROR,
      })
      await s.send({ jsonrpc: '2.0', id: 0, result: {} })
      const call = await s.next(mark, isResult(0))
      expect((call.result as Json).content).toEqual([{ type: 'text', text: 'client answered' }])
      expect(s.received.slice(mark).filter(isAnswer(0))).toHaveLength(2)
      expect(s.calls).toEqual(['system.ping'])
    } finally {
      await s.close()
    }
  })

  // The coincidence a keepalive timer makes by chance, made certain: the application pings the
  // client in the turn the tools/list arrives, before the SDK has answered it.
  it('rewrites a tools/list in flight when the server pings the client under its id', async () => {
    const s = await session(true)
    try {
      const mark = s.received.length
      void s.send({ jsonrpc: '2.0', id: 0, method: 'tools/list' })
      const pinged = s.server.ping().catch(() => undefined)
      const list = await s.next(mark, isResult(0))
      expect(names(list)).toEqual(PUBLISHED)
      for (const tool of (list.result as { tools: Json[] }).tools) {
        expect(tool.inputSchema).toEqual(fixtureRegistry().bundled(tool.name as string))
      }
      expect(s.received.slice(mark).find((m) => m.method === 'ping')?.id).toBe(0)
      await s.send({ jsonrpc: '2.0', id: 0, result: {} })
      await pinged
    } finally {
      await s.close()
    }
  })

  it('admits the reused id and lets the SDK list out unrewritten when the decorator is removed', async () => {
    const s = await session(false)
    try {
      const mark = s.received.length
      await s.send({
        jsonrpc: '2.0',
        id: 0,
        method: 'tools/call',
        params: { name: 'system.ping', arguments: {} },
      })
      expect((await s.next(mark, (m) => m.method === 'ping')).id).toBe(0)
      await s.send({ jsonrpc: '2.0', id: 0, method: 'tools/list' })
      const list = await s.next(mark, isAnswer(0))
      expect(names(list)).toContain('notes.unpublished')
      const schema = (list.result as { tools: Json[] }).tools[0]?.inputSchema as Json
      expect(schema.$schema).toBe(SDK_DERIVED_DIALECT)
      await s.send({ jsonrpc: '2.0', id: 0, result: {} })
      await s.next(mark, (m) => isResult(0)(m) && 'content' in (m.result as Json))
    } finally {
      await s.close()
    }
  })
})
