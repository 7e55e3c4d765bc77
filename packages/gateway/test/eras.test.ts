import { spawn } from 'node:child_process'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  CLI,
  callBody,
  EVERYTHING,
  modern,
  post,
  type RunningCli,
  session,
  startCli,
} from './fixtures/run-gateway.js'

let running: RunningCli | undefined
afterEach(async () => {
  await running?.stop('SIGKILL')
  running = undefined
})

// One gateway in front of one server-everything child for the tests that do not change its
// options (each start costs seconds on a shared machine).
let shared: RunningCli
beforeAll(async () => {
  shared = await startCli(['--', process.execPath, EVERYTHING, 'stdio'])
})
afterAll(async () => {
  await shared.stop('SIGKILL')
})

const V2026 = '2026-07-28'

describe('serveHttp (tollgate-gateway in front of @modelcontextprotocol/server-everything)', () => {
  it('serves a session-era client with a gateway-issued Mcp-Session-Id', async () => {
    const call = await session(shared.url)
    const list = await call('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    const tools = (list.body?.result as { tools?: { name: string }[] } | undefined)?.tools ?? []
    expect(tools.map((t) => t.name)).toContain('echo')
    const echo = await call(callBody(2, 'echo', { message: 'hello' }))
    expect(echo.body?.result).toMatchObject({ content: [{ type: 'text', text: 'Echo: hello' }] })
    // The SDK would strip this key and run the tool; the gateway refuses it.
    const extra = await call(callBody(3, 'echo', { message: 'hello', injected: true }))
    expect(extra.body?.result).toMatchObject({ isError: true })
  })

  it('refuses a session-era request naming an unknown session with 404 ERR_SESSION_UNKNOWN, before its body is read', async () => {
    const answer = await post(shared.url, callBody(1, 'echo', { message: 'x' }), {
      'mcp-session-id': 'not-a-session',
    })
    expect(answer.status).toBe(404)
    expect(answer.body?.error).toMatchObject({
      code: -32009,
      data: { code: 'ERR_SESSION_UNKNOWN' },
    })
  })

  it('serves a 2026-07-28 client statelessly: server/discover from the upstream initialize, then tools/call', async () => {
    const discover = await modern(shared.url, 1, 'server/discover')
    expect(discover.status).toBe(200)
    expect(discover.body?.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [V2026],
      capabilities: { tools: {} },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'mcp-servers/everything' } },
    })
    expect(discover.headers.get('mcp-session-id')).toBeNull()
    const echo = await modern(shared.url, 2, 'tools/call', {
      name: 'echo',
      arguments: { message: 'modern' },
    })
    expect(echo.body?.result).toMatchObject({
      resultType: 'complete',
      content: [{ text: 'Echo: modern' }],
    })
  })

  it('refuses a 2026-07-28 tools/call naming an unserved tool in Mcp-Name from the head, before the body', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'no-such-tool',
        arguments: {},
        _meta: { 'io.modelcontextprotocol/protocolVersion': V2026 },
      },
    })
    const answer = await post(shared.url, body, {
      'mcp-protocol-version': V2026,
      'mcp-method': 'tools/call',
      'mcp-name': 'no-such-tool',
    })
    expect(answer.status).toBe(400)
    expect(answer.body?.error).toMatchObject({ code: -32602 })
    expect(answer.headers.get('connection')).toBe('close')
  })

  it('refuses a 2026-07-28 request whose Mcp-Method header disagrees with its body with 400 -32020', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'echo',
        arguments: { message: 'x' },
        _meta: { 'io.modelcontextprotocol/protocolVersion': V2026 },
      },
    })
    const answer = await post(shared.url, body, {
      'mcp-protocol-version': V2026,
      'mcp-method': 'tools/list',
    })
    expect(answer.status).toBe(400)
    expect(answer.body?.error).toMatchObject({ code: -32020 })
  })

  it('answers a 2026-07-28 request naming another version in _meta with -32022 and the supported list', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
    })
    const answer = await post(shared.url, body, { 'mcp-protocol-version': '2099-01-01' })
    expect(answer.status).toBe(400)
    expect(answer.body?.id).toBe(1)
    expect(answer.body?.error).toMatchObject({
      code: -32022,
      data: { supported: expect.arrayContaining([V2026]), requested: '2099-01-01' },
    })
  })

  it('answers an unsupported version after the body with the request id, echoing only a version-shaped value', async () => {
    const ask = (version: string, id: number) =>
      post(
        shared.url,
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'server/discover',
          params: { _meta: { 'io.modelcontextprotocol/protocolVersion': version } },
        }),
        { 'mcp-protocol-version': version },
      )
    const shaped = await ask('v999.0.0', 301)
    expect(shaped.status).toBe(400)
    expect(shaped.body?.id).toBe(301)
    expect(shaped.body?.error).toMatchObject({ code: -32022, data: { requested: 'v999.0.0' } })
    const markup = await ask('<b>x</b>', 302)
    expect(markup.status).toBe(400)
    expect(markup.body?.id).toBe(302)
    expect(JSON.stringify(markup.body)).not.toContain('<b>')
  })

  it('refuses a body over --max-body-bytes with 413 ERR_BODY_TOO_LARGE', async () => {
    running = await startCli([
      '--max-body-bytes',
      '1024',
      '--',
      process.execPath,
      EVERYTHING,
      'stdio',
    ])
    const call = await session(running.url)
    const answer = await call(callBody(1, 'echo', { message: 'x'.repeat(2000) }))
    expect(answer.status).toBe(413)
    expect(answer.body?.error).toMatchObject({ data: { code: 'ERR_BODY_TOO_LARGE', limit: 1024 } })
  })

  it("relays a stdio child's progress to the caller that asked, under its own token, and to no other caller", async () => {
    const open = async (): Promise<Record<string, string>> => {
      const init = await post(
        shared.url,
        '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}',
      )
      return {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': init.headers.get('mcp-session-id') ?? '',
        'mcp-protocol-version': '2025-06-18',
      }
    }
    // Two callers send the same token at once: each must see its own two steps only.
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'trigger-long-running-operation',
        arguments: { duration: 0.2, steps: 2 },
        _meta: { progressToken: 'same' },
      },
    })
    const [a, b] = await Promise.all([open(), open()])
    const answers = await Promise.all(
      [a, b].map(async (headers) => {
        const res = await fetch(shared.url, { method: 'POST', headers, body })
        expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
        return (await res.text())
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>)
      }),
    )
    for (const frames of answers) {
      const progress = frames.filter((f) => f.method === 'notifications/progress')
      expect(progress.map((f) => f.params)).toEqual([
        { progress: 1, total: 2, progressToken: 'same' },
        { progress: 2, total: 2, progressToken: 'same' },
      ])
      expect(frames.at(-1)).toMatchObject({ id: 1, result: { content: [{ type: 'text' }] } })
    }
  })
})

