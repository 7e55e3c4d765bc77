import { createHash } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  callBody,
  MISBEHAVING,
  post,
  type RunningCli,
  recorded,
  recordFile,
  startCliPerTest,
} from './fixtures/run-gateway.js'

const startCli = startCliPerTest()
let running: RunningCli | undefined

const TOKEN = 'test-token-0123456789'
const sha = (t: string) => createHash('sha256').update(t).digest('hex')

async function gatewayWith(config: unknown) {
  const dir = mkdtempSync(join(tmpdir(), 'gw-access-'))
  const file = join(dir, 'config.json')
  writeFileSync(file, JSON.stringify(config))
  const record = recordFile()
  running = await startCli(['--config', file, '--', process.execPath, MISBEHAVING], {
    RECORD_FILE: record,
  })
  return record
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
})

async function open(url: string, token: string | undefined) {
  const auth: Record<string, string> =
    token === undefined ? {} : { authorization: `Bearer ${token}` }
  const init = await post(url, INIT, auth)
  const id = init.headers.get('mcp-session-id') ?? ''
  return {
    init,
    call: (body: string) =>
      post(url, body, { ...auth, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }),
  }
}

describe('access and limiter (through tollgate-gateway --config)', () => {
  it('refuses a caller without a valid bearer credential with 401, before anything reaches the upstream', async () => {
    const record = await gatewayWith({
      credentials: [{ name: 'alice', tokenSha256: sha(TOKEN) }],
      routes: [{ path: '/mcp', anonymous: false }],
    })
    const anonymous = await post(running?.url ?? '', callBody(1, 'echo', { message: 'x' }))
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer')
    const wrong = await post(running?.url ?? '', INIT, { authorization: 'Bearer wrong-token' })
    expect(wrong.status).toBe(401)
    const { init, call } = await open(running?.url ?? '', TOKEN)
    expect(init.status).toBe(200)
    const echo = await call(callBody(1, 'echo', { message: 'alice' }))
    expect(echo.body?.result).toMatchObject({ content: [{ text: 'echo:{"message":"alice"}' }] })
    expect(recorded(record).filter((m) => m.method === 'tools/call')).toHaveLength(1)
  })

  it("answers a tool denied on the caller's route with the unknown tool's bytes and leaves it out of tools/list", async () => {
    const record = await gatewayWith({
      routes: [{ path: '/mcp', anonymous: true, deny: ['echo'] }],
    })
    const { call } = await open(running?.url ?? '', undefined)
    const list = await call('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    const names = (
      (list.body?.result as { tools?: { name: string }[] } | undefined)?.tools ?? []
    ).map((t) => t.name)
    expect(names).not.toContain('echo')
    expect(names).toContain('slow')
    const denied = await call(callBody(2, 'echo', { message: 'x' }))
    expect(denied.body?.result).toEqual({
      content: [{ type: 'text', text: 'Unknown tool' }],
      isError: true,
    })
    expect(recorded(record).filter((m) => m.method === 'tools/call')).toHaveLength(0)
  })

  it('refuses past the per-principal rate with 429 and Retry-After, and the refused call never reaches the upstream', async () => {
    const record = await gatewayWith({
      routes: [{ path: '/mcp', anonymous: true }],
      limits: { ratePerMinute: 1, burst: 1 },
    })
    const { call } = await open(running?.url ?? '', undefined)
    const first = await call(callBody(1, 'echo', { message: 'one' }))
    expect(first.status).toBe(200)
    const second = await call(callBody(2, 'echo', { message: 'two' }))
    expect(second.status).toBe(429)
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(second.body?.error).toMatchObject({ data: { code: 'ERR_RATE_LIMITED' } })
    expect(recorded(record).filter((m) => m.method === 'tools/call')).toHaveLength(1)
  })

  it('counts admissions and refusals in /metrics', async () => {
    await gatewayWith({ routes: [{ path: '/mcp', anonymous: true }] })
    const { call } = await open(running?.url ?? '', undefined)
    await call(callBody(1, 'echo', { message: 'one' }))
    await call(callBody(2, 'echo', { message: 'two', extra: 1 }))
    const text = await (await fetch(`http://127.0.0.1:${running?.port}/metrics`)).text()
    expect(text).toMatch(/tollgate_gateway_admitted_total\{[^}]*tool="echo"[^}]*\} 1/)
    expect(text).toMatch(/tollgate_gateway_refused_total\{[^}]*code="ERR_TOOL_ARGUMENTS"[^}]*\} 1/)
  })
})
