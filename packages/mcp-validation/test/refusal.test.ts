import { fc, test } from '@fast-check/vitest'
import { JSON_BUDGET_CODES, type JsonBudgetCode } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import {
  boundedName,
  boundedPointer,
  checkToolCall,
  MAX_LIMIT_BYTES,
  MAX_POINTER_BYTES,
  MAX_REFUSAL_BYTES,
  renderArgumentsRefusal,
  resolveInputValidationOptions,
  UNKNOWN_TOOL_ERROR,
} from '../src/index.js'
import { fixtureRegistry } from './helpers/raw-clients.js'

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value))
const inJson = (text: string) => bytes(text) - 2

describe('renderArgumentsRefusal', () => {
  it('fits MAX_REFUSAL_BYTES with every fragment at its cap, for both kinds', () => {
    // The worst case of each fragment: names of 64 characters that JSON-escape to two bytes
    // each, a pointer of such segments, and a limit just under its cap.
    const name = '"'.repeat(64)
    const pointer = boundedPointer(new Array(100).fill('\\'.repeat(64)))
    expect(inJson(pointer)).toBeLessThanOrEqual(MAX_POINTER_BYTES)
    const limit = `"${'\\'.repeat(Math.floor((MAX_LIMIT_BYTES - 4) / 2))}"`
    expect(inJson(limit)).toBeLessThanOrEqual(MAX_LIMIT_BYTES)
    const schema = renderArgumentsRefusal(name, { kind: 'schema', keyword: name, limit, pointer })
    expect(bytes(schema)).toBeLessThanOrEqual(MAX_REFUSAL_BYTES)
    for (const code of Object.keys(JSON_BUDGET_CODES) as JsonBudgetCode[]) {
      const bounds = renderArgumentsRefusal(name, {
        kind: 'bounds',
        code,
        option: 'maxNodes',
        limit: Number.MAX_SAFE_INTEGER,
        pointer,
      })
      expect(bytes(bounds)).toBeLessThanOrEqual(MAX_REFUSAL_BYTES)
    }
  })

  it('has the shape a handler refusal has', () => {
    const result = renderArgumentsRefusal('t', {
      kind: 'schema',
      keyword: 'maxLength',
      limit: '200',
      pointer: '/q',
    })
    expect(result).toEqual({
      content: [{ type: 'text', text: 'Invalid arguments for tool t: /q fails maxLength 200' }],
      isError: true,
    })
  })

  it('reports a non-JSON value and a root pointer without a value', () => {
    const result = renderArgumentsRefusal('t', {
      kind: 'bounds',
      code: 'ERR_JSON_UNSUPPORTED_VALUE',
      option: undefined,
      limit: undefined,
      pointer: '',
    })
    expect(result.content[0].text).toBe(
      'Invalid arguments for tool t: (root) is not plain JSON (ERR_JSON_UNSUPPORTED_VALUE)',
    )
  })
})

describe('boundedName', () => {
  it('keeps 64 printable characters and reports 65 or a control character by length', () => {
    expect(boundedName('a'.repeat(64))).toBe('a'.repeat(64))
    expect(boundedName('a'.repeat(65))).toBe('<65 chars>')
    expect(boundedName('a\u0000b')).toBe('<3 chars>')
    expect(boundedName('é')).toBe('<1 chars>')
  })
})

describe('boundedPointer', () => {
  it('renders keys through formatPointerSegment and cuts at MAX_POINTER_BYTES with /…', () => {
    expect(boundedPointer(['a/b', '~', 3])).toBe('/a~1b/~0/3')
    expect(boundedPointer(['k'.repeat(10_000), 'x\ny'])).toBe('/<10000 chars>/<3 chars>')
    const long = boundedPointer(new Array(50).fill('s'.repeat(60)))
    expect(long.endsWith('/…')).toBe(true)
    expect(inJson(long)).toBeLessThanOrEqual(MAX_POINTER_BYTES)
  })
})

