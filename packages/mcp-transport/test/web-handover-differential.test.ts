// webHandover against the path it replaces, SDK 2.4's `toNodeHandler`, both behind
// mcpHttpHandler on real http.Servers on 127.0.0.1, both eras of one `createMcpHandler`: for
// each request the status, the headers a client acts on and the body are the same through both.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { toNodeHandler } from '@modelcontextprotocol/node'
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server'
import { eventually } from '@tollgate/test-kit/eventually'
import { head, RawClient, type RawResponse } from '@tollgate/test-kit/http-client'
import type { Running } from '@tollgate/test-kit/listen'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMcpHttpAdmission, mcpHttpHandler, webHandover } from '../src/index.js'
import { envelope, modernHeaders } from './helpers/modern-target.js'
import { send, serveHandler } from './helpers/modern-wire.js'

interface Seen {
  echo: number
  hangStarted: number
  hangAborted: number
}

const ECHO = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }

/** One SDK 2.4 handler serving both eras; `hang` waits for its request's signal. */
function fixture() {
  const seen: Seen = { echo: 0, hangStarted: 0, hangAborted: 0 }
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'differential', version: '1.0.0' })
    server.registerTool(
      'echo',
      { inputSchema: fromJsonSchema<{ text: string }>(ECHO) },
      async ({ text }) => {
        seen.echo++
        return { content: [{ type: 'text' as const, text: `len:${text.length}` }] }
      },
    )
    server.registerTool(
      'progress',
      { inputSchema: fromJsonSchema<Record<string, unknown>>({ type: 'object' }) },
      async (_args, ctx) => {
        const token = ctx.mcpReq._meta?.progressToken
        for (const progress of [1, 2]) {
          if (token !== undefined) {
            await ctx.mcpReq.notify({
              method: 'notifications/progress',
              params: { progressToken: token, progress, total: 2 },
            })
          }
        }
        return { content: [{ type: 'text' as const, text: 'done' }] }
      },
    )
    server.registerTool(
      'hang',
      { inputSchema: fromJsonSchema<Record<string, unknown>>({ type: 'object' }) },
      async (_args, ctx) => {
        seen.hangStarted++
        const signal = ctx.mcpReq.signal
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 20_000)
          signal.addEventListener('abort', () => {
            seen.hangAborted++
            clearTimeout(timer)
            resolve()
          })
        })
        return { content: [{ type: 'text' as const, text: 'late' }] }
      },
    )
    return server
  })
  return { seen, handler }
}

interface Side {
  seen: Seen
  running: Running
  close: () => Promise<void>
}

async function side(target: (handler: ReturnType<typeof fixture>['handler']) => unknown) {
  const { seen, handler } = fixture()
  const running = await serveHandler(
    mcpHttpHandler(
      target(handler) as Parameters<typeof mcpHttpHandler>[0],
      createMcpHttpAdmission(),
    ),
  )
  return { seen, running, close: () => handler.close() } satisfies Side
}

let sdk: Side
let handover: Side
beforeAll(async () => {
  sdk = await side((handler) => {
    const node = toNodeHandler(handler)
    return {
      handleRequest: (req: IncomingMessage, res: ServerResponse, body?: unknown) =>
        node(req, res, body),
    }
  })
  handover = await side((handler) => webHandover(handler))
})
afterAll(async () => {
  for (const s of [sdk, handover]) {
    await s.running.close()
    await s.close()
  }
})

// What a client acts on: the status, the media type, the framing it must follow, session and
// version headers, and the body (an event stream's `data:` lines, each parsed).
function observed(answer: RawResponse) {
  const type = answer.headers['content-type']
  const events = type?.startsWith('text/event-stream')
    ? answer.body
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => JSON.parse(line.slice(5)))
    : undefined
  return {
    status: answer.status,
    type,
    connection: answer.headers.connection,
    session: answer.headers['mcp-session-id'],
    body: events ?? (answer.body === '' ? '' : JSON.parse(answer.body)),
  }
}

async function both(method: string, headers: Record<string, string>, body: unknown) {
  const text = body === undefined ? '' : JSON.stringify(body)
  const [a, b] = await Promise.all([
    send(sdk.running.port, method, headers, text),
    send(handover.running.port, method, headers, text),
  ])
  return { sdk: observed(a), handover: observed(b) }
}

