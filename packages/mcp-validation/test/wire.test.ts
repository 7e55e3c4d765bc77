// withInputValidation through the production paths: the SDK's in-memory transport, a real
// http.Server on 127.0.0.1 (Streamable HTTP), and a real stdio child process. Every client here
// is raw JSON-RPC that ignores the published schemas. Refusal tests assert the handler did not
// run (the sentinel `calls` stays empty of it); the controls remove the decorator and show the
// same call then gets through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_REFUSAL_BYTES, UNKNOWN_TOOL_ERROR } from '../src/index.js'
import {
  httpSession,
  inMemorySession,
  type Json,
  type RawSession,
  stdioSession,
  toolCall,
} from './helpers/raw-clients.js'

const MARKER = 'MARKER-c0ffee-7f3a'
const VALID = { projectId: 'acme', query: 'roadmap', filters: { tag: 'q3' } }

/** `{}` nested `levels` times inside `items`: the arguments' depth is `levels + 2`. */
function nested(levels: number): unknown {
  let value: unknown = []
  for (let i = 0; i < levels; i++) value = [value]
  return value
}

function resultOf(response: Json): Json {
  return response.result as Json
}

function textOf(response: Json): string {
  return ((resultOf(response).content as Json[])[0] as Json).text as string
}

function refusalBytes(response: Json): number {
  const member = 'error' in response ? response.error : response.result
  return Buffer.byteLength(JSON.stringify(member))
}

type Opener = [string, (decorated?: boolean) => Promise<RawSession>]
const stdio: Opener[] = [['stdio', stdioSession]]
const transports: Opener[] = [
  ['in-memory', inMemorySession],
  ['Streamable HTTP', httpSession],
  // The mutation run (stryker.vitest.config.mjs) leaves the stdio children out; see there.
  ...(process.env.TOLLGATE_MUTATION === '1' ? [] : stdio),
]

