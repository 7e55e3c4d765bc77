// tollgate-gateway --upstream in front of the repository's conformance fixture (an SDK 2.4
// `createMcpHandler` server: 2026-07-28, with the stateless 2025 fallback), spoken to with a raw
// JSON-RPC client: what each era's client sees must be what the server behind the gateway says.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  callBody,
  modern,
  post,
  type RunningCli,
  START_DEADLINE_MS,
  startCli,
} from './fixtures/run-gateway.js'

const FIXTURE_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'tools',
  'conformance-fixture',
)
const V2026 = '2026-07-28'

let fixture: ChildProcess
let fixturePort: number
let gateway: RunningCli

/** Starts the bare conformance fixture on a free port; resolves with its port. */
function startFixture(): Promise<number> {
  fixture = spawn(
    process.execPath,
    ['--conditions=@tollgate/source', '--import', 'tsx', 'src/main.ts', '--port', '0'],
    { cwd: FIXTURE_DIR, stdio: ['ignore', 'ignore', 'pipe'] },
  )
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('fixture did not start')), START_DEADLINE_MS)
    let text = ''
    fixture.stderr?.setEncoding('utf8')
    fixture.stderr?.on('data', (chunk: string) => {
      text += chunk
      const port = /"event":"listening".*?"port":(\d+)/.exec(text)?.[1]
      if (port !== undefined) {
        clearTimeout(timer)
        resolve(Number(port))
      }
    })
  })
}

beforeAll(async () => {
  fixturePort = await startFixture()
  gateway = await startCli(['--upstream', `http://127.0.0.1:${fixturePort}/mcp`])
}, 2 * START_DEADLINE_MS)
afterAll(async () => {
  await gateway?.stop('SIGKILL')
  fixture?.kill('SIGKILL')
})

/** A 2026-07-28 request with `_meta` as given (headers mirror the body). */
function modernWith(
  id: number,
  method: string,
  params: Record<string, unknown>,
  meta: Record<string, unknown>,
  accept = 'application/json, text/event-stream',
): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept,
    'mcp-protocol-version': V2026,
    'mcp-method': method,
  }
  if (method === 'tools/call') headers['mcp-name'] = String(params.name)
  return fetch(gateway.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }),
  })
}

const META = {
  'io.modelcontextprotocol/protocolVersion': V2026,
  'io.modelcontextprotocol/clientCapabilities': {},
}

/** The JSON-RPC messages of an answer: one JSON body, or the events of a stream. */
async function messages(res: Response): Promise<Record<string, unknown>[]> {
  const text = await res.text()
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return [JSON.parse(text) as Record<string, unknown>]
  }
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>)
}

describe('MessagePipeline (a 2025 client in front of a 2026-07-28 upstream)', () => {
  it("answers initialize with the upstream's serverInfo, read from its server/discover _meta", async () => {
    const init = await post(
      gateway.url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw' } },
      }),
    )
    expect(init.status).toBe(200)
    expect(init.body?.result).toMatchObject({
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'tollgate-conformance-fixture', version: '0.0.0' },
      capabilities: { logging: {} },
    })
  })

  it('relays the upstream progress under the caller token on an event stream, before the result', async () => {
    const headers = await openSession()
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'p-1' } },
    })
    const res = await fetch(gateway.url, { method: 'POST', headers, body })
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const frames = await messages(res)
    const progress = frames.filter((f) => f.method === 'notifications/progress')
    expect(progress.map((f) => (f.params as { progress: number }).progress)).toEqual([0, 50, 100])
    for (const f of progress) expect(f.params).toMatchObject({ progressToken: 'p-1', total: 100 })
    expect(frames.at(-1)).toMatchObject({ id: 7, result: { content: [{ type: 'text' }] } })
    expect(frames.at(-1)?.result).not.toHaveProperty('resultType')
  })

  it('answers logging/setLevel itself and relays log messages at or above the level set', async () => {
    const headers = await openSession()
    const send = (body: string): Promise<Response> =>
      fetch(gateway.url, { method: 'POST', headers, body })
    const logged = async (): Promise<number> => {
      const res = await send(callBody(3, 'test_tool_with_logging', {}))
      return (await messages(res)).filter((f) => f.method === 'notifications/message').length
    }
    // The session era's default: every message.
    expect(await logged()).toBe(3)
    const set = await send(
      '{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}',
    )
    expect(await set.json()).toMatchObject({ id: 2, result: {} })
    expect(await logged()).toBe(0)
    const bad = await send(
      '{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"loud"}}',
    )
    expect(await bad.json()).toMatchObject({ id: 4, error: { code: -32602 } })
  })

  it('accepts resources/subscribe and resources/unsubscribe as a stateless server does', async () => {
    const headers = await openSession()
    for (const method of ['resources/subscribe', 'resources/unsubscribe']) {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method,
        params: { uri: 'test://static-text' },
      })
      const answer = await fetch(gateway.url, { method: 'POST', headers, body })
      expect(await answer.json()).toMatchObject({ id: 5, result: {} })
    }
  })
})

/** Opens a session-era session; returns the headers of its later requests. */
async function openSession(): Promise<Record<string, string>> {
  const init = await post(
    gateway.url,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw' } },
    }),
  )
  const id = init.headers.get('mcp-session-id')
  if (id === null) throw new Error(`initialize failed: ${init.status}`)
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': id,
    'mcp-protocol-version': '2025-06-18',
  }
}

