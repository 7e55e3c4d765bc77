// The route and principal of the result budget's refusal events, given as the call of
// `decorate` where the host knows the caller: over Streamable HTTP on a real http.Server on
// 127.0.0.1 (a stateless server per request, each decorated with its caller's facts, behind
// `createMcpHttpAdmission().handle`), and over stdio in a real child process (the built
// BoundedStdioServerTransport, its one caller named by the host). A result over budget gives one
// event with the route and the principal's key, and none of the result's bytes; an anonymous
// caller's address never appears. The sentinel: the result's marker never reaches the wire.
import type { IncomingMessage } from 'node:http'
import { ANONYMOUS_POOL, callerKeys } from '@tollgate/http-admission'
import type { RefusalEvent } from '@tollgate/json-budget'
import type { Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  createMcpHttpAdmission,
  createResultBudget,
  type ResultBudget,
  type ResultBudgetCall,
  resultBudget,
} from '../src/index.js'
import { send, serveHandler } from './helpers/modern-wire.js'
import { recordingTransport } from './helpers/recording-transport.js'
import { McpServer, StreamableHTTPServerTransport } from './helpers/sdk-line.js'
import { StdioChild } from './helpers/stdio-child.js'

let running: Running[] = []
const children: StdioChild[] = []
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()))
  running = []
  await Promise.all(children.splice(0).map((c) => c.stop()))
})

// 2,000 bytes for the result object: the marked result below does not fit.
const TIGHT = { maxResultBytes: 2048, envelopeReserveBytes: 48 }
const MARK = 'RESULT_BYTES_3b7d'
const MARKED = `${MARK}${'y'.repeat(3000)}`
const LEGACY = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const TOKENS: Record<string, string> = {
  'Bearer tok-ada': 'cred:ada',
  'Bearer tok-bob': 'cred:bob',
}

function repeatCall(id: number, text: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'repeat', arguments: { text } },
  })
}

/**
 * A host that authenticates each request (a bearer token names a credential; no header: an
 * anonymous caller keyed by address in the anonymous pool) and builds a stateless server per
 * request, its transport decorated by `budget` with the caller's facts (`withCall: false`
 * decorates it without them).
 */
async function serve(budget: ResultBudget, withCall = true) {
  const keys = callerKeys()
  const http = createMcpHttpAdmission()
  const served = await serveHandler(async (req, res) => {
    const named = TOKENS[req.headers.authorization ?? '']
    const caller: ResultBudgetCall =
      named === undefined
        ? { principal: keys.keyOf(req as IncomingMessage), pool: ANONYMOUS_POOL, route: '/mcp' }
        : { principal: named, route: '/mcp' }
    const target = async () => {
      const server = new McpServer({ name: 'where', version: '1.0.0' })
      server.registerTool('repeat', { inputSchema: { text: z.string() } }, async ({ text }) => ({
        content: [{ type: 'text' as const, text }],
      }))
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      })
      await server.connect(
        withCall ? budget.decorate(transport, caller) : budget.decorate(transport),
      )
      return transport
    }
    await http.handle(req, res, target, { principal: caller.principal, pool: caller.pool })
  })
  running.push(served)
  return served.port
}

async function callOver(port: number, id: number, headers: Record<string, string> = {}) {
  const answer = await send(port, 'POST', { ...LEGACY, ...headers }, repeatCall(id, MARKED))
  expect(answer.status).toBe(200)
  expect(answer.body).not.toContain(MARK)
  const message = JSON.parse(answer.body)
  expect(message.id).toBe(id)
  expect(message.result.isError).toBe(true)
  expect(message.result.content[0].text).toMatch(/^ERR_JSON_TOO_LARGE/)
}

