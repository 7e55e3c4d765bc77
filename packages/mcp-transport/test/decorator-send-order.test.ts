// TransportDecorator.send under SDK 2.4's per-request transport, on a real http.Server on
// 127.0.0.1: the SDK sets the HTTP status of its own error responses only for a message its
// transport already has, so a decorator that defers the send turns the SDK's 404 for a removed
// method into a 200. A hook that returns a message sends in the same turn and keeps the 404.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { toNodeHandler } from '@modelcontextprotocol/node'
import { createMcpHandler, McpServer, type Transport } from '@modelcontextprotocol/server'
import type { Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import { type JsonRpcMessage, TransportDecorator } from '../src/index.js'
import { envelope } from './helpers/modern-target.js'
import { send, serveHandler } from './helpers/modern-wire.js'

/** A decorator whose outbound hook answers later (a promise), as an async hook does. */
class DeferringDecorator extends TransportDecorator {
  protected override handleOutbound(message: JsonRpcMessage): Promise<JsonRpcMessage> {
    return Promise.resolve(message)
  }
}

let running: Running[] = []
let closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.map((c) => c()))
  await Promise.all(running.map((r) => r.close()))
  running = []
  closers = []
})

/** An SDK 2.4 server whose per-request transport is wrapped by `decorate`, served raw. */
async function serveDecorated(decorate: (transport: Transport) => Transport) {
  const seen = { outbound: 0 }
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'send-order', version: '1.0.0' })
    const connect = server.connect.bind(server)
    server.connect = (transport: Transport) => {
      const decorated = decorate(transport)
      const send = decorated.send.bind(decorated)
      decorated.send = (message, options) => {
        seen.outbound++
        return send(message, options)
      }
      return connect(decorated)
    }
    return server
  })
  closers.push(() => handler.close())
  const node = toNodeHandler(handler)
  const server = await serveHandler((req: IncomingMessage, res: ServerResponse) => node(req, res))
  running.push(server)
  return { seen, server }
}

/** A raw 2026-07-28 `ping` (a method the revision removed), id 500. */
function removedMethod(port: number) {
  return send(
    port,
    'POST',
    {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'ping',
    },
    JSON.stringify({ jsonrpc: '2.0', id: 500, method: 'ping', params: { _meta: envelope() } }),
  )
}

function jsonOf(body: string): { id?: unknown; error?: { code?: unknown } } {
  const data = body.split('\n').find((line) => line.startsWith('data: '))
  return JSON.parse(data === undefined ? body : data.slice('data: '.length))
}

describe('TransportDecorator', () => {
  it('keeps the SDK 404 -32601 for a removed method when its outbound hook returns a message', async () => {
    const { seen, server } = await serveDecorated((t) => new TransportDecorator(t))
    const answer = await removedMethod(server.port)
    expect(seen.outbound).toBe(1)
    expect(answer.status).toBe(404)
    expect(jsonOf(answer.body)).toMatchObject({ id: 500, error: { code: -32601 } })
  })

  it('answers as the undecorated SDK does (the control: no decorator at all)', async () => {
    const { server } = await serveDecorated((t) => t)
    const answer = await removedMethod(server.port)
    expect(answer.status).toBe(404)
    expect(jsonOf(answer.body)).toMatchObject({ id: 500, error: { code: -32601 } })
  })

  it('loses the 404 when the send waits for a promise, as every send did before', async () => {
    const { seen, server } = await serveDecorated((t) => new DeferringDecorator(t))
    const answer = await removedMethod(server.port)
    expect(seen.outbound).toBe(1)
    expect(answer.status).toBe(200)
    expect(jsonOf(answer.body)).toMatchObject({ id: 500, error: { code: -32601 } })
  })
})
