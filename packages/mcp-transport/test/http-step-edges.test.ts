// The body, hand-over and refusal steps at their edges, through a real http.Server on 127.0.0.1
// (port 0): an empty POST, what each step throws when misused (a body another parser already
// read: consumed-body.test.ts), and the exact head of a refusal answered unread. Sentinel:
// `built`, the transports a target function was asked for.
import { createInFlightBudget } from '@tollgate/http-admission'
import { rawPost } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { MCP_POST_HEADERS as HEADERS } from '@tollgate/test-kit/mcp-initialize'
import { afterEach, describe, expect, it } from 'vitest'
import { admissionError } from '../src/codes.js'
import { renderJsonRpcRefusal } from '../src/http-refusal.js'
import {
  createMcpHttpAdmission,
  mcpBodyAdmission,
  mcpHttpHandler,
  refuseJsonRpcUnread,
} from '../src/index.js'
import { StreamableHTTPServerTransport } from './helpers/sdk-line.js'

let running: Running[] = []
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()))
  running = []
})

const PING = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}')

/** A target function that counts the transports asked for and the methods they were for. */
function counting() {
  const seen = { built: 0, methods: [] as (string | undefined)[] }
  const target = async (req: { method?: string }) => {
    seen.built++
    seen.methods.push(req.method)
    return new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
  }
  return { seen, target }
}

describe('the HTTP steps at their edges', () => {
  it('refuses an empty POST as ERR_JSON_SYNTAX with 422 before asking for a transport', async () => {
    const { seen, target } = counting()
    const handle = mcpHttpHandler(
      target,
      createMcpHttpAdmission({
        body: mcpBodyAdmission({ budget: createInFlightBudget(1 << 20) }),
      }),
    )
    const server = await listen((req, res) => void handle(req, res))
    running.push(server)
    const response = await rawPost(server.port, HEADERS, new Uint8Array(0))
    expect(response.status).toBe(422)
    expect(JSON.parse(response.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error', data: { code: 'ERR_JSON_SYNTAX' } },
    })
    expect(seen.built).toBe(0)
  })

  it('asks a target function for a transport with the request, for GET as for POST', async () => {
    const { seen, target } = counting()
    const handle = mcpHttpHandler(
      target,
      createMcpHttpAdmission({
        body: mcpBodyAdmission({ budget: createInFlightBudget(1 << 20) }),
      }),
    )
    const server = await listen((req, res) => void handle(req, res).catch(() => res.destroy()))
    running.push(server)
    await fetch(server.url, { headers: { accept: 'text/event-stream' } }).catch(() => {})
    expect(seen.methods).toEqual(['GET'])
  })

  it('names the misuse in each TypeError: a decorator, a target that is neither, a look-alike control', async () => {
    const mcp = createMcpHttpAdmission()
    const req = {} as never
    const res = {} as never
    for (const transport of [undefined, {}, { handleRequest: 'x' }]) {
      await expect(mcp.handleMcpRequest(transport as never, req, res, undefined)).rejects.toThrow(
        new TypeError('transport must be the SDK StreamableHTTPServerTransport itself'),
      )
    }
    for (const target of [null, {}, { handleRequest: 1 }]) {
      expect(() => mcpHttpHandler(target as never)).toThrow(
        new TypeError('target must be a StreamableHTTPServerTransport or a function returning one'),
      )
    }
    expect(() => mcpHttpHandler(() => ({}) as never)).not.toThrow()
    for (const control of [{}, { ...mcp, handle: undefined }, { host: '127.0.0.1' }]) {
      expect(() => mcpHttpHandler(() => ({}) as never, control as never)).toThrow(
        new TypeError('mcpHttp must be a control built by createMcpHttpAdmission()'),
      )
    }
  })

  it('answers unread with the status, a JSON-RPC body, no-store, and the headers given', async () => {
    const server = await listen((_req, res) =>
      refuseJsonRpcUnread(
        res,
        401,
        { code: -32001, message: 'Unauthorized' },
        { 'WWW-Authenticate': 'Bearer' },
      ),
    )
    running.push(server)
    const response = await rawPost(server.port, HEADERS, PING)
    expect(response.status).toBe(401)
    expect(response.headers['content-type']).toBe('application/json')
    expect(response.headers['cache-control']).toBe('no-store')
    expect(response.headers['www-authenticate']).toBe('Bearer')
    expect(JSON.parse(response.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32001, message: 'Unauthorized' },
    })
  })
})

describe('renderJsonRpcRefusal', () => {
  const render = (code: string, limit?: number) =>
    JSON.parse(String(renderJsonRpcRefusal(admissionError(code as never, { limit })).body)) as {
      id: unknown
      error: { code: number; message: string; data: unknown }
    }

  it('answers every structure code with -32700 Parse error', () => {
    for (const code of [
      'ERR_JSON_INVALID_UTF8',
      'ERR_JSON_SYNTAX',
      'ERR_JSON_TOO_DEEP',
      'ERR_JSON_TOO_MANY_NODES',
      'ERR_JSON_DUPLICATE_KEY',
      'ERR_JSON_PROTO_KEY',
      'ERR_JSON_STRING_TOO_LONG',
      'ERR_JSON_NUMBER_TOO_LONG',
      'ERR_JSON_BOM',
    ]) {
      expect(render(code).error).toMatchObject({ code: -32700, message: 'Parse error' })
    }
  })

  it('answers a scalar body -32600 and anything else -32000 with the bounded message', () => {
    expect(render('ERR_JSON_NOT_OBJECT_OR_ARRAY').error).toMatchObject({
      code: -32600,
      message: 'Invalid Request',
    })
    const large = admissionError('ERR_BODY_TOO_LARGE' as never, { limit: 9 })
    expect(render('ERR_BODY_TOO_LARGE', 9)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message: large.message,
        data: { code: 'ERR_BODY_TOO_LARGE', limit: 9 },
      },
    })
    expect(renderJsonRpcRefusal(large).contentType).toBe('application/json')
  })
})