describe('ResultBudget.decorate(transport, call) over Streamable HTTP', () => {
  it('reports a replaced result once with the route and the caller it was decorated for', async () => {
    const events: RefusalEvent[] = []
    const port = await serve(createResultBudget({ ...TIGHT, onRefusal: (e) => events.push(e) }))
    await callOver(port, 1, { authorization: 'Bearer tok-ada' })
    await callOver(port, 2, { authorization: 'Bearer tok-bob' })
    const base = { code: 'ERR_JSON_TOO_LARGE', status: undefined, limit: 2000 }
    expect(events).toEqual([
      { ...base, control: 'mcp-result-budget', route: '/mcp', principal: 'cred:ada' },
      { ...base, control: 'mcp-result-budget', route: '/mcp', principal: 'cred:bob' },
    ])
    expect(JSON.stringify(events)).not.toContain(MARK)
  })

  it('reports an anonymous caller as its pool and a keyed hash, never its address', async () => {
    const events: RefusalEvent[] = []
    const port = await serve(createResultBudget({ ...TIGHT, onRefusal: (e) => events.push(e) }))
    await callOver(port, 1)
    await callOver(port, 2)
    expect(events).toHaveLength(2)
    expect(events[0]?.principal).toMatch(/^anonymous#[0-9a-f]{16}$/)
    expect(events[1]?.principal).toBe(events[0]?.principal)
    expect(events[0]?.route).toBe('/mcp')
    expect(JSON.stringify(events)).not.toContain('127.0.0.1')
  })

  it('control: decorated without the call, the same refusal carries no route or principal', async () => {
    const events: RefusalEvent[] = []
    const budget = createResultBudget({ ...TIGHT, onRefusal: (e) => events.push(e) })
    const port = await serve(budget, false)
    await callOver(port, 1, { authorization: 'Bearer tok-ada' })
    expect(events).toEqual([
      { code: 'ERR_JSON_TOO_LARGE', status: undefined, limit: 2000, control: 'mcp-result-budget' },
    ])
  })
})

describe('resultBudget(transport, options, call) over stdio', () => {
  it('reports a replaced result once with the route and principal the host named', async () => {
    const child = await StdioChild.start([
      'bounded',
      `--max-result-bytes=${TIGHT.maxResultBytes}`,
      '--budget-principal=cred:ops',
      '--budget-route=stdio',
      '--log-refusals',
    ])
    children.push(child)
    child.call(1, 'repeat', { text: MARKED })
    const response = await child.response(1)
    expect(response.result.isError).toBe(true)
    expect(response.result.content[0].text).toMatch(/^ERR_JSON_TOO_LARGE/)
    expect(child.raw).not.toContain(MARK)
    child.call(2, 'repeat', { text: 'fits' })
    expect((await child.response(2)).result.content[0].text).toBe('fits')
    // stderr is its own pipe: poll until the event's line is in (the test timeout bounds it).
    while (!child.stderr.includes('"refusal"')) await new Promise((r) => setTimeout(r, 10))
    const events = child.stderr
      .split('\n')
      .filter((line) => line.startsWith('{"refusal"'))
      .map((line) => JSON.parse(line).refusal)
    expect(events).toEqual([
      {
        code: 'ERR_JSON_TOO_LARGE',
        limit: 2000,
        control: 'mcp-result-budget',
        route: 'stdio',
        principal: 'cred:ops',
      },
    ])
    expect(child.stderr).not.toContain(MARK)
  })
})

describe('ResultBudgetCall', () => {
  it("sends a connection's refusals to the call's hook instead of the control's", async () => {
    const control: RefusalEvent[] = []
    const connection: RefusalEvent[] = []
    const budget = createResultBudget({ ...TIGHT, onRefusal: (e) => control.push(e) })
    const { inner, inbound } = recordingTransport()
    const transport = budget.decorate(inner, {
      principal: 'cred:ada',
      onRefusal: (e) => connection.push(e),
    })
    transport.onmessage = () => {}
    inbound({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'repeat' } })
    await transport.send({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: MARKED }] },
    })
    expect(control).toEqual([])
    expect(connection).toMatchObject([{ code: 'ERR_JSON_TOO_LARGE', principal: 'cred:ada' }])
  })

  it('refuses a call that is not an object, or a hook that is not a function, when decorating', () => {
    const budget = createResultBudget()
    const { inner } = recordingTransport()
    expect(() => budget.decorate(inner, null as never)).toThrow(TypeError)
    expect(() => budget.decorate(inner, { onRefusal: 'log' } as never)).toThrow(
      /call.onRefusal must be a function/,
    )
    expect(() => resultBudget(inner, undefined, 'cred:ada' as never)).toThrow(TypeError)
  })
})
