// Admission on the live server: the Streamable HTTP body cap, the stdio line cap and the result
// budget, each driven through the real process by a raw client.

import { initializeRequest } from '@tollgate/test-kit/mcp-initialize'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { post, RawSession, RawStdio, resultJson, toolResult } from './helpers/raw-client.js'
import { ALICE, type LiveServer, startServer } from './helpers/server.js'

const MiB = 1024 * 1024
// 4 MiB through a live server child: past the 30 s default on a loaded 2-core CI machine. A
// deadline, not a timing: nothing asserts how long it took.
const BIG = { timeout: 180_000 }
let server: LiveServer
let budgeted: LiveServer

beforeAll(async () => {
  ;[server, budgeted] = await Promise.all([
    startServer(),
    startServer(['--max-result-bytes', '70000']),
  ])
})
afterAll(async () => {
  await Promise.all([server.stop(), budgeted.stop()])
})

/** A JSON-RPC request padded with trailing whitespace to exactly `bytes` bytes. */
function padded(bytes: number): string {
  const text = JSON.stringify(initializeRequest(1))
  return text + ' '.repeat(bytes - Buffer.byteLength(text))
}

describe('Streamable HTTP body admission', () => {
  it('answers a body of 4 MiB + 1 bytes with 413 and a JSON-RPC error', BIG, async () => {
    const res = await post(server.url('/mcp'), padded(4 * MiB + 1), {
      authorization: `Bearer ${ALICE}`,
    })
    expect(res.status).toBe(413)
    const body = JSON.parse(res.text)
    expect(body.jsonrpc).toBe('2.0')
    expect(typeof body.error.code).toBe('number')
    expect(res.text).not.toContain('initialize')
    expect(server.audit.named('session_opened').length).toBe(0)
  })

  it('admits a body of exactly 4 MiB', BIG, async () => {
    const res = await post(server.url('/mcp'), padded(4 * MiB), {
      authorization: `Bearer ${ALICE}`,
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('mcp-session-id')).toBeTruthy()
  })
})

describe('BoundedStdioServerTransport in --stdio mode', () => {
  it('answers a line of exactly the cap and refuses a line one byte past it with ERR_LINE_TOO_LARGE, unserved, ending the input', async () => {
    const cap = 65_536
    const stdio = new RawStdio(['--max-line-bytes', String(cap)])
    try {
      await stdio.initialize()
      const call = (id: number, pad: number) => {
        const text = JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'project.list', arguments: {} },
        })
        return `${text}${' '.repeat(pad - Buffer.byteLength(text) - 1)}\n`
      }
      stdio.write(call(1, cap))
      const served = JSON.parse(await stdio.waitForId(1))
      expect(served.result.isError).toBeUndefined()
      stdio.write(call(2, cap + 1))
      await stdio.waitFor((l) => l.includes('ERR_LINE_TOO_LARGE'))
      expect(stdio.lines.some((l) => l.includes('"id":2') && l.includes('"result"'))).toBe(false)
      const refusal = stdio.lines.map((l) => JSON.parse(l)).find((m) => m.error !== undefined)
      expect(refusal.error.code).toBe(-32000)
      expect(refusal.error.data.code).toBe('ERR_LINE_TOO_LARGE')
      expect(refusal.error.data.limit).toBe(cap)
      expect(stdio.audit.named('tool_invoked').length).toBe(1)
      for (const line of stdio.lines) expect(() => JSON.parse(line)).not.toThrow()
    } finally {
      await stdio.stop()
    }
  })
})

describe('resultBudget on the reference server', () => {
  it('replaces a result over the budget with a small tool error and serves one under it', async () => {
    const s = await RawSession.open(budgeted.url('/mcp'), ALICE)
    const minted = resultJson(
      await s.call('knowledge', {
        projectId: 'borealis',
        resource: 'documents',
        action: 'get',
        id: 'borealis-runbook',
      }),
    ) as { continuation: { token: string } }
    const over = await s.call('continuation.fetch', { token: minted.continuation.token })
    expect(toolResult(over).isError).toBe(true)
    expect(toolResult(over).content[0]!.text).toMatch(/^ERR_JSON_TOO_LARGE/)
    expect(Buffer.byteLength(over.text)).toBeLessThan(1024)
    const under = await s.call('knowledge.get', { projectId: 'atlas', documentId: 'atlas-limits' })
    expect(toolResult(under).isError).toBeUndefined()
  })

  it('serves the same result under the default 64 MiB budget', async () => {
    const s = await RawSession.open(server.url('/mcp'), ALICE)
    const minted = resultJson(
      await s.call('knowledge', {
        projectId: 'borealis',
        resource: 'documents',
        action: 'get',
        id: 'borealis-runbook',
      }),
    ) as { continuation: { token: string } }
    const res = await s.call('continuation.fetch', { token: minted.continuation.token })
    expect((resultJson(res) as { id: string }).id).toBe('borealis-runbook')
  })
})