describe('serveHttp (a 2026-07-28 client in front of a 2026-07-28 upstream)', () => {
  it('lists tools with the caching hints (ttlMs, cacheScope)', async () => {
    const list = await modern(gateway.url, 1, 'tools/list')
    const result = list.body?.result as Record<string, unknown>
    expect(Number.isInteger(result.ttlMs) && (result.ttlMs as number) >= 0).toBe(true)
    expect(['public', 'private']).toContain(result.cacheScope)
  })

  it("forwards the caller's clientCapabilities: undeclared sampling is -32021 with HTTP 400", async () => {
    const res = await modernWith(
      9,
      'tools/call',
      { name: 'test_missing_capability', arguments: {} },
      META,
    )
    expect(res.status).toBe(400)
    const [answer] = await messages(res)
    expect(answer).toMatchObject({
      id: 9,
      error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } },
    })
    const declared = await modernWith(
      10,
      'tools/call',
      { name: 'test_missing_capability', arguments: {} },
      { ...META, 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } },
    )
    expect(declared.status).toBe(200)
    expect((await messages(declared))[0]).toMatchObject({
      id: 10,
      result: { resultType: 'input_required' },
    })
  })

  it('passes an InputRequiredResult through with its requestState sealed, opens it on the next round, and refuses a tampered one -32016', async () => {
    const meta = { ...META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }
    const params = { name: 'test_input_required_result_request_state', arguments: {} }
    const first = (await messages(await modernWith(11, 'tools/call', params, meta)))[0]
    const result = first?.result as { resultType: string; requestState: string }
    expect(result.resultType).toBe('input_required')
    expect(typeof result.requestState).toBe('string')
    const round = {
      ...params,
      inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
      requestState: result.requestState,
    }
    const second = (await messages(await modernWith(12, 'tools/call', round, meta)))[0]
    expect(second).toMatchObject({
      id: 12,
      result: { resultType: 'complete', content: [{ text: 'state-ok: confirmed' }] },
    })
    const tampered = { ...round, requestState: `${result.requestState.slice(0, -2)}xx` }
    const third = (await messages(await modernWith(13, 'tools/call', tampered, meta)))[0]
    // The gateway opens the handle itself: a tampered one never reaches the upstream's check.
    expect(third).toMatchObject({
      id: 13,
      error: { code: -32016, data: { code: 'ERR_REQUEST_STATE_INVALID' } },
    })
  })

  it('refuses a request without clientCapabilities 400 -32602 with its id', async () => {
    const res = await modernWith(
      14,
      'server/discover',
      {},
      {
        'io.modelcontextprotocol/protocolVersion': V2026,
      },
    )
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ id: 14, error: { code: -32602 } })
  })

  it('answers the methods the revision removed, and an unknown one, 404 -32601 with the id', async () => {
    for (const method of [
      'initialize',
      'ping',
      'logging/setLevel',
      'resources/subscribe',
      'unknown/method',
    ]) {
      const res = await modernWith(15, method, {}, META)
      expect(res.status).toBe(404)
      expect(await res.json()).toMatchObject({ id: 15, error: { code: -32601 } })
    }
  })

  it('relays log messages only when the request names a logLevel', async () => {
    const params = { name: 'test_logging_tool', arguments: {} }
    const none = await messages(await modernWith(16, 'tools/call', params, META))
    expect(none.filter((f) => f.method === 'notifications/message')).toHaveLength(0)
    const meta = { ...META, 'io.modelcontextprotocol/logLevel': 'info' }
    const some = await messages(await modernWith(17, 'tools/call', params, meta))
    expect(some.filter((f) => f.method === 'notifications/message')).toHaveLength(3)
  })

  it('relays a subscriptions/listen stream: the acknowledgement first, with its subscriptionId', async () => {
    const opened = await listen(gateway.url)
    opened.controller.abort()
    expect(opened.status).toBe(200)
    expect(opened.first).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': expect.anything() } },
    })
  })

  it("counts a subscriptions/listen stream against the caller's concurrency: past it, 429", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-listen-'))
    const config = join(dir, 'config.json')
    writeFileSync(
      config,
      JSON.stringify({
        routes: [{ path: '/mcp', anonymous: true }],
        limits: { concurrentPerPrincipal: 2 },
      }),
    )
    const limited = await startCli([
      '--config',
      config,
      '--upstream',
      `http://127.0.0.1:${fixturePort}/mcp`,
    ])
    const held: AbortController[] = []
    try {
      for (const url of [limited.url, limited.url]) {
        const opened = await listen(url)
        held.push(opened.controller)
        expect(opened.status).toBe(200)
      }
      const third = await listen(limited.url)
      held.push(third.controller)
      expect(third.status).toBe(429)
      expect(third.first).toMatchObject({ error: { data: { code: 'ERR_CONCURRENCY_LIMIT' } } })
      // The control removed (the default concurrency): the third stream is served.
      for (let i = 0; i < 2; i++) held.push((await listen(gateway.url)).controller)
      const served = await listen(gateway.url)
      held.push(served.controller)
      expect(served.status).toBe(200)
      expect(served.first).toMatchObject({ method: 'notifications/subscriptions/acknowledged' })
    } finally {
      for (const c of held) c.abort()
      await limited.stop('SIGKILL')
    }
  })
})

/** Opens a `subscriptions/listen` stream; resolves with its status and first message. */
async function listen(
  url: string,
): Promise<{ status: number; first: Record<string, unknown>; controller: AbortController }> {
  const controller = new AbortController()
  const res = await fetch(url, {
    method: 'POST',
    signal: controller.signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V2026,
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 18,
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true }, _meta: META },
    }),
  })
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return { status: res.status, first: (await res.json()) as Record<string, unknown>, controller }
  }
  const reader = (res.body as ReadableStream<Uint8Array>).getReader()
  let text = ''
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read()
    if (done) break
    text += new TextDecoder().decode(value)
  }
  const first = JSON.parse(/data: (.*)/.exec(text)?.[1] ?? 'null') as Record<string, unknown>
  return { status: res.status, first, controller }
}
