// The decorator base is plumbing: these tests run an SDK McpServer and Client over the SDK's
// in-memory transport pair in this process. The security claims built on it (stdio, HTTP,
// result budget) are tested through real child processes and sockets in the other files.
import type { McpServer as McpServerType } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { isJsonRpcRequest, TransportDecorator } from '../src/decorator.js'
// The SDK line of this run (1.32 or 2.x, see helpers/sdk-line.ts): the same bodies on both.
import { Client, InMemoryTransport, McpServer, SDK } from './helpers/sdk-line.js'

function makeServer(calls: unknown[]): McpServerType {
  const server = new McpServer({ name: 't', version: '1.0.0' })
  server.registerTool('echo', { inputSchema: { a: z.string() } }, async (args) => {
    calls.push(args)
    return { content: [{ type: 'text', text: `got ${args.a}` }] }
  })
  return server
}

async function connect(wrap: (t: Transport) => Transport) {
  const calls: unknown[] = []
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const server = makeServer(calls)
  const decorated = wrap(serverSide)
  await server.connect(decorated)
  const client = new Client({ name: 'c', version: '1.0.0' })
  await client.connect(clientSide)
  return { client, server, calls, decorated, serverSide }
}

/** A bare transport that records what it sends and fires onclose once per close(). */
function fakeTransport(): Transport & { sent: JSONRPCMessage[] } {
  const t = {
    sent: [] as JSONRPCMessage[],
    sessionId: 'session-1',
    start: async () => {},
    send: async (m: JSONRPCMessage) => {
      t.sent.push(m)
    },
    close: async () => {
      t.onclose?.()
    },
  } as Transport & { sent: JSONRPCMessage[] }
  return t
}

class RefuseExtra extends TransportDecorator {
  seenExtra: unknown[] = []
  protected override handleInbound(message: JSONRPCMessage, extra: MessageExtraInfo | undefined) {
    this.seenExtra.push(extra)
    const args = (message as { params?: { arguments?: Record<string, unknown> } }).params?.arguments
    if (isJsonRpcRequest(message) && message.method === 'tools/call' && args && 'extra' in args) {
      return void this.reply(message.id, {
        content: [{ type: 'text', text: 'refused' }],
        isError: true,
      })
    }
    this.deliver(message, extra)
  }
}

/** A decorator whose hooks are given as functions (the tests' shorthand for a subclass). */
interface Hooks {
  inbound?: (message: JSONRPCMessage, deliver: () => void) => void
  outbound?: (message: JSONRPCMessage) => JSONRPCMessage
}

class Hooked extends TransportDecorator {
  readonly hooks: Hooks

  constructor(inner: Transport, hooks: Hooks = {}) {
    super(inner)
    this.hooks = hooks
  }

  protected override handleInbound(message: JSONRPCMessage, extra: MessageExtraInfo | undefined) {
    const deliver = () => this.deliver(message, extra)
    if (this.hooks.inbound === undefined) return deliver()
    this.hooks.inbound(message, deliver)
  }

  protected override handleOutbound(message: JSONRPCMessage) {
    return this.hooks.outbound === undefined ? message : this.hooks.outbound(message)
  }
}

