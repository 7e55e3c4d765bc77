// A user's SDK 2.4 server (`createMcpHandler`) behind every tollgate control that applies to it
// (the guarded fixture), spoken to on both eras with raw JSON-RPC POSTs on a real http.Server on
// 127.0.0.1: a 2025 request (no initialize: the stateless fallback) and a 2026-07-28 request
// (`_meta` envelope, mirrored headers) are each served, and each control refuses on each era;
// the bare fixture, the same SDK server without the controls, is the control of every refusal.
import { httpPost, rawPost } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bareFixtureHandler, type RouteHandler } from '../src/bare.js'
import { guardedFixtureHandler } from '../src/guarded.js'

const SIMPLE = 'This is a simple text response for testing.'
const MARKER = 'caller-value-3b9d'

type Era = '2025' | '2026'
const ERAS: readonly Era[] = ['2025', '2026']

/** The body and headers of a `tools/call` of `name` on `era`. */
function toolCall(era: Era, name: string, args: Record<string, unknown> = {}) {
  const params: Record<string, unknown> = { name, arguments: args }
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  }
  if (era === '2026') {
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    }
    Object.assign(headers, {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    })
  }
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }))
  return { headers, body }
}

interface Answer {
  readonly status: number
  readonly message: {
    result?: { isError?: boolean; content?: { text?: string }[] }
    error?: { code: number; message: string; data?: unknown }
  }
  readonly raw: string
}

async function call(port: number, era: Era, name: string, args?: Record<string, unknown>) {
  const { headers, body } = toolCall(era, name, args)
  const res = await httpPost(port, '/mcp', body, headers)
  const data = /^data: (.*)$/m.exec(res.body)?.[1] ?? res.body
  return { status: res.status, message: JSON.parse(data), raw: res.body } as Answer
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

describe('guardedFixtureHandler on both eras', () => {
  it('serves a 2025 call and a 2026-07-28 call as the bare fixture does', async () => {
    for (const era of ERAS) {
      const answer = await call(guarded.port, era, 'test_simple_text')
      expect(answer.status, era).toBe(200)
      expect(answer.message.result?.content?.[0]?.text, era).toBe(SIMPLE)
    }
  })

  it('refuses an argument key the published schema does not name on each era; the tool does not run', async () => {
    for (const era of ERAS) {
      const answer = await call(guarded.port, era, 'test_simple_text', { injected: MARKER })
      expect(answer.message.result?.isError, era).toBe(true)
      expect(answer.raw, era).not.toContain(SIMPLE)
      expect(answer.raw, era).not.toContain(MARKER)
      // The control: the same SDK server without the controls strips the key and runs the tool.
      const control = await call(bare.port, era, 'test_simple_text', { injected: MARKER })
      expect(control.message.result?.content?.[0]?.text, era).toBe(SIMPLE)
    }
  })

  it('refuses a tool that exists nowhere with -32602 on each era, never quoting its name', async () => {
    for (const era of ERAS) {
      const answer = await call(guarded.port, era, MARKER)
      expect(answer.message.error?.code, era).toBe(-32602)
      expect(answer.raw, era).not.toContain(MARKER)
      // The control: the SDK alone quotes the name it was sent.
      const control = await call(bare.port, era, MARKER)
      expect(control.raw, era).toContain(MARKER)
    }
  })

  it('refuses a 2026-07-28 call of an unknown tool from its head, before the body is read', async () => {
    const { headers, body } = toolCall('2026', MARKER, { pad: 'x'.repeat(8 * 1024 * 1024) })
    const refused = await rawPost(guarded.port, headers, body)
    expect(refused.status).toBe(400)
    expect(JSON.parse(refused.body).error.code).toBe(-32602)
    expect(refused.sent).toBeLessThan(body.byteLength)
  })

  it('refuses a body over 4 MiB with 413 ERR_BODY_TOO_LARGE on each era before reading it all', async () => {
    for (const era of ERAS) {
      const { headers, body } = toolCall(era, 'test_sampling', { prompt: 'x'.repeat(8 << 20) })
      const res = await rawPost(guarded.port, headers, body)
      expect(res.status, era).toBe(413)
      expect(JSON.parse(res.body).error.data, era).toMatchObject({
        code: 'ERR_BODY_TOO_LARGE',
        limit: 4 * 1024 * 1024,
      })
      expect(res.sent, era).toBeLessThan(body.byteLength)
    }
  })
})
