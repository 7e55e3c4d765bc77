// The route surface: withInputValidation's `surface` option, through a real http.Server on
// 127.0.0.1 (Streamable HTTP) and the SDK's in-memory pair, with raw JSON-RPC clients. The
// fixture server registers every tool (as a server with one process-wide registry would); the
// surface says which of them this route serves. The controls drop the option and show a caller
// then learns which tools exist elsewhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  checkToolCall,
  resolveInputValidationOptions,
  type SchemaRegistry,
  UNKNOWN_TOOL_ERROR,
} from '../src/index.js'
import {
  fixtureRegistry,
  httpSession,
  inMemorySession,
  type Json,
  type RawSession,
  toolCall,
} from './helpers/raw-clients.js'

// notes.get is published and registered, but not on this route.
const SURFACE = ['notes.search', 'system.ping', 'notes.unpublished']
const MOUNTED_ELSEWHERE = 'notes.get'
const NOWHERE = 'ghost.get'
const GET_ARGS = { projectId: 'acme', noteId: 'n-1' }

describe('withInputValidation with a surface, over Streamable HTTP', () => {
  let routed: RawSession
  let global: RawSession
  beforeAll(async () => {
    ;[routed, global] = await Promise.all([
      httpSession(true, { surface: SURFACE }),
      httpSession(true),
    ])
  })
  afterAll(async () => {
    await Promise.all([routed?.close(), global?.close()])
  })

  const raw = async (s: RawSession, name: string, args?: unknown) =>
    (await s.request(toolCall(7, name, args))).raw[0] as string

  it('answers a tool mounted elsewhere and a tool that exists nowhere with byte-identical refusals, with and without extra keys', async () => {
    const mark = routed.calls.length
    const answers = [
      await raw(routed, MOUNTED_ELSEWHERE, GET_ARGS),
      await raw(routed, NOWHERE, GET_ARGS),
      await raw(routed, MOUNTED_ELSEWHERE, { ...GET_ARGS, bogus: 1 }),
      await raw(routed, NOWHERE, { ...GET_ARGS, bogus: 1 }),
      await raw(routed, MOUNTED_ELSEWHERE),
      await raw(routed, NOWHERE),
    ]
    const expected = JSON.stringify({ jsonrpc: '2.0', id: 7, error: UNKNOWN_TOOL_ERROR })
    for (const answer of answers) expect(answer).toBe(expected)
    expect(routed.calls.slice(mark)).toEqual([])
  })

  it('tells a tool mounted elsewhere from one that exists nowhere when the surface is removed', async () => {
    const mark = global.calls.length
    const elsewhere = JSON.parse(await raw(global, MOUNTED_ELSEWHERE, { ...GET_ARGS, bogus: 1 }))
    const nowhere = JSON.parse(await raw(global, NOWHERE, { ...GET_ARGS, bogus: 1 }))
    expect(nowhere.error).toEqual(UNKNOWN_TOOL_ERROR)
    // The oracle: a schema verdict on a tool this route should not know about.
    expect(elsewhere.result.content[0].text).toBe(
      'Invalid arguments for tool notes.get: /bogus fails unevaluatedProperties false',
    )
    expect((await raw(global, MOUNTED_ELSEWHERE, GET_ARGS)).includes('"error"')).toBe(false)
    expect(global.calls.slice(mark).map((c) => c.tool)).toEqual(['notes.get'])
  })

  it('serves a tool on the surface unchanged', async () => {
    const mark = routed.calls.length
    const args = { projectId: 'acme', query: 'roadmap' }
    expect(await raw(routed, 'notes.search', args)).toBe(await raw(global, 'notes.search', args))
    expect(routed.calls.slice(mark).map((c) => c.tool)).toEqual(['notes.search'])
  })

  it('refuses a surface name without a published schema as unknown (fail closed)', async () => {
    const mark = routed.calls.length
    expect(await raw(routed, 'notes.unpublished', { q: 'x' })).toBe(await raw(routed, NOWHERE))
    expect(routed.calls.slice(mark)).toEqual([])
  })

  it('lists only the published tools on the surface', async () => {
    const { parsed } = await routed.request({ jsonrpc: '2.0', id: 9, method: 'tools/list' })
    const tools = ((parsed[0] as Json).result as { tools: Json[] }).tools
    expect(tools.map((t) => t.name)).toEqual(['notes.search', 'system.ping'])
    const all = await global.request({ jsonrpc: '2.0', id: 9, method: 'tools/list' })
    const names = ((all.parsed[0] as Json).result as { tools: Json[] }).tools.map((t) => t.name)
    expect(names).toContain(MOUNTED_ELSEWHERE)
  })
})

describe('checkToolCall with a surface', () => {
  it('consults the registry for nothing when the name is off the surface', () => {
    const real = fixtureRegistry()
    const touched: string[] = []
    // The registry is frozen, so a counting wrapper stands in for it rather than a Proxy.
    const count =
      <A extends unknown[], R>(key: string, f: (...a: A) => R) =>
      (...a: A): R => {
        touched.push(key)
        return f(...a)
      }
    const counting: SchemaRegistry = {
      tools: real.tools,
      has: count('has', real.has),
      validate: count('validate', real.validate),
      schema: count('schema', real.schema),
      bundled: count('bundled', real.bundled),
      source: count('source', real.source),
    }
    const options = resolveInputValidationOptions({ surface: SURFACE })
    for (const name of [MOUNTED_ELSEWHERE, NOWHERE]) {
      const verdict = checkToolCall(counting, { name, arguments: { bogus: 1 } }, options)
      expect(verdict).toEqual({
        ok: false,
        error: { code: 'ERR_TOOL_UNKNOWN', reason: 'off_surface', nameLength: name.length },
      })
    }
    expect(touched).toEqual([])
    checkToolCall(counting, { name: 'notes.search', arguments: {} }, options)
    expect(touched).toEqual(['has', 'validate'])
  })
})

describe('resolveInputValidationOptions surface', () => {
  it('takes a Set or an array and refuses a string or a non-string entry with a TypeError', () => {
    expect([...(resolveInputValidationOptions({ surface: new Set(['a']) }).surface ?? [])]).toEqual(
      ['a'],
    )
    expect(resolveInputValidationOptions({ surface: ['a', 'a'] }).surface?.size).toBe(1)
    expect(resolveInputValidationOptions({}).surface).toBeUndefined()
    expect(() => resolveInputValidationOptions({ surface: 'notes.get' as never })).toThrow(
      TypeError,
    )
    expect(() => resolveInputValidationOptions({ surface: [3] as never })).toThrow(/surface/)
    expect(() => resolveInputValidationOptions({ surface: {} as never })).toThrow(/surface/)
  })

  it('keeps its own copy: a later change to the caller’s set does not widen the route', async () => {
    const names = new Set(['system.ping'])
    const session = await inMemorySession(true, { surface: names })
    try {
      names.add(MOUNTED_ELSEWHERE)
      const { parsed } = await session.request(toolCall(3, MOUNTED_ELSEWHERE, GET_ARGS))
      expect((parsed[0] as Json).error).toEqual(UNKNOWN_TOOL_ERROR)
      expect(session.calls).toEqual([])
    } finally {
      await session.close()
    }
  })
})
