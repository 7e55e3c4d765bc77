// Through a real http.Server on 127.0.0.1 with a raw JSON-RPC client that sends whatever it
// likes: a host that opens every incoming request's handles before its handler and seals every
// outgoing result, as a transport decorator would. The handler is a 2026-style server: a
// `tools/call` answers `input_required` with a `requestState` the retry must echo, another
// creates a task. It records what reaches it (the sentinel), so a refusal is shown not to have
// run it. Nothing private is assigned.
import { randomBytes } from 'node:crypto'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  type HandleCall,
  openRequestHandles,
  type RouteView,
  SEALED_HANDLE_ERROR,
  sealedHandles,
  sealResponseHandles,
} from '../src/index.js'
import { pub, team } from './fixtures/routes.js'

const routes: Record<string, RouteView> = { '/mcp/team': team, '/mcp/public': pub }
const grants: Record<string, string[]> = { 'cred-1': ['export'], 'cred-2': ['export'] }
const handles = sealedHandles({ keys: [{ id: 'k1', secret: randomBytes(32) }] })
const RAW_STATE = '{"step":1,"approved":false}'

// The sentinel: every request the handler ran, with the values it was given.
let reached: { method: string; requestState?: unknown; taskId?: unknown }[] = []

type Msg = { id: number; method: string; params: Record<string, unknown> }

function serve(msg: Msg): unknown {
  const p = msg.params
  reached.push({ method: msg.method, requestState: p.requestState, taskId: p.taskId })
  if (msg.method === 'tools/call' && p.name === 'knowledge.documents.get') {
    if (p.requestState === undefined) {
      return {
        resultType: 'input_required',
        inputRequests: { confirm: { method: 'elicitation/create', params: { message: 'Sure?' } } },
        requestState: RAW_STATE,
      }
    }
    return { resultType: 'complete', content: [{ type: 'text', text: `state ${p.requestState}` }] }
  }
  if (msg.method === 'tools/call' && p.name === 'admin.export') {
    return { resultType: 'task', taskId: 'task-raw-1', status: 'working' }
  }
  if (msg.method === 'tasks/get')
    return { resultType: 'complete', taskId: p.taskId, status: 'completed' }
  if (msg.method === 'prompts/get') return { resultType: 'complete', messages: [] }
  return {}
}

async function host(
  path: string,
  credential: string,
  msg: Msg,
  sealing: boolean,
): Promise<unknown> {
  const route = routes[path.replace('/bare', '')] as RouteView
  const call: HandleCall = { principal: credential, route, permissions: grants[credential] ?? [] }
  if (!sealing) return { jsonrpc: '2.0', id: msg.id, result: serve(msg) }
  const opened = await openRequestHandles(handles, msg, call)
  if (!opened.ok) return opened.response
  const response = { jsonrpc: '2.0', id: msg.id, result: serve(opened.message as Msg) }
  return sealResponseHandles(handles, response, msg, call)
}

let server: Running
beforeAll(async () => {
  server = await listen((req, res) => {
    let data = ''
    req.on('data', (c) => (data += c))
    req.on('end', async () => {
      const path = req.url ?? ''
      const out = await host(
        path,
        String(req.headers.authorization),
        JSON.parse(data),
        !path.startsWith('/bare'),
      )
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(out))
    })
  })
})
afterAll(() => server.close())
beforeEach(() => {
  reached = []
})

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
}

async function rpc(
  path: string,
  method: string,
  params: Record<string, unknown>,
  credential = 'cred-1',
) {
  const res = await fetch(server.url + path, {
    method: 'POST',
    headers: { authorization: credential, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { _meta: META, ...params } }),
  })
  const text = await res.text()
  return { text, body: JSON.parse(text) }
}

const getDoc = { name: 'knowledge.documents.get', arguments: { id: 'd-1' } }
const refusal = JSON.stringify({ jsonrpc: '2.0', id: 7, error: SEALED_HANDLE_ERROR })

