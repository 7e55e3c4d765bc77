// The fixture in both modes on a real http.Server on 127.0.0.1, spoken to with raw JSON-RPC
// POSTs (2025 era, no initialize: the stateless fallback serves each request alone).
import { readSchemaDirectory, toolNameForFile } from '@tollgate/mcp-validation'
import { httpPost, rawPost } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bareFixtureHandler, type RouteHandler } from '../src/bare.js'
import { FIXTURE_SCHEMAS, guardedFixtureHandler } from '../src/guarded.js'

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
}

interface Answer {
  readonly status: number
  readonly message: { result?: Record<string, unknown>; error?: { code: number; data?: unknown } }
}

/** One JSON-RPC request; the answer is a JSON body or the one `data:` line of an SSE body. */
async function call(port: number, method: string, params: unknown): Promise<Answer> {
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }))
  const res = await httpPost(port, '/mcp', body, HEADERS)
  const data = /^data: (.*)$/m.exec(res.body)?.[1] ?? res.body
  return { status: res.status, message: JSON.parse(data) }
}

const serve = (route: RouteHandler) =>
  listen((req, res) => {
    route(req, res).catch(() => res.destroy())
  })

let bare: Running
let guarded: Running
beforeAll(async () => {
  bare = await serve(bareFixtureHandler())
  guarded = await serve(guardedFixtureHandler())
})
afterAll(async () => {
  await Promise.all([bare?.close(), guarded?.close()])
})

const textOf = (answer: Answer) =>
  (answer.message.result?.content as { text?: string }[] | undefined)?.[0]?.text

describe('bareFixtureHandler', () => {
  it('registers exactly the tools that have a published schema in schemas/', async () => {
    const listed = await call(bare.port, 'tools/list', {})
    const tools = ((listed.message.result?.tools ?? []) as { name: string }[]).map((t) => t.name)
    const published = readSchemaDirectory(FIXTURE_SCHEMAS)
      .map((d) => toolNameForFile(d.file))
      .filter((name) => name !== undefined)
    expect(tools.length).toBeGreaterThan(20)
    expect([...tools].sort()).toEqual([...published].sort())
  })

  it('runs a tool called with an argument key its schema does not name (the SDK strips it)', async () => {
    const answer = await call(bare.port, 'tools/call', {
      name: 'test_simple_text',
      arguments: { injected: 'x' },
    })
    expect(answer.message.result?.isError).toBeUndefined()
    expect(textOf(answer)).toBe('This is a simple text response for testing.')
  })
})

describe('guardedFixtureHandler', () => {
  it('serves a well-formed call as the bare fixture does', async () => {
    const answer = await call(guarded.port, 'tools/call', { name: 'test_simple_text' })
    expect(answer.status).toBe(200)
    expect(textOf(answer)).toBe('This is a simple text response for testing.')
  })

  it('refuses an argument key the published schema does not name, and the tool does not run', async () => {
    const answer = await call(guarded.port, 'tools/call', {
      name: 'test_simple_text',
      arguments: { injected: 'caller-value' },
    })
    expect(answer.message.result?.isError).toBe(true)
    expect(textOf(answer)).toContain('additionalProperties')
    expect(textOf(answer)).not.toContain('simple text response')
    expect(textOf(answer)).not.toContain('caller-value')
  })

  it('refuses a body over 4 MiB with 413 ERR_BODY_TOO_LARGE before reading it all', async () => {
    const params = { name: 'test_sampling', arguments: { prompt: 'x'.repeat(8 * 1024 * 1024) } }
    const body = Buffer.from(
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }),
    )
    const res = await rawPost(guarded.port, HEADERS, body)
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body).error.data).toMatchObject({
      code: 'ERR_BODY_TOO_LARGE',
      limit: 4 * 1024 * 1024,
    })
    expect(res.sent).toBeLessThan(body.byteLength)
  })
})
