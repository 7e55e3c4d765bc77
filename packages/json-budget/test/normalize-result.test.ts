import { readFileSync } from 'node:fs'
import { refusal } from '@tollgate/test-kit/refusal'
import { describe, expect, it } from 'vitest'
import { NORMALIZE_RESULT_OPTIONS, normalizeResult } from '../src/index.js'

describe('normalizeResult', () => {
  it('admits plain JSON and returns the same value with its charge', () => {
    const value = { a: [1, 'x', true, null, { b: 2.5 }] }
    const out = normalizeResult(value, { profile: 'mcp' })
    expect(out.value).toBe(value)
    expect(out.bytes).toBe(Buffer.byteLength(JSON.stringify(value)))
    expect(out.nodes).toBe(10)
    expect(out.depth).toBe(3)
  })

  it('lowers a Set to an array in the rest profile without touching the input', () => {
    const tags = new Set(['a', 'b'])
    const value = { tags, nested: [{ more: new Set([1]) }], skip: undefined }
    const out = normalizeResult(value, { profile: 'rest' })
    expect(out.value).toEqual({ tags: ['a', 'b'], nested: [{ more: [1] }] })
    expect(Object.hasOwn(out.value as object, 'skip')).toBe(false)
    expect(value.tags).toBe(tags)
    expect(out.bytes).toBe(Buffer.byteLength(JSON.stringify(out.value)))
  })

  it('refuses a Set in the mcp profile with ERR_JSON_UNSUPPORTED_VALUE', () => {
    const error = refusal(() => normalizeResult({ s: new Set([1]) }, { profile: 'mcp' }))
    expect(error.code).toBe('ERR_JSON_UNSUPPORTED_VALUE')
    expect(error.path).toBe('/s')
    expect(error.status).toBe(500)
  })

  it('refuses every non-JSON value with a JSON Pointer to the first offender', () => {
    class Instance {
      v = 1
    }
    const offenders: [string, unknown][] = [
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['-Infinity', Number.NEGATIVE_INFINITY],
      ['BigInt', 1n],
      ['function', () => 0],
      ['symbol', Symbol('x')],
      ['Map', new Map([[1, 2]])],
      ['Date', new Date(0)],
      ['typed array', new Float64Array(1)],
      ['Buffer', Buffer.alloc(1)],
      ['promise', Promise.resolve()],
      ['error', new Error('boom')],
      ['class instance', new Instance()],
      ['toJSON', { toJSON: () => 'x' }],
    ]
    for (const profile of ['rest', 'mcp'] as const) {
      for (const [, offender] of offenders) {
        const error = refusal(() =>
          normalizeResult({ ok: 1, list: [0, { bad: offender }] }, { profile }),
        )
        expect(error.code).toBe('ERR_JSON_UNSUPPORTED_VALUE')
        expect(error.path).toBe('/list/1/bad')
      }
    }
  })

  it('refuses undefined in an array', () => {
    const error = refusal(() => normalizeResult([1, undefined], { profile: 'rest' }))
    expect(error.code).toBe('ERR_JSON_UNSUPPORTED_VALUE')
    expect(error.path).toBe('/1')
  })

  it('refuses symbol keys', () => {
    const error = refusal(() => normalizeResult({ a: { [Symbol('k')]: 1 } }, { profile: 'mcp' }))
    expect(error.code).toBe('ERR_JSON_UNSUPPORTED_VALUE')
    expect(error.path).toBe('/a')
  })

  it('refuses a cycle as ERR_JSON_TOO_DEEP', () => {
    const loop: Record<string, unknown> = {}
    loop.self = loop
    expect(refusal(() => normalizeResult(loop, { profile: 'rest' })).code).toBe('ERR_JSON_TOO_DEEP')
  })

  it('applies the graph limits it is given at N and N+1', () => {
    expect(normalizeResult([1, 2], { profile: 'mcp', maxNodes: 3 }).nodes).toBe(3)
    const error = refusal(() => normalizeResult([1, 2, 3], { profile: 'mcp', maxNodes: 3 }))
    expect(error.code).toBe('ERR_JSON_TOO_MANY_NODES')
    expect(error.limit).toBe(3)
  })

  it('rejects an unknown profile with a TypeError', () => {
    expect(() => normalizeResult(1, { profile: 'xml' as 'rest' })).toThrow(TypeError)
    expect(() => normalizeResult(1, { profile: 'constructor' as 'rest' })).toThrow(TypeError)
    expect(() => normalizeResult(1, {} as never)).toThrow(TypeError)
    expect(() => normalizeResult(1, undefined as never)).toThrow(TypeError)
  })

  it('refuses an unknown option, the nested limits of earlier versions among them', () => {
    const nested = { profile: 'mcp', limits: { maxNodes: 1 } } as never
    expect(() => normalizeResult([1, 2, 3], nested)).toThrow(/unknown option limits/)
  })

  it('names the function, the profile or the option in its TypeError', () => {
    const messageOf = (fn: () => unknown): string => {
      try {
        fn()
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError)
        return (error as Error).message
      }
      throw new Error('expected a TypeError')
    }
    const missing = "normalizeResult: profile must be 'rest' or 'mcp'"
    expect(messageOf(() => normalizeResult(1, {} as never))).toBe(missing)
    expect(messageOf(() => normalizeResult(1, undefined as never))).toBe(missing)
    expect(messageOf(() => normalizeResult(1, { profile: 'constructor' as 'rest' }))).toBe(
      'profile must be one of "rest", "mcp"',
    )
    expect(messageOf(() => normalizeResult(1, 'rest' as never))).toBe(
      'normalizeResult: options must be an object',
    )
    expect(messageOf(() => normalizeResult(1, { profile: 'rest', limits: {} } as never))).toBe(
      'normalizeResult: unknown option limits',
    )
    expect(messageOf(() => normalizeResult(1, { profile: 'rest', maxBytes: 0 }))).toBe(
      'maxBytes must be a positive safe integer, got 0',
    )
  })

  it('takes maxDepth 0 (a scalar only) and applies maxDepth and maxBytes at N and N+1', () => {
    expect(normalizeResult('x', { profile: 'rest', maxDepth: 0 }).depth).toBe(0)
    expect(refusal(() => normalizeResult([], { profile: 'rest', maxDepth: 0 }))).toMatchObject({
      code: 'ERR_JSON_TOO_DEEP',
      limit: 0,
    })
    expect(normalizeResult([1], { profile: 'mcp', maxBytes: 3 }).bytes).toBe(3)
    expect(refusal(() => normalizeResult([10], { profile: 'mcp', maxBytes: 3 }))).toMatchObject({
      code: 'ERR_JSON_TOO_LARGE',
      limit: 3,
    })
  })

  it('lowers a Set at exactly maxNodes on the ordered walk a polluted Object.prototype forces', () => {
    // An enumerable property on Object.prototype makes the unordered walk give up, so this
    // value is admitted (or refused) by the ordered walk alone, which must count the Set by its
    // size at N and N+1 and report that it saw one, so the copy lowers it.
    const proto = Object.prototype as Record<string, unknown>
    try {
      proto.polluted = 1
      const out = normalizeResult({ s: new Set([1, 2]) }, { profile: 'rest', maxNodes: 5 })
      expect(out.value).toStrictEqual({ s: [1, 2] })
      expect(out.nodes).toBe(5)
      expect(
        refusal(() => normalizeResult({ s: new Set([1, 2]) }, { profile: 'rest', maxNodes: 4 })),
      ).toMatchObject({ code: 'ERR_JSON_TOO_MANY_NODES', limit: 4, observed: 5, path: '/s' })
    } finally {
      delete proto.polluted
    }
  })

  it('refuses symbol keys in the rest profile too', () => {
    const error = refusal(() =>
      normalizeResult({ s: new Set([1]), a: { [Symbol('k')]: 1 } }, { profile: 'rest' }),
    )
    expect(error.code).toBe('ERR_JSON_UNSUPPORTED_VALUE')
    expect(error.path).toBe('/a')
  })
})

describe('NORMALIZE_RESULT_OPTIONS', () => {
  it('is the table docs/json-budget.md shows, generated from the declaration', () => {
    const reference = readFileSync(new URL('../../../docs/json-budget.md', import.meta.url), 'utf8')
    expect(reference).toContain(NORMALIZE_RESULT_OPTIONS.markdown())
  })

  it('takes the JSON limits with their defaults, and requires the profile', () => {
    expect(NORMALIZE_RESULT_OPTIONS.names).toEqual(['profile', 'maxNodes', 'maxDepth', 'maxBytes'])
    expect(NORMALIZE_RESULT_OPTIONS.defaults).toEqual({
      profile: undefined,
      maxNodes: 100_000,
      maxDepth: 64,
      maxBytes: 64 * 1024 * 1024,
    })
  })
})