describe('openRequestHandles and sealResponseHandles', () => {
  it('seals the requestState of an input_required result and gives the server its own state on the retry', async () => {
    const first = await rpc('/mcp/team', 'tools/call', getDoc)
    const sealed = first.body.result.requestState
    expect(sealed).toMatch(/^tgs1\.k1\./)
    expect(first.body.result.inputRequests).toBeDefined()
    const retry = await rpc('/mcp/team', 'tools/call', {
      ...getDoc,
      inputResponses: { confirm: { action: 'accept' } },
      requestState: sealed,
    })
    expect(retry.body.result.content[0].text).toBe(`state ${RAW_STATE}`)
    expect(reached.map((r) => r.requestState)).toEqual([undefined, RAW_STATE])
  })

  it('refuses a forged requestState with -32602 and does not run the handler', async () => {
    const forged = await rpc('/mcp/team', 'tools/call', {
      ...getDoc,
      requestState: '{"step":1,"approved":true}',
    })
    expect(forged.text).toBe(refusal)
    expect(forged.body.error.code).toBe(-32602)
    expect(reached).toEqual([])
  })

  it('lets the forged requestState reach the handler when the host does not open handles (control removed)', async () => {
    await rpc('/bare/mcp/team', 'tools/call', {
      ...getDoc,
      requestState: '{"step":1,"approved":true}',
    })
    expect(reached.map((r) => r.requestState)).toEqual(['{"step":1,"approved":true}'])
  })

  it('answers a replay by another principal, with other arguments, or on another route with the bytes of a forgery', async () => {
    const sealed = (await rpc('/mcp/team', 'tools/call', getDoc)).body.result.requestState
    reached = []
    const answers = [
      await rpc('/mcp/team', 'tools/call', { ...getDoc, requestState: sealed }, 'cred-2'),
      await rpc('/mcp/team', 'tools/call', {
        ...getDoc,
        arguments: { id: 'd-2' },
        requestState: sealed,
      }),
      await rpc('/mcp/public', 'tools/call', { ...getDoc, requestState: sealed }),
      await rpc('/mcp/team', 'tools/call', { ...getDoc, requestState: `${sealed}x` }),
      await rpc('/mcp/team', 'tools/call', { ...getDoc, requestState: 12 }),
      await rpc('/mcp/team', 'prompts/get', { name: 'p', requestState: sealed }),
    ]
    for (const answer of answers) expect(answer.text).toBe(refusal)
    expect(reached).toEqual([])
  })

  it('seals a created task’s id, opens it in tasks/get and gives the client its handle back', async () => {
    const created = await rpc('/mcp/team', 'tools/call', { name: 'admin.export', arguments: {} })
    const handle = created.body.result.taskId
    expect(handle).toMatch(/^tgs1\./)
    const got = await rpc('/mcp/team', 'tasks/get', { taskId: handle })
    expect(got.body.result).toMatchObject({ taskId: handle, status: 'completed' })
    expect(reached.map((r) => r.taskId)).toEqual([undefined, 'task-raw-1'])
  })

  it('refuses a raw or foreign task id, and a task handle on a route that does not serve its tool', async () => {
    const handle = (await rpc('/mcp/team', 'tools/call', { name: 'admin.export', arguments: {} }))
      .body.result.taskId
    const requestState = (await rpc('/mcp/team', 'tools/call', getDoc)).body.result.requestState
    reached = []
    const answers = [
      await rpc('/mcp/team', 'tasks/get', { taskId: 'task-raw-1' }),
      await rpc('/mcp/team', 'tasks/get', { taskId: handle }, 'cred-2'),
      await rpc('/mcp/public', 'tasks/get', { taskId: handle }),
      await rpc('/mcp/team', 'tasks/get', { taskId: requestState }),
    ]
    for (const answer of answers) expect(answer.text).toBe(refusal)
    expect(reached).toEqual([])
  })

  it('lets a raw task id reach the handler when the host does not open handles (control removed)', async () => {
    await rpc('/bare/mcp/team', 'tasks/get', { taskId: 'task-raw-1' })
    expect(reached.map((r) => r.taskId)).toEqual(['task-raw-1'])
  })
})

describe('sealResponseHandles', () => {
  const call: HandleCall = { principal: 'cred-1', route: team, permissions: ['export'] }
  const inputRequired = { resultType: 'input_required', requestState: RAW_STATE }

  it('turns a requestState it cannot bind into -32603 ERR_SEALED_HANDLE_UNSEALABLE, never sending it unsealed', () => {
    const cases = [
      { jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'p' } },
      { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: 'tgs1.k1.x.y' } },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'admin.reindex' } },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'nowhere.tool' } },
    ]
    for (const request of cases) {
      const out = sealResponseHandles(
        handles,
        { jsonrpc: '2.0', id: 1, result: inputRequired },
        request,
        call,
      )
      expect(out).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32603,
          message: 'Internal error',
          data: { code: 'ERR_SEALED_HANDLE_UNSEALABLE' },
        },
      })
      expect(JSON.stringify(out)).not.toContain('approved')
    }
  })

  it('passes results without handles, and error responses, unchanged (the same object)', () => {
    const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: getDoc }
    const plain = { jsonrpc: '2.0', id: 1, result: { content: [] } }
    const error = { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x' } }
    expect(sealResponseHandles(handles, plain, request, call)).toBe(plain)
    expect(sealResponseHandles(handles, error, request, call)).toBe(error)
  })
})