// One decorated and one undecorated session per transport, shared by the tests (a stdio
// child costs seconds to start); each test reads only the handler calls made since it began.
describe.each(transports)('withInputValidation over %s', (_name, open) => {
  let on: RawSession
  let off: RawSession
  beforeAll(async () => {
    ;[on, off] = await Promise.all([open(true), open(false)])
  })
  afterAll(async () => {
    await Promise.all([on?.close(), off?.close()])
  })
  const since = (s: RawSession) => {
    const mark = s.calls.length
    return {
      request: (m: Json | Json[]) => s.request(m),
      get calls() {
        return s.calls.slice(mark)
      },
    }
  }

  it('refuses an unknown top-level key and the handler does not run', async () => {
    const session = since(on)
    const { parsed } = await session.request(
      toolCall(1, 'notes.search', { ...VALID, dryRun: true }),
    )
    const response = parsed[0] as Json
    expect(resultOf(response).isError).toBe(true)
    expect(textOf(response)).toBe(
      'Invalid arguments for tool notes.search: /dryRun fails unevaluatedProperties false',
    )
    expect(session.calls).toEqual([])
  })

  it('refuses an unknown nested key and the handler does not run', async () => {
    const session = since(on)
    const args = { ...VALID, filters: { tag: 'q3', owner: 'me' } }
    const { parsed } = await session.request(toolCall(1, 'notes.search', args))
    expect(textOf(parsed[0] as Json)).toBe(
      'Invalid arguments for tool notes.search: /filters/owner fails additionalProperties false',
    )
    expect(session.calls).toEqual([])
  })

  it('serves the same call with the unknown key silently dropped when the decorator is removed', async () => {
    const session = since(off)
    const args = { ...VALID, dryRun: true, filters: { tag: 'q3', owner: 'me' } }
    const { parsed } = await session.request(toolCall(1, 'notes.search', args))
    expect(resultOf(parsed[0] as Json).isError).toBeUndefined()
    // The handler ran and never saw either key: the SDK dropped them without a word.
    expect(session.calls).toEqual([{ tool: 'notes.search', args: VALID }])
  })

  it('serves a valid call unchanged, byte for byte as the undecorated server does', async () => {
    const session = since(on)
    const decorated = await session.request(toolCall(7, 'notes.search', VALID))
    expect(session.calls).toEqual([{ tool: 'notes.search', args: VALID }])
    const plain = await since(off).request(toolCall(7, 'notes.search', VALID))
    expect(decorated.raw).toEqual(plain.raw)
  })

  it('serves a tool without arguments when arguments are missing and refuses any argument', async () => {
    const session = since(on)
    const { parsed } = await session.request([
      toolCall(1, 'system.ping'),
      toolCall(2, 'system.ping', { x: 1 }),
    ])
    expect(resultOf(parsed[0] as Json).isError).toBeUndefined()
    expect(textOf(parsed[1] as Json)).toBe(
      'Invalid arguments for tool system.ping: /x fails additionalProperties false',
    )
    expect(session.calls).toEqual([{ tool: 'system.ping', args: {} }])
  })

  it('refuses a tool registered without a schema while an ordinary tool on the same server is served', async () => {
    const session = since(on)
    const refused = await session.request(toolCall(1, 'notes.unpublished', { q: 'x' }))
    expect(refused.parsed[0]).toEqual({ jsonrpc: '2.0', id: 1, error: UNKNOWN_TOOL_ERROR })
    const served = await session.request(toolCall(2, 'notes.search', VALID))
    expect(resultOf(served.parsed[0] as Json).isError).toBeUndefined()
    expect(session.calls.map((c) => c.tool)).toEqual(['notes.search'])
  })

  it('serves the unpublished tool when the decorator is removed', async () => {
    const session = since(off)
    await session.request(toolCall(1, 'notes.unpublished', { q: 'x' }))
    expect(session.calls).toEqual([{ tool: 'notes.unpublished', args: { q: 'x' } }])
  })

  it('answers an unpublished tool and a tool that exists nowhere with byte-identical refusals', async () => {
    const session = since(on)
    const a = await session.request(toolCall(3, 'notes.unpublished', { q: 'x' }))
    const b = await session.request(toolCall(3, 'no.such.tool', { q: 'x' }))
    expect(a.raw[0]).toBe(b.raw[0])
    expect((a.parsed[0] as Json).error).toEqual({ code: -32602, message: 'Unknown tool' })
  })

  it('gives short refusals for a 10,000-character key and tool name', async () => {
    const session = since(on)
    const key = 'k'.repeat(10_000)
    const byKey = await session.request(toolCall(1, 'notes.search', { ...VALID, [key]: 1 }))
    expect(textOf(byKey.parsed[0] as Json)).toBe(
      'Invalid arguments for tool notes.search: /<10000 chars> fails unevaluatedProperties false',
    )
    const byName = await session.request(toolCall(2, 't'.repeat(10_000), VALID))
    expect((byName.parsed[0] as Json).error).toEqual(UNKNOWN_TOOL_ERROR)
    for (const r of [byKey, byName]) {
      expect(refusalBytes(r.parsed[0] as Json)).toBeLessThanOrEqual(MAX_REFUSAL_BYTES)
    }
    expect(session.calls).toEqual([])
  })

  it('serves nesting at maxDepth 32 and refuses depth 33 with ERR_JSON_TOO_DEEP', async () => {
    const session = since(on)
    const { parsed } = await session.request([
      toolCall(1, 'notes.batch', { projectId: 'acme', items: nested(30) }),
      toolCall(2, 'notes.batch', { projectId: 'acme', items: nested(31) }),
    ])
    expect(resultOf(parsed[0] as Json).isError).toBeUndefined()
    expect(textOf(parsed[1] as Json)).toMatch(/ exceeds maxDepth 32 \(ERR_JSON_TOO_DEEP\)$/)
    expect(session.calls).toEqual([{ tool: 'notes.batch', args: { count: 1 } }])
  })

  it('serves 10,000 nodes and refuses 10,001 with ERR_JSON_TOO_MANY_NODES', async () => {
    const session = since(on)
    // {projectId, items: [...]} is 5 nodes before the elements.
    const { parsed } = await session.request([
      toolCall(1, 'notes.batch', { projectId: 'acme', items: new Array(9_995).fill(0) }),
      toolCall(2, 'notes.batch', { projectId: 'acme', items: new Array(9_996).fill(0) }),
    ])
    expect(resultOf(parsed[0] as Json).isError).toBeUndefined()
    expect(textOf(parsed[1] as Json)).toMatch(
      / exceeds maxNodes 10000 \(ERR_JSON_TOO_MANY_NODES\)$/,
    )
    expect(session.calls).toEqual([{ tool: 'notes.batch', args: { count: 9_995 } }])
  })

  it('refuses with the shape a handler refusal has', async () => {
    const session = since(on)
    const ours = await session.request(toolCall(1, 'notes.get', { projectId: 'acme', noteId: 'x' }))
    const theirs = await session.request(
      toolCall(2, 'notes.get', { projectId: 'acme', noteId: 'n-2' }),
    )
    const shape = (r: Json) => ({
      envelope: Object.keys(r).sort(),
      result: Object.keys(resultOf(r)).sort(),
      content: (resultOf(r).content as Json[]).map((c) => Object.keys(c).sort()),
      isError: resultOf(r).isError,
      type: ((resultOf(r).content as Json[])[0] as Json).type,
    })
    expect(shape(ours.parsed[0] as Json)).toEqual(shape(theirs.parsed[0] as Json))
    expect(textOf(ours.parsed[0] as Json)).toBe(
      'Invalid arguments for tool notes.get: /noteId fails pattern "^n-[0-9]{1,12}$"',
    )
    expect(session.calls.map((c) => c.tool)).toEqual(['notes.get'])
  })

  it('never echoes a marker value sent in the call', async () => {
    const session = since(on)
    const { raw } = await session.request([
      toolCall(1, 'notes.get', { projectId: 'acme', noteId: MARKER }),
      toolCall(2, 'notes.search', { ...VALID, query: MARKER.repeat(20) }),
      toolCall(3, 'notes.search', { ...VALID, limit: MARKER }),
      toolCall(4, 'notes.search', { ...VALID, mode: MARKER }),
      toolCall(5, 'notes.search', { ...VALID, projectId: MARKER }),
      toolCall(6, 'notes.search', { ...VALID, extra: MARKER }),
      toolCall(7, MARKER, { value: MARKER }),
    ])
    expect(raw).toHaveLength(7)
    for (const line of raw) expect(line).not.toContain(MARKER)
    expect(session.calls).toEqual([])
  })
})

describe('withInputValidation over Streamable HTTP batches', () => {
  it('refuses one call of a batch of two and serves the other', async () => {
    const session = await httpSession()
    try {
      const { parsed } = await session.request([
        toolCall(1, 'notes.search', { ...VALID, dryRun: true }),
        toolCall(2, 'notes.search', VALID),
      ])
      const byId = new Map(parsed.map((p) => [p.id, p]))
      expect(resultOf(byId.get(1) as Json).isError).toBe(true)
      expect(resultOf(byId.get(2) as Json).isError).toBeUndefined()
      expect(session.calls).toEqual([{ tool: 'notes.search', args: VALID }])
    } finally {
      await session.close()
    }
  })
})
