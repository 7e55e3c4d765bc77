// Admission on the live server: the Streamable HTTP body cap, the stdio line cap and the result
// budget, each driven through the real process by a raw client.

import { eventually } from '@tollgate/test-kit/eventually'
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

// The audit line of a replaced runbook under the 70,000-byte budget: the route's configured name
// (`full`, served at /mcp and on stdio) and alice's credential, the limit of the result object.
const RESULT_REFUSED = {
  event: 'result_refused',
  layer: 'result_budget',
  code: 'ERR_JSON_TOO_LARGE',
  control: 'mcp-result-budget',
  limit: 70_000 - 1024,
  route: 'full',
  credential: 'alice',
}
// A phrase of the borealis runbook's body (what the replaced result held), which must never
// reach an audit line.
const RUNBOOK_TEXT = 'Borealis indexing, section'

/** Mints a continuation for the borealis runbook (over the continuation threshold). */
async function runbookToken(s: RawSession): Promise<string> {
  const minted = resultJson(
    await s.call('knowledge', {
      projectId: 'borealis',
      resource: 'documents',
      action: 'get',
      id: 'borealis-runbook',
    }),
  ) as { continuation: { token: string } }
  return minted.continuation.token
}

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

  it('audits a replaced result once as result_refused with its route and credential, never the result', async () => {
    const s = await RawSession.open(budgeted.url('/mcp'), ALICE)
    const token = await runbookToken(s)
    // The server is shared with the test above, which has its own replaced result.
    const before = budgeted.audit.named('result_refused').length
    const over = await s.call('continuation.fetch', { token })
    expect(toolResult(over).isError).toBe(true)
    const lines = () => budgeted.audit.named('result_refused').slice(before)
    expect(await eventually(() => lines().length > 0, 30_000)).toBe(true)
    // One call, one line: audit lines are written in order, so once a later session's line is
    // in, any second line for this result would be too.
    const opened = budgeted.audit.named('session_opened').length
    await RawSession.open(budgeted.url('/mcp'), ALICE)
    expect(
      await eventually(() => budgeted.audit.named('session_opened').length > opened, 30_000),
    ).toBe(true)
    expect(lines()).toHaveLength(1)
    expect(lines()[0]).toMatchObject(RESULT_REFUSED)
    // The document's own text (what the result held) is nowhere in the audit.
    expect(budgeted.audit.raw.some((l) => l.includes(RUNBOOK_TEXT))).toBe(false)
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

describe('resultBudget on the reference server over stdio', () => {
  it('replaces a result over the budget and audits it once with the route and the stdio credential', async () => {
    const stdio = new RawStdio(['--max-result-bytes', '70000'])
    try {
      await stdio.initialize()
      const call = (id: number, name: string, args: object) =>
        stdio.request({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name, arguments: args },
        })
      const minted = JSON.parse(
        JSON.parse(
          await call(1, 'knowledge', {
            projectId: 'borealis',
            resource: 'documents',
            action: 'get',
            id: 'borealis-runbook',
          }),
        ).result.content[0].text,
      ) as { continuation: { token: string } }
      const over = JSON.parse(
        await call(2, 'continuation.fetch', { token: minted.continuation.token }),
      )
      expect(over.result.isError).toBe(true)
      expect(over.result.content[0].text).toMatch(/^ERR_JSON_TOO_LARGE/)
      const line = await stdio.audit.waitFor((e) => e.event === 'result_refused')
      expect(line).toMatchObject(RESULT_REFUSED)
      expect(stdio.audit.named('result_refused')).toHaveLength(1)
      expect(stdio.audit.raw.some((l) => l.includes(RUNBOOK_TEXT))).toBe(false)
    } finally {
      await stdio.stop()
    }
  })
})
