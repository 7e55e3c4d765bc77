// The prompt and resource surfaces of mcpRouteHead, through a real http.Server on 127.0.0.1 with
// raw requests: a 2026-07-28 `prompts/get` or `resources/read` whose `Mcp-Name` is off the
// route's surface is refused from the head while an endless body streams behind it, closed
// unread; a 2025 one is refused once its body is parsed; the answer is one fixed error whether
// the name exists on the server or nowhere, and never holds the name. With the steps left out,
// a user's SDK 2.4 server serves the prompt and the resource the route excludes.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { toNodeHandler } from '@modelcontextprotocol/node'
import { createMcpHandler, McpServer, ResourceTemplate } from '@modelcontextprotocol/server'
import { createInFlightBudget } from '@tollgate/http-admission'
import type { RefusalEvent } from '@tollgate/json-budget'
import type { Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createMcpHttpAdmission,
  type McpHeadAuditEvent,
  mcpBodyAdmission,
  mcpHttpHandler,
  mcpRouteHead,
  UNKNOWN_PROMPT_CODE,
  UNKNOWN_PROMPT_ERROR,
  UNKNOWN_RESOURCE_CODE,
  UNKNOWN_RESOURCE_ERROR,
} from '../src/index.js'
import { envelope } from './helpers/modern-target.js'
import { errorOf, send, sendEndless, serveHandler } from './helpers/modern-wire.js'
import { recordingTarget, stepsWithout } from './helpers/steps-without.js'

const UNREAD = 16 * 1024 * 1024
const MARKER = 'MARKER_5e1c'
const b64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`

let running: Running[] = []
let closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.map((c) => c()))
  await Promise.all(running.map((r) => r.close()))
  running = []
  closers = []
})

const options = () => ({
  body: mcpBodyAdmission({ budget: createInFlightBudget(64 * 1024 * 1024) }),
})

function route(audit?: (event: McpHeadAuditEvent) => void) {
  return mcpRouteHead({
    prompts: ['greet'],
    resources: ['docs://public/{id}', 'docs://index'],
    ...(audit === undefined ? {} : { audit }),
  })
}

/** A user's SDK 2.4 server with a prompt and a resource template the route serves, and one of each it does not. */
function sdkTarget() {
  const ran = { greet: 0, secret: 0, public: 0, private: 0 }
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'names-fixture', version: '1.0.0' })
      for (const name of ['greet', 'secret'] as const) {
        server.registerPrompt(name, { description: name }, () => {
          ran[name]++
          return { messages: [{ role: 'user', content: { type: 'text', text: `${name}!` } }] }
        })
      }
      for (const kind of ['public', 'private'] as const) {
        server.registerResource(
          kind,
          new ResourceTemplate(`docs://${kind}/{id}`, { list: undefined }),
          {},
          (uri) => {
            ran[kind]++
            return { contents: [{ uri: uri.href, text: `${kind} document` }] }
          },
        )
      }
      return server
    },
    { responseMode: 'json' },
  )
  const node = toNodeHandler(handler)
  const target = {
    handleRequest: (req: IncomingMessage, res: ServerResponse, body?: unknown) =>
      node(req, res, body),
  }
  closers.push(() => handler.close())
  return { ran, target }
}

type Method = 'prompts/get' | 'resources/read'
const fieldOf = (method: Method) => (method === 'prompts/get' ? 'name' : 'uri')

/** A 2026-07-28 request of `method` naming `name`, and the headers that mirror it. */
function modern(method: Method, name: string, id = 1) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: { [fieldOf(method)]: name, _meta: envelope() },
  })
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    'mcp-name': name,
  }
  return { body, headers }
}

/** A 2025 request of `method` naming `name` (no mirrored headers exist on that era). */
function legacy(method: Method, name: string, id = 7) {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params: { [fieldOf(method)]: name } })
}
const LEGACY_HEADERS = { 'content-type': 'application/json', accept: 'application/json' }

// Names off the route's surface: another prompt or template the server has, names nowhere, and
// URIs a template must not stretch to (another segment, a dot segment, a query, an empty value).
const OFF: readonly { method: Method; name: string; header?: string }[] = [
  { method: 'prompts/get', name: 'secret' },
  { method: 'prompts/get', name: MARKER },
  { method: 'prompts/get', name: 'secret', header: b64('secret') },
  { method: 'resources/read', name: 'docs://private/a' },
  { method: 'resources/read', name: `docs://nowhere/${MARKER}` },
  { method: 'resources/read', name: 'docs://private/a', header: b64('docs://private/a') },
  { method: 'resources/read', name: 'docs://public/a/b' },
  { method: 'resources/read', name: 'docs://public/..' },
  { method: 'resources/read', name: 'docs://public/%2E%2e' },
  { method: 'resources/read', name: 'docs://public/..%2Fprivate%2Fa' },
  { method: 'resources/read', name: 'docs://public/a%5Cb' },
  { method: 'resources/read', name: 'docs://public/a?x=1' },
  { method: 'resources/read', name: 'docs://public/' },
  { method: 'resources/read', name: 'docs://index/more' },
]
const answerOf = (method: Method) =>
  method === 'prompts/get' ? UNKNOWN_PROMPT_ERROR : UNKNOWN_RESOURCE_ERROR