describe('TransportDecorator', () => {
  it('answers a request itself so the server handler never runs', async () => {
    let decorator: RefuseExtra | undefined
    const { client, calls } = await connect((t) => (decorator = new RefuseExtra(t)))
    const refused = await client.callTool({ name: 'echo', arguments: { a: 'x', extra: 1 } })
    expect(refused.isError).toBe(true)
    expect(calls).toEqual([])
    const served = await client.callTool({ name: 'echo', arguments: { a: 'x' } })
    expect(served.isError).toBeFalsy()
    expect(calls).toEqual([{ a: 'x' }])
    expect(decorator?.inner).toBeDefined()
    await client.close()
  })

  it('shows the SDK strips the unknown key when no decorator is in place', async () => {
    const { client, calls } = await connect((t) => t)
    const result = await client.callTool({ name: 'echo', arguments: { a: 'x', extra: 1 } })
    expect(result.isError).toBeFalsy()
    expect(calls).toEqual([{ a: 'x' }])
    await client.close()
  })

  it('passes extra through untouched and forwards sessionId and close', async () => {
    const extras: unknown[] = []
    const serverSide = fakeTransport()
    const decorated = new Hooked(serverSide)
    const marker = { authInfo: { token: 't', clientId: 'c', scopes: [] } }
    decorated.onmessage = (_m, extra) => extras.push(extra)
    serverSide.onmessage?.({ jsonrpc: '2.0', method: 'ping', id: 1 }, marker)
    expect(extras[0]).toBe(marker)
    expect(decorated.sessionId).toBe('session-1')
    expect(decorated.setProtocolVersion).toBeUndefined()
    let closed = 0
    decorated.onclose = () => closed++
    await decorated.close()
    expect(closed).toBe(1)
  })

  it("forwards 2.x's setSupportedProtocolVersions and hasPerRequestStream when the inner transport has them", async () => {
    const bare = new TransportDecorator(fakeTransport())
    expect(bare.setSupportedProtocolVersions).toBeUndefined()
    expect(bare.hasPerRequestStream).toBeUndefined()
    const got: string[][] = []
    const inner = Object.assign(fakeTransport(), {
      hasPerRequestStream: true,
      setSupportedProtocolVersions: (versions: string[]) => got.push(versions),
    })
    const decorated = new TransportDecorator(inner)
    expect(decorated.hasPerRequestStream).toBe(true)
    // The server of this run's SDK line connects: 2.x hands its versions to the transport.
    await new McpServer({ name: 't', version: '1.0.0' }).connect(decorated as Transport)
    if (SDK.line === '2') expect(got[0]).toContain('2025-06-18')
    else expect(got).toEqual([])
  })

  it('keeps callbacks set on the inner transport before decorating', async () => {
    const serverSide = fakeTransport()
    const order: string[] = []
    serverSide.onclose = () => order.push('inner')
    const decorated = new Hooked(serverSide)
    decorated.onclose = () => order.push('outer')
    await decorated.close()
    expect(order).toEqual(['inner', 'outer'])
  })

  it('runs the inbound hook on each element of a batch the transport hands over', async () => {
    const [, serverSide] = InMemoryTransport.createLinkedPair()
    const seen: unknown[] = []
    const decorated = new Hooked(serverSide, {
      inbound: (message, deliver) => {
        seen.push((message as { id?: unknown }).id)
        deliver()
      },
    })
    const delivered: unknown[] = []
    decorated.onmessage = (m) => delivered.push(m)
    const batch = [
      { jsonrpc: '2.0', method: 'ping', id: 1 },
      { jsonrpc: '2.0', method: 'ping', id: 2 },
    ] as unknown as JSONRPCMessage
    serverSide.onmessage?.(batch)
    expect(seen).toEqual([1, 2])
    expect(delivered).toHaveLength(2)
  })

  it('replaces an outbound message through the outbound hook', async () => {
    const { client } = await connect(
      (t) =>
        new Hooked(t, {
          outbound: (message) => {
            const m = message as { result?: { content?: unknown } }
            if (m.result?.content !== undefined) {
              return { ...message, result: { content: [{ type: 'text', text: 'replaced' }] } }
            }
            return message
          },
        }),
    )
    const result = await client.callTool({ name: 'echo', arguments: { a: 'x' } })
    expect(result.content).toEqual([{ type: 'text', text: 'replaced' }])
    await client.close()
  })

  it('fails closed with -32603 when the inbound hook throws', async () => {
    const errors: Error[] = []
    const { client, calls, decorated } = await connect(
      (t) =>
        new Hooked(t, {
          inbound: (message, deliver) => {
            if (isJsonRpcRequest(message) && message.method === 'tools/call')
              throw new Error('boom')
            deliver()
          },
        }),
    )
    const prev = decorated.onerror
    decorated.onerror = (e) => {
      errors.push(e)
      prev?.(e)
    }
    await expect(client.callTool({ name: 'echo', arguments: { a: 'x' } })).rejects.toMatchObject({
      code: -32603,
    })
    expect(calls).toEqual([])
    expect(errors).toHaveLength(1)
    await client.close()
  })

  it('refuses to decorate something that is not a transport', () => {
    expect(() => new TransportDecorator(null as unknown as Transport)).toThrow(TypeError)
    expect(() => new TransportDecorator({} as unknown as Transport)).toThrow(TypeError)
  })
})
