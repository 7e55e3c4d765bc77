// withInputValidation on 2026-07-28 requests: no initialize, no session, the protocol version
// and client capabilities in each request's `params._meta`. On the v2 SDK line through its
// stateless `createMcpHandler` on a real http.Server on 127.0.0.1 (the decorator wraps each
// per-request transport the handler connects); on 1.32, which predates the revision, through the
// in-memory pair with the same raw messages and no initialize. The client is raw JSON-RPC that
// ignores the published schemas; `calls` is the handler sentinel.
import { afterEach, describe, expect, it } from 'vitest'
import {
  type InputValidationOptions,
  UNKNOWN_TOOL_ERROR,
  withInputValidation,
} from '../src/index.js'
import { createTestServer, type HandlerCall } from './fixtures/test-server.js'
import { fixtureRegistry, type Json } from './helpers/raw-clients.js'
import { InMemoryTransport, SDK } from './helpers/sdk-line.js'

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
}
const VALID = { projectId: 'acme', query: 'roadmap', filters: { tag: 'q3' } }

interface ModernSession {
  readonly calls: HandlerCall[]
  /** Sends one 2026-style request (its `_meta` added) and returns the raw and parsed answer. */
  request(id: number, method: string, params?: Json): Promise<{ raw: string; parsed: Json }>
  close(): Promise<void>
}

async function overHttp(
  decorated: boolean,
  options: InputValidationOptions,
): Promise<ModernSession> {
  const [{ createMcpHandler }, { toNodeHandler }, { listen }] = await Promise.all([
    import('@modelcontextprotocol/server'),
    import('@modelcontextprotocol/node'),
    import('@tollgate/test-kit/listen'),
  ])
  const calls: HandlerCall[] = []
  const handler = createMcpHandler(
    () => {
      const server = createTestServer(calls)
      if (decorated) {
        // The stateless handler builds and connects a transport per request; the decorator
        // goes around each one, as a host's connect hook would put it.
        const connect = server.connect.bind(server)
        server.connect = (transport) =>
          connect(withInputValidation(transport, fixtureRegistry(), options))
      }
      return server as never
    },
    { legacy: 'reject' },
  )
  const node = toNodeHandler(handler)
  const http = await listen((req, res) => void node(req, res))
  return {
    calls,
    async request(id, method, params = {}) {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
      }
      if (typeof params.name === 'string') headers['mcp-name'] = params.name
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id,
        method,
        params: { ...params, _meta: META },
      })
      const res = await fetch(`${http.url}/mcp`, { method: 'POST', headers, body })
      const raw = await res.text()
      return { raw, parsed: JSON.parse(raw) as Json }
    },
    async close() {
      await handler.close()
      await http.close()
    },
  }
}

async function inMemory(
  decorated: boolean,
  options: InputValidationOptions,
): Promise<ModernSession> {
  const calls: HandlerCall[] = []
  const server = createTestServer(calls)
  const [client, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(
    decorated ? withInputValidation(serverSide, fixtureRegistry(), options) : serverSide,
  )
  const waiting = new Map<unknown, (m: Json) => void>()
  client.onmessage = (message) => {
    const m = message as Json
    waiting.get(m.id)?.(m)
    waiting.delete(m.id)
  }
  await client.start()
  return {
    calls,
    async request(id, method, params = {}) {
      const answer = new Promise<Json>((resolve) => waiting.set(id, resolve))
      await client.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } } as never)
      const parsed = await answer
      return { raw: JSON.stringify(parsed), parsed }
    },
    close: () => client.close(),
  }
}

const open = (decorated = true, options: InputValidationOptions = {}) =>
  SDK.line === '2' ? overHttp(decorated, options) : inMemory(decorated, options)

let sessions: ModernSession[] = []
const session = async (decorated = true, options: InputValidationOptions = {}) => {
  const s = await open(decorated, options)
  sessions.push(s)
  return s
}
afterEach(async () => {
  await Promise.all(sessions.map((s) => s.close()))
  sessions = []
})

const result = (answer: { parsed: Json }) => answer.parsed.result as Json

describe('withInputValidation on 2026-07-28 requests', () => {
  it('serves a valid call whose params carry _meta, handing the handler its arguments and no _meta', async () => {
    const s = await session()
    const answer = await s.request(1, 'tools/call', { name: 'notes.search', arguments: VALID })
    expect(result(answer).isError).toBeUndefined()
    expect(s.calls).toEqual([{ tool: 'notes.search', args: VALID }])
  })

  it('refuses an unknown argument key, _meta inside arguments included, with an isError result of that era', async () => {
    const s = await session()
    for (const [id, extra] of [
      [2, { dryRun: true }],
      [3, { _meta: META }],
    ] as const) {
      const answer = await s.request(id, 'tools/call', {
        name: 'notes.search',
        arguments: { ...VALID, ...extra },
      })
      expect(result(answer)).toMatchObject({ isError: true, resultType: 'complete' })
    }
    expect(s.calls).toEqual([])
  })

  it('lets the unknown key through to the handler when the decorator is removed', async () => {
    const s = await session(false)
    await s.request(4, 'tools/call', {
      name: 'notes.search',
      arguments: { ...VALID, dryRun: true },
    })
    expect(s.calls.map((c) => c.tool)).toEqual(['notes.search'])
  })

  it('answers a tool off the surface and a tool that exists nowhere with the same -32602 bytes', async () => {
    const s = await session(true, { surface: ['system.ping'] })
    const off = await s.request(5, 'tools/call', { name: 'notes.search', arguments: VALID })
    const nowhere = await s.request(5, 'tools/call', { name: 'notes.nowhere', arguments: VALID })
    expect(off.parsed.error).toEqual(UNKNOWN_TOOL_ERROR)
    expect(off.raw).toBe(nowhere.raw)
    expect(s.calls).toEqual([])
  })

  it('lists the surface sorted by name with ttlMs and cacheScope private, as the filtered list it is', async () => {
    const s = await session(true, { surface: ['system.ping', 'notes.get', 'notes.batch'] })
    const list = result(await s.request(6, 'tools/list'))
    expect((list.tools as Json[]).map((t) => t.name)).toEqual([
      'notes.batch',
      'notes.get',
      'system.ping',
    ])
    expect(list.cacheScope).toBe('private')
    expect(Number.isSafeInteger(list.ttlMs) && (list.ttlMs as number) >= 0).toBe(true)
  })
})