describe('serveStdio (tollgate-gateway --stdio)', () => {
  it('serves one client over stdin/stdout and exits when its input ends, taking the child with it', async () => {
    const proc = spawn(
      process.execPath,
      [CLI, '--stdio', '--', process.execPath, EVERYTHING, 'stdio'],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    )
    let out = ''
    proc.stdout.setEncoding('utf8')
    proc.stdout.on('data', (chunk: string) => {
      out += chunk
    })
    const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve))
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'echo', arguments: { message: 'over stdio', extra: 1 } },
      },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'echo', arguments: { message: 'over stdio' } },
      },
    ]
    proc.stdin.write(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`)
    proc.stdin.write('{"jsonrpc":"2.0","id":4,"method":"tools/list","id":5}\n')
    proc.stdin.end()
    expect(await exited).toBe(0)
    const answers = new Map(
      out
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as { id: unknown })
        .map((m) => [m.id, m]),
    )
    expect(answers.get(1)).toMatchObject({ result: { protocolVersion: '2025-06-18' } })
    expect(answers.get(2)).toMatchObject({ result: { isError: true } })
    expect(answers.get(3)).toMatchObject({ result: { content: [{ text: 'Echo: over stdio' }] } })
    expect(answers.get(null)).toMatchObject({
      error: { code: -32700, data: { code: 'ERR_JSON_DUPLICATE_KEY' } },
    })
  })
})
