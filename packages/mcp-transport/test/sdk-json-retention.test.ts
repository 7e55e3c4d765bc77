// The SDK 1.32.2 JSON-response retention, through the production path: a child process
// (`node --expose-gc`, test/fixtures/json-retention-server.mjs) serving one MCP session with a
// real McpServer on the SDK's StreamableHTTPServerTransport behind mcpHttpHandler on a real
// http.Server on 127.0.0.1; raw fetch from here. The child reports its heap after a full GC on
// a side route (`GET /heap`); nothing here reads the transport's private state.
import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { listen, type Running } from '@tollgate/test-kit/listen'
import {
  MCP_POST_HEADERS as HEADERS,
  INITIALIZED_NOTIFICATION,
  initializeRequest,
  PROTOCOL_VERSION,
} from '@tollgate/test-kit/mcp-initialize'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createMcpHttpAdmission,
  mcpHttpHandler,
  releaseFinishedJsonResponses,
  SDK_SHAPE_WARNING_CODE,
} from '../src/index.js'

const FIXTURE = fileURLToPath(new URL('./fixtures/json-retention-server.mjs', import.meta.url))
const MiB = 1024 * 1024
const PINGS = 20
const PAD = 2 * MiB

let children: ChildProcess[] = []
let running: Running[] = []
afterEach(async () => {
  for (const child of children) child.kill()
  children = []
  await Promise.all(running.map((r) => r.close()))
  running = []
})

async function start(mode: 'json' | 'sse', release: 'release' | 'keep'): Promise<string> {
  const child = spawn(process.execPath, ['--expose-gc', FIXTURE, mode, release], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  children.push(child)
  const port = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /port (\d+)\n/.exec(out)
      if (m?.[1] !== undefined) resolve(m[1])
    })
    child.on('exit', (code) => reject(new Error(`fixture exited with ${code}`)))
  })
  return `http://127.0.0.1:${port}`
}

async function heapUsed(base: string): Promise<number> {
  const res = await fetch(`${base}/heap`)
  return ((await res.json()) as { heapUsed: number }).heapUsed
}

/** Opens one session; returns the headers that name it. */
async function openSession(url: string): Promise<Record<string, string>> {
  const init = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify(initializeRequest(0, 'retention-test')),
  })
  expect(init.status).toBe(200)
  await init.text()
  const session = {
    ...HEADERS,
    'mcp-session-id': init.headers.get('mcp-session-id') ?? '',
    'mcp-protocol-version': PROTOCOL_VERSION,
  }
  const done = await fetch(url, {
    method: 'POST',
    headers: session,
    body: JSON.stringify(INITIALIZED_NOTIFICATION),
  })
  expect(done.status).toBe(202)
  await done.text()
  return session
}

/** A ping of about 2 MiB, answered 200 with an empty result (SSE or JSON). */
async function bigPing(url: string, session: Record<string, string>, id: number) {
  const body = `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"_meta":{"pad":"${'x'.repeat(PAD)}"}}}`
  const res = await fetch(url, { method: 'POST', headers: session, body })
  expect(res.status).toBe(200)
  const text = await res.text()
  expect(text).toContain(`"id":${id}`)
  expect(text).toContain('"result":{}')
}

/** Heap growth after GC, in bytes, over PINGS pings of ~2 MiB in one session. */
async function growth(mode: 'json' | 'sse', release: 'release' | 'keep'): Promise<number> {
  const base = await start(mode, release)
  const url = `${base}/mcp`
  const session = await openSession(url)
  await bigPing(url, session, 1) // warm-up: lazily built code paths are in the baseline
  const before = await heapUsed(base)
  for (let id = 2; id < PINGS + 2; id++) await bigPing(url, session, id)
  return (await heapUsed(base)) - before
}

describe('mcpHttpHandler', () => {
  it('keeps the heap flat over 20 pings of 2 MiB in one JSON-response session', async () => {
    expect(await growth('json', 'release')).toBeLessThan(10 * MiB)
  })

  it('lets the SDK keep every 2 MiB body of a JSON-response session without the release (the control)', async () => {
    expect(await growth('json', 'keep')).toBeGreaterThan(30 * MiB)
  })

  it('keeps the heap flat in SSE mode with no release: the SDK cleans SSE streams itself', async () => {
    expect(await growth('sse', 'keep')).toBeLessThan(10 * MiB)
  })

  it('answers a pending request after a later POST on the same session released the finished ones', async () => {
    // A tool that waits until the test lets it go: its JSON response is pending while a ping on
    // the same session completes (and the release runs after it).
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let entered: () => void = () => {}
    const started = new Promise<void>((resolve) => {
      entered = resolve
    })
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
    })
    const server = new McpServer({ name: 'pending', version: '1.0.0' })
    server.registerTool('wait', {}, async () => {
      entered()
      await gate
      return { content: [{ type: 'text', text: 'waited' }] }
    })
    await server.connect(transport)
    const handler = mcpHttpHandler(transport)
    const http = await listen(
      (req, res) => {
        handler(req, res).catch(() => res.destroy())
      },
      { path: '/mcp' },
    )
    running.push(http)
    const session = await openSession(http.url)
    const waiting = fetch(http.url, {
      method: 'POST',
      headers: session,
      body: '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{}}}',
    })
    await started
    await bigPing(http.url, session, 8)
    await bigPing(http.url, session, 9)
    release()
    const answer = await waiting
    expect(answer.status).toBe(200)
    const body = await answer.json()
    expect(body).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: 'waited' }] } })
  })

  it('refuses a releaseSdkJsonResponses that is not a boolean, and defaults it to true', () => {
    expect(createMcpHttpAdmission().policy.releaseSdkJsonResponses).toBe(true)
    expect(
      createMcpHttpAdmission({ releaseSdkJsonResponses: false }).policy.releaseSdkJsonResponses,
    ).toBe(false)
    expect(() =>
      mcpHttpHandler(
        { handleRequest: async () => {} },
        createMcpHttpAdmission({
          releaseSdkJsonResponses: 'no' as never,
        }),
      ),
    ).toThrow(TypeError)
  })
})

describe('releaseFinishedJsonResponses', () => {
  it('leaves a transport that is not the SDK alone, silently', () => {
    const warnings: Error[] = []
    const onWarning = (w: Error) => warnings.push(w)
    process.on('warning', onWarning)
    try {
      expect(releaseFinishedJsonResponses({ handleRequest: async () => {} })).toBe(0)
      expect(releaseFinishedJsonResponses(undefined)).toBe(0)
    } finally {
      process.off('warning', onWarning)
    }
    expect(warnings).toEqual([])
  })

  it('emits one TOLLGATE_SDK_SHAPE warning for an SDK transport without the 1.32.x shape', async () => {
    // A stand-in named like the SDK class whose private fields are not those of 1.32.x.
    class StreamableHTTPServerTransport {
      _webStandardTransport = { _streamMapping: {} }
    }
    const warnings: (Error & { code?: string })[] = []
    const onWarning = (w: Error) => warnings.push(w)
    process.on('warning', onWarning)
    try {
      expect(releaseFinishedJsonResponses(new StreamableHTTPServerTransport())).toBe(0)
      expect(releaseFinishedJsonResponses(new StreamableHTTPServerTransport())).toBe(0)
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      process.off('warning', onWarning)
    }
    expect(warnings.map((w) => w.code)).toEqual([SDK_SHAPE_WARNING_CODE])
  })
})