const modern = (method: string, params: Record<string, unknown> = {}, id = 7) => ({
  jsonrpc: '2.0',
  id,
  method,
  params: { ...params, _meta: { ...envelope(), ...(params._meta as object | undefined) } },
})
const modernHead = (method: string, name?: string) => {
  const h: Record<string, string> = { ...modernHeaders(name ?? ''), 'mcp-method': method }
  if (name === undefined) delete h['mcp-name']
  return h
}
const LEGACY = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
}

describe('webHandover against toNodeHandler (2026-07-28)', () => {
  // [name, headers, body, the status both answer]
  const cases: [string, Record<string, string>, unknown, number][] = [
    [
      'tools/call that succeeds',
      modernHead('tools/call', 'echo'),
      modern('tools/call', { name: 'echo', arguments: { text: 'abc' } }),
      200,
    ],
    [
      'tools/call of an unknown tool',
      modernHead('tools/call', 'nope'),
      modern('tools/call', { name: 'nope', arguments: {} }),
      200,
    ],
    [
      'tools/call with bad params',
      modernHead('tools/call', 'echo'),
      modern('tools/call', { name: 'echo', arguments: { text: 5 } }),
      200,
    ],
    ['server/discover', modernHead('server/discover'), modern('server/discover'), 200],
    ['tools/list', modernHead('tools/list'), modern('tools/list'), 200],
    [
      'a notification',
      modernHead('notifications/cancelled'),
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 1, _meta: envelope() },
      },
      202,
    ],
    [
      'tools/call answered as an event stream with progress',
      modernHead('tools/call', 'progress'),
      modern('tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 'p' } }),
      200,
    ],
  ]
  for (const [name, headers, body, status] of cases) {
    it(`answers ${name} as toNodeHandler does`, async () => {
      const { sdk: a, handover: b } = await both('POST', headers, body)
      expect(b).toEqual(a)
      expect(b.status).toBe(status)
    })
  }

  it('streams the progress answer as an event stream through both', async () => {
    const { handover: b } = await both(
      'POST',
      modernHead('tools/call', 'progress'),
      modern('tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 'p' } }),
    )
    expect(b.type).toMatch(/^text\/event-stream/)
    expect((b.body as unknown[]).length).toBe(3)
  })

  it('runs the tool once through each and aborts it through both when the client goes away', async () => {
    const echoes = [sdk.seen.echo, handover.seen.echo]
    await both(
      'POST',
      modernHead('tools/call', 'echo'),
      modern('tools/call', { name: 'echo', arguments: { text: 'x' } }),
    )
    expect([sdk.seen.echo - echoes[0]!, handover.seen.echo - echoes[1]!]).toEqual([1, 1])

    const body = JSON.stringify(modern('tools/call', { name: 'hang', arguments: {} }))
    for (const s of [sdk, handover]) {
      const client = new RawClient(s.running.port)
      const lines = ['POST /mcp HTTP/1.1', `host: 127.0.0.1:${s.running.port}`]
      for (const [k, v] of Object.entries(modernHead('tools/call', 'hang')))
        lines.push(`${k}: ${v}`)
      lines.push(`content-length: ${Buffer.byteLength(body)}`)
      const started = s.seen.hangStarted
      await client.write(Buffer.from(head(lines) + body, 'utf8'))
      expect(await eventually(() => s.seen.hangStarted > started, 10_000)).toBe(true)
      client.destroy()
    }
    const aborted = await eventually(() => sdk.seen.hangAborted === 1, 10_000)
    const abortedHere = await eventually(() => handover.seen.hangAborted === 1, 10_000)
    expect(abortedHere).toBe(aborted)
    expect(abortedHere).toBe(true)
  })
})

describe('webHandover against toNodeHandler (2025)', () => {
  const cases: [string, unknown, number][] = [
    [
      'initialize',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      },
      200,
    ],
    ['tools/list', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, 200],
    [
      'tools/call that succeeds',
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'ab' } },
      },
      200,
    ],
    [
      'tools/call of an unknown tool',
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'nope', arguments: {} } },
      200,
    ],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }, 202],
  ]
  for (const [name, body, status] of cases) {
    it(`answers ${name} as toNodeHandler does`, async () => {
      const { sdk: a, handover: b } = await both('POST', LEGACY, body)
      expect(b).toEqual(a)
      expect(b.status).toBe(status)
    })
  }

  it('answers a GET as toNodeHandler does', async () => {
    const { sdk: a, handover: b } = await both('GET', { accept: 'text/event-stream' }, undefined)
    expect(b).toEqual(a)
  })
})