describe('mcpRouteHead prompts and resources', () => {
  it('refuses a 2026-07-28 prompts/get or resources/read off the surface from Mcp-Name, an endless body behind, closed unread; nothing runs', async () => {
    const { reached, target } = recordingTarget()
    const audit: McpHeadAuditEvent[] = []
    const events: RefusalEvent[] = []
    const handler = mcpHttpHandler(
      target,
      createMcpHttpAdmission({
        ...options(),
        route: route((e) => audit.push(e)),
        onRefusal: (e) => events.push(e),
      }),
    )
    const server = await serveHandler(handler)
    running.push(server)
    for (const c of OFF) {
      const { headers, body } = modern(c.method, c.name)
      const what = `${c.method} ${c.header ?? c.name}`
      const sent = { ...headers, 'mcp-name': c.header ?? c.name }
      const { answer, after, closedByServer } = await sendEndless(
        server.port,
        sent,
        body.slice(0, 20),
      )
      expect(answer.status, what).toBe(400)
      expect(answer.headers.connection, what).toBe('close')
      expect(errorOf(answer), what).toEqual(answerOf(c.method))
      expect(answer.body, what).not.toContain(MARKER)
      expect(closedByServer, what).toBe(true)
      expect(after, what).toBeLessThan(UNREAD)
    }
    expect(reached).toHaveLength(0)
    expect(audit).toEqual(OFF.map(() => ({ type: 'unknown-name', era: 'modern' })))
    expect(events.map((e) => [e.code, e.control, e.status])).toEqual(
      OFF.map((c) => [
        c.method === 'prompts/get' ? UNKNOWN_PROMPT_CODE : UNKNOWN_RESOURCE_CODE,
        'mcp-head',
        400,
      ]),
    )
  })

  it('refuses a 2025 prompts/get or resources/read off the surface once parsed, with its id; nothing runs', async () => {
    const { reached, target } = recordingTarget()
    const audit: McpHeadAuditEvent[] = []
    const server = await serveHandler(
      mcpHttpHandler(
        target,
        createMcpHttpAdmission({ ...options(), route: route((e) => audit.push(e)) }),
      ),
    )
    running.push(server)
    for (const c of OFF.filter((c) => c.header === undefined)) {
      const answer = await send(server.port, 'POST', LEGACY_HEADERS, legacy(c.method, c.name, 7))
      expect(answer.status, c.name).toBe(400)
      expect(errorOf(answer, 7), c.name).toEqual(answerOf(c.method))
      expect(answer.body).not.toContain(MARKER)
    }
    // A 2025 batch holding one such request is refused whole (a batch has no one id).
    const batch = `[${legacy('prompts/get', 'greet', 1)},${legacy('resources/read', 'docs://private/a', 2)}]`
    const refused = await send(server.port, 'POST', LEGACY_HEADERS, batch)
    expect(refused.status).toBe(400)
    expect(errorOf(refused, null)).toEqual(UNKNOWN_RESOURCE_ERROR)
    expect(reached).toHaveLength(0)
    expect(audit.every((e) => e.type === 'unknown-name' && e.era === 'legacy')).toBe(true)
  })

  it('answers a name the server has and a name nowhere with the same bytes, on both eras', async () => {
    const { target } = recordingTarget()
    const server = await serveHandler(
      mcpHttpHandler(target, createMcpHttpAdmission({ ...options(), route: route() })),
    )
    running.push(server)
    for (const [method, there, nowhere] of [
      ['prompts/get', 'secret', 'nowhere'],
      ['resources/read', 'docs://private/a', 'docs://nowhere/a'],
    ] as const) {
      const a = modern(method, there)
      const b = modern(method, nowhere)
      const [x, y] = await Promise.all([
        send(server.port, 'POST', a.headers, a.body),
        send(server.port, 'POST', b.headers, b.body),
      ])
      expect(y.body).toBe(x.body)
      const [p, q] = await Promise.all([
        send(server.port, 'POST', LEGACY_HEADERS, legacy(method, there)),
        send(server.port, 'POST', LEGACY_HEADERS, legacy(method, nowhere)),
      ])
      expect(q.body).toBe(p.body)
    }
  })

  it('serves the prompt and the resources on the surface to a 2026-07-28 client and a 2025 client of the SDK', async () => {
    const { ran, target } = sdkTarget()
    const server = await serveHandler(
      mcpHttpHandler(target, createMcpHttpAdmission({ ...options(), route: route() })),
    )
    running.push(server)
    const url = new URL(`http://127.0.0.1:${server.port}/mcp`)
    const modernClient = new Client(
      { name: 'modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    const legacyClient = new Client({ name: 'legacy', version: '1.0.0' })
    await modernClient.connect(new StreamableHTTPClientTransport(url))
    await legacyClient.connect(new StreamableHTTPClientTransport(url))
    closers.push(
      () => modernClient.close(),
      () => legacyClient.close(),
    )
    for (const client of [modernClient, legacyClient]) {
      const prompt = await client.getPrompt({ name: 'greet' })
      expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'greet!' })
      const read = await client.readResource({ uri: 'docs://public/a' })
      expect(read.contents[0]).toMatchObject({ text: 'public document' })
      await expect(client.getPrompt({ name: 'secret' })).rejects.toThrow()
      await expect(client.readResource({ uri: 'docs://private/a' })).rejects.toThrow()
    }
    expect(ran).toEqual({ greet: 2, secret: 0, public: 2, private: 0 })
  })

  it('reads the body of a refused 2026-07-28 name to the body cap when the head step is left out (the control)', async () => {
    const { reached, target } = recordingTarget()
    let read = 0
    const handle = stepsWithout(['head'], target, { ...options(), route: route() })
    const server = await serveHandler(async (req, res) => {
      try {
        await handle(req, res)
      } finally {
        read = Math.max(read, req.socket.bytesRead)
      }
    })
    running.push(server)
    const { headers, body } = modern('prompts/get', 'secret')
    const endless = await sendEndless(server.port, headers, body.slice(0, 20))
    expect(endless.answer.status).toBe(413)
    expect(read).toBeGreaterThan(4 * 1024 * 1024)
    expect(reached).toHaveLength(0)
  })

  it('lets a user SDK 2.4 server serve the prompt and the resource the route excludes when the head and agreement steps are left out (the control)', async () => {
    const { ran, target } = sdkTarget()
    const server = await serveHandler(
      stepsWithout(['head', 'agreement'], target, { ...options(), route: route() }),
    )
    running.push(server)
    const prompt = modern('prompts/get', 'secret')
    const served = await send(server.port, 'POST', prompt.headers, prompt.body)
    expect(served.status).toBe(200)
    expect(JSON.parse(served.body).result.messages[0].content.text).toBe('secret!')
    const resource = modern('resources/read', 'docs://private/a')
    const read = await send(server.port, 'POST', resource.headers, resource.body)
    expect(read.status).toBe(200)
    expect(JSON.parse(read.body).result.contents[0].text).toBe('private document')
    expect(ran).toMatchObject({ secret: 1, private: 1 })
    // The same requests with every step in place: refused, the server untouched.
    const guarded = await serveHandler(
      mcpHttpHandler(target, createMcpHttpAdmission({ ...options(), route: route() })),
    )
    running.push(guarded)
    expect((await send(guarded.port, 'POST', prompt.headers, prompt.body)).status).toBe(400)
    expect((await send(guarded.port, 'POST', resource.headers, resource.body)).status).toBe(400)
    expect(ran).toMatchObject({ secret: 1, private: 1 })
  })

  it('lets a 2025 request off the surface reach the server when the agreement step is left out (the control)', async () => {
    const { reached, target } = recordingTarget()
    const server = await serveHandler(
      stepsWithout(['agreement'], target, { ...options(), route: route() }),
    )
    running.push(server)
    for (const c of OFF.filter((c) => c.header === undefined)) {
      const answer = await send(server.port, 'POST', LEGACY_HEADERS, legacy(c.method, c.name))
      expect(answer.status, c.name).toBe(200)
    }
    expect(reached).toHaveLength(OFF.filter((c) => c.header === undefined).length)
  })
})

describe('mcpRouteHead prompts and resources options', () => {
  it('fails at construction on entries that are not names or URI templates it can judge', () => {
    const bad: unknown[] = [
      { prompts: 'greet' },
      { prompts: [''] },
      { prompts: ['x'.repeat(2049)] },
      { resources: ['docs://a b'] },
      { resources: ['docs://a\\b'] },
      { resources: ['docs://{a}{b}'] },
      { resources: ['docs://{+path}'] },
      { resources: ['docs://{a'] },
      { resources: ['docs://a}'] },
      { resources: [1] },
    ]
    for (const o of bad)
      expect(() => mcpRouteHead(o as never), JSON.stringify(o)).toThrow(TypeError)
    expect(() => mcpRouteHead({ prompts: [], resources: ['docs://{a}/{b}.md'] })).not.toThrow()
  })
})