describe('checkToolCall', () => {
  const registry = fixtureRegistry()
  const options = resolveInputValidationOptions()
  const MARKER = 'MARKER-9e1d'

  // Any arguments at all, with keys and values that may carry the marker, long keys and
  // control characters: a refusal is at most 1 KiB and never holds a marker-bearing value.
  const key = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.constantFrom('query', 'limit', 'mode', 'filters', 'tag', 'projectId', 'k'.repeat(200)),
  )
  const value = fc.letrec((tie) => ({
    any: fc.oneof(
      { depthSize: 'small' },
      fc.constant(MARKER),
      fc.string({ maxLength: 20 }).map((s) => `${MARKER}${s}`),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('any'), { maxLength: 4 }),
      fc.dictionary(key, tie('any'), { maxKeys: 4 }),
    ),
  })).any
  const args = fc.dictionary(key, value, { maxKeys: 6 })
  const tool = fc.constantFrom('notes.search', 'notes.get', 'notes.batch', 'system.ping')

  test.prop([tool, args], { numRuns: 400 })(
    'refuses in at most MAX_REFUSAL_BYTES and never echoes a value',
    (name, a) => {
      const verdict = checkToolCall(registry, { name, arguments: a }, options)
      if (verdict.ok || verdict.error.code === 'ERR_TOOL_UNKNOWN') return
      const result = renderArgumentsRefusal(verdict.error.tool, verdict.error.refusal)
      expect(bytes(result)).toBeLessThanOrEqual(MAX_REFUSAL_BYTES)
      // A key may be named (bounded); a value never is: strip the keys and look for the marker.
      const keys = new Set<string>()
      JSON.stringify(a, (k, v) => {
        keys.add(k)
        return v
      })
      let text = result.content[0].text
      for (const k of keys) if (k.length > 0) text = text.split(k).join('')
      expect(text).not.toContain(MARKER)
    },
  )

  it('answers an unknown tool, a non-string name and missing params with unknown-tool', () => {
    for (const params of [
      { name: 'nope' },
      { name: 3 },
      {},
      undefined,
      null,
      { name: '__proto__' },
    ]) {
      expect(checkToolCall(registry, params, options)).toMatchObject({
        ok: false,
        error: { code: 'ERR_TOOL_UNKNOWN' },
      })
    }
    expect(UNKNOWN_TOOL_ERROR).toEqual({ code: -32602, message: 'Unknown tool' })
  })

  it('validates missing arguments as {}', () => {
    expect(checkToolCall(registry, { name: 'system.ping' }, options)).toEqual({
      ok: true,
      tool: 'system.ping',
    })
    const verdict = checkToolCall(registry, { name: 'notes.get' }, options)
    expect(verdict).toMatchObject({ ok: false, error: { refusal: { keyword: 'required' } } })
  })

  it.each([
    [{ projectId: 'a', query: 'x'.repeat(201) }, '/query', 'maxLength', '200'],
    [{ projectId: 'a', query: '' }, '/query', 'minLength', '1'],
    [{ projectId: 'a', query: 'x', limit: 51 }, '/limit', 'maximum', '50'],
    [{ projectId: 'a', query: 'x', limit: 1.5 }, '/limit', 'type', '"integer"'],
    [{ projectId: 'a', query: 'x', mode: 'slow' }, '/mode', 'enum', '["fast","full"]'],
    [{ projectId: 'A!', query: 'x' }, '/projectId', 'pattern', '"^[a-z0-9][a-z0-9-]{0,62}$"'],
    [{ projectId: 'a' }, '/query', 'required', undefined],
    [{ projectId: 'a', query: 'x', zz: 1 }, '/zz', 'unevaluatedProperties', 'false'],
  ])('refuses %j at %s with %s and the schema limit %s', (args, pointer, keyword, limit) => {
    const verdict = checkToolCall(registry, { name: 'notes.search', arguments: args }, options)
    expect(verdict).toEqual({
      ok: false,
      error: {
        code: 'ERR_TOOL_ARGUMENTS',
        tool: 'notes.search',
        refusal: { kind: 'schema', keyword, limit, pointer },
      },
    })
  })

  it('bounds before validating: depth, nodes and bytes at N are judged by the schema, at N+1 refused', () => {
    const tight = resolveInputValidationOptions({ maxDepth: 3, maxNodes: 8, maxBytes: 40 })
    const at = (items: unknown) =>
      checkToolCall(registry, { name: 'notes.batch', arguments: { projectId: 'a', items } }, tight)
    expect(at([[]])).toEqual({ ok: true, tool: 'notes.batch' }) // depth 3
    expect(at([[[]]])).toMatchObject({
      error: { refusal: { code: 'ERR_JSON_TOO_DEEP', limit: 3 } },
    })
    expect(at([1, 2, 3])).toEqual({ ok: true, tool: 'notes.batch' }) // 8 nodes
    expect(at([1, 2, 3, 4])).toMatchObject({
      error: { refusal: { code: 'ERR_JSON_TOO_MANY_NODES', limit: 8 } },
    })
    // {"projectId":"a","items":["…"]} is 30 bytes plus the string's length.
    expect(at(['x'.repeat(10)])).toEqual({ ok: true, tool: 'notes.batch' })
    expect(at(['x'.repeat(11)])).toMatchObject({
      error: { refusal: { code: 'ERR_JSON_TOO_LARGE', limit: 40 } },
    })
  })

  it('refuses arguments that are not plain JSON (in-memory callers) without validating them', () => {
    const verdict = checkToolCall(
      registry,
      { name: 'notes.batch', arguments: { projectId: 'a', items: [() => 1] } },
      options,
    )
    expect(verdict).toMatchObject({
      error: { refusal: { code: 'ERR_JSON_UNSUPPORTED_VALUE', option: undefined } },
    })
  })
})
