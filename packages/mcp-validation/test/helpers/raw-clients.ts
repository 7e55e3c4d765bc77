// Raw JSON-RPC clients that ignore every published schema: they write the bytes a hostile
// caller would. One per transport: in-memory, Streamable HTTP on 127.0.0.1, a stdio child.
import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { listen } from '@tollgate/test-kit/listen'
import {
  INITIALIZED_NOTIFICATION,
  initializeRequest,
  MCP_POST_HEADERS,
  PROTOCOL_VERSION,
} from '@tollgate/test-kit/mcp-initialize'
import {
  type InputValidationOptions,
  loadSchemaRegistry,
  type SchemaRegistry,
  withInputValidation,
} from '../../src/index.js'
import { createTestServer, FIXTURE_SCHEMAS, type HandlerCall } from '../fixtures/test-server.js'
import { InMemoryTransport, StreamableHTTPServerTransport } from './sdk-line.js'

export type Json = Record<string, unknown>

/** A tools/call request as a raw object. */
export function toolCall(id: number, name: string, args?: unknown): Json {
  const params: Json = { name }
  if (args !== undefined) params.arguments = args
  return { jsonrpc: '2.0', id, method: 'tools/call', params }
}

let registry: SchemaRegistry | undefined
export function fixtureRegistry(): SchemaRegistry {
  registry ??= loadSchemaRegistry(FIXTURE_SCHEMAS)
  return registry
}

/** A raw session: `send` one message or a batch and get the raw response text back. */
export interface RawSession {
  readonly calls: HandlerCall[]
  /** Sends and returns each response (by id, in the order of the requests sent). */
  request(message: Json | Json[]): Promise<{ raw: string[]; parsed: Json[] }>
  close(): Promise<void>
}

/** In-memory: the SDK's linked pair, the server side decorated (or not). */
export async function inMemorySession(
  decorated = true,
  options: InputValidationOptions = {},
): Promise<RawSession> {
  return inMemorySessionWith((server, serverSide) =>
    server.connect(
      decorated ? withInputValidation(serverSide, fixtureRegistry(), options) : serverSide,
    ),
  )
}

/** In-memory, the test server connected to the server side of the pair by `connect`. */
export async function inMemorySessionWith(
  connect: (server: ReturnType<typeof createTestServer>, serverSide: Transport) => Promise<void>,
): Promise<RawSession> {
  const calls: HandlerCall[] = []
  const server = createTestServer(calls)
  const [client, serverSide] = InMemoryTransport.createLinkedPair()
  await connect(server, serverSide)
  const waiting = new Map<unknown, (m: Json) => void>()
  client.onmessage = (message) => {
    const id = (message as Json).id
    waiting.get(id)?.(message as Json)
    waiting.delete(id)
  }
  await client.start()
  const session: RawSession = {
    calls,
    async request(message) {
      const list = Array.isArray(message) ? message : [message]
      const answers = list
        .filter((m) => 'id' in m)
        .map((m) => new Promise<Json>((resolve) => waiting.set(m.id, resolve)))
      for (const m of list) await client.send(m as JSONRPCMessage)
      const parsed = await Promise.all(answers)
      return { raw: parsed.map((p) => JSON.stringify(p)), parsed }
    },
    close: () => client.close(),
  }
  await session.request(initializeRequest())
  await client.send(INITIALIZED_NOTIFICATION as JSONRPCMessage)
  return session
}

/** Streamable HTTP: a real http.Server on 127.0.0.1, one McpServer per session, JSON responses. */
export async function httpSession(
  decorated = true,
  options: InputValidationOptions = {},
): Promise<RawSession> {
  const calls: HandlerCall[] = []
  const transports = new Map<string, InstanceType<typeof StreamableHTTPServerTransport>>()
  const http = await listen(async (req, res) => {
    const sid = req.headers['mcp-session-id']
    const known = typeof sid === 'string' ? transports.get(sid) : undefined
    if (known !== undefined) return known.handleRequest(req, res)
    const transport: InstanceType<typeof StreamableHTTPServerTransport> =
      new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => {
          transports.set(id, transport)
        },
      })
    const server = createTestServer(calls)
    await server.connect(
      decorated ? withInputValidation(transport, fixtureRegistry(), options) : transport,
    )
    return transport.handleRequest(req, res)
  })
  const url = `${http.url}/mcp`
  let session: string | undefined
  const post = async (body: unknown) => {
    const headers: Record<string, string> = { ...MCP_POST_HEADERS }
    if (session !== undefined) headers['mcp-session-id'] = session
    if (session !== undefined) headers['mcp-protocol-version'] = PROTOCOL_VERSION
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })
    session ??= res.headers.get('mcp-session-id') ?? undefined
    return { status: res.status, text: await res.text() }
  }
  const out: RawSession = {
    calls,
    async request(message) {
      const { status, text } = await post(message)
      if (status !== 200) throw new Error(`HTTP ${status}: ${text.slice(0, 200)}`)
      const parsed = JSON.parse(text) as Json | Json[]
      const list = Array.isArray(parsed) ? parsed : [parsed]
      return { raw: list.map((p) => JSON.stringify(p)), parsed: list }
    },
    async close() {
      for (const t of transports.values()) await t.close()
      await http.close()
    },
  }
  await out.request(initializeRequest())
  const note = await post(INITIALIZED_NOTIFICATION)
  if (note.status !== 202) throw new Error(`initialized: HTTP ${note.status}`)
  return out
}

const CHILD = fileURLToPath(new URL('../fixtures/stdio-child.ts', import.meta.url))
const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url))

/** Stdio: a real child process running the test server; raw lines on its stdin. */
export async function stdioSession(decorated = true): Promise<RawSession> {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-stdio-'))
  const sentinel = join(dir, 'calls.jsonl')
  writeFileSync(sentinel, '')
  const calls: HandlerCall[] = []
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, decorated ? 'decorated' : 'undecorated', sentinel],
    { cwd: PACKAGE_DIR, stdio: ['pipe', 'pipe', 'pipe'] },
  )
  const waiting = new Map<unknown, (line: string) => void>()
  let out = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk
    for (let nl = out.indexOf('\n'); nl !== -1; nl = out.indexOf('\n')) {
      const line = out.slice(0, nl)
      out = out.slice(nl + 1)
      const id = (JSON.parse(line) as Json).id
      waiting.get(id)?.(line)
      waiting.delete(id)
    }
  })
  child.stderr?.resume()
  const session: RawSession = {
    calls,
    async request(message) {
      const list = Array.isArray(message) ? message : [message]
      const answers = list
        .filter((m) => 'id' in m)
        .map((m) => new Promise<string>((resolve) => waiting.set(m.id, resolve)))
      for (const m of list) child.stdin?.write(`${JSON.stringify(m)}\n`)
      const raw = await Promise.all(answers)
      // Every handler that ran wrote its line before its response was sent.
      const lines = readFileSync(sentinel, 'utf8').split('\n').filter(Boolean)
      calls.splice(0, calls.length, ...lines.map((l) => JSON.parse(l) as HandlerCall))
      return { raw, parsed: raw.map((r) => JSON.parse(r) as Json) }
    },
    async close() {
      child.stdin?.end()
      if (child.exitCode === null) {
        await new Promise((resolve) => {
          child.once('exit', resolve)
          setTimeout(() => child.kill(), 2000)
        })
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
  await session.request(initializeRequest())
  child.stdin?.write(`${JSON.stringify(INITIALIZED_NOTIFICATION)}\n`)
  return session
}

/**
 * A transport with no SDK server behind it: what the decorator over it sends is collected in
 * `sent`, and `stub.onmessage` (set by the decorator) delivers an inbound message.
 */
export function stubTransport(): { stub: Transport; sent: Json[] } {
  const sent: Json[] = []
  const stub = {
    start: async () => {},
    close: async () => {},
    send: async (m: unknown) => {
      sent.push(m as Json)
    },
  } as unknown as Transport
  return { stub, sent }
}
