// Every place the walk can refuse, with the details a caller branches on: code, limit, what was
// observed and the bounded JSON Pointer path. Written for the survivors of the Stryker run
// recorded in jobs/mutation/records/json-budget.md (mutants that changed a detail but not the code).

import { refusal } from '@tollgate/test-kit/refusal'
import { describe, expect, it } from 'vitest'
import { chargeJson, normalizeResult } from '../src/index.js'

const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v))

/**
 * A refusal's observed size is past the limit and never more than the true size; where a string
 * was refused without reading it, it is the bytes so far plus that string's length and quotes.
 */
function expectTooLarge(value: unknown, maxBytes: number, path: string, observed: number) {
  const error = refusal(() => chargeJson(value, { maxBytes }))
  expect(error.code).toBe('ERR_JSON_TOO_LARGE')
  expect(error.limit).toBe(maxBytes)
  expect(error.path).toBe(path)
  expect(error.observed).toBeGreaterThan(maxBytes)
  expect(error.observed).toBeLessThanOrEqual(size(value))
  expect(error.observed).toBe(observed)
  return error
}

describe('chargeJson', () => {
  it('admits one node at maxNodes 1 and refuses maxNodes 0 with a TypeError', () => {
    expect(chargeJson(1, { maxNodes: 1 }).nodes).toBe(1)
    expect(() => chargeJson(1, { maxNodes: 0 })).toThrow(TypeError)
  })

  it('admits a root scalar of exactly maxBytes and refuses it one byte over, with its size', () => {
    expect(chargeJson(true, { maxBytes: 4 }).bytes).toBe(4)
    expect(chargeJson(false, { maxBytes: 5 }).bytes).toBe(5)
    expect(chargeJson(null, { maxBytes: 4 }).bytes).toBe(4)
    expect(refusal(() => chargeJson(false, { maxBytes: 4 }))).toMatchObject({
      code: 'ERR_JSON_TOO_LARGE',
      observed: 5,
      path: '',
    })
    expect(refusal(() => chargeJson(12345, { maxBytes: 4 }))).toMatchObject({ observed: 5 })
    expect(refusal(() => chargeJson('abc', { maxBytes: 4 }))).toMatchObject({ observed: 5 })
    expectTooLarge('a"', 4, '', 5)
    expectTooLarge('x'.repeat(100), 50, '', 102)
  })

  it('refuses a non-JSON root with ERR_JSON_UNSUPPORTED_VALUE, no limit and the root path', () => {
    for (const value of [undefined, () => 1, Symbol('s'), 1n, Number.NaN, new Date(0)]) {
      const error = refusal(() => chargeJson(value))
      expect(error.code).toBe('ERR_JSON_UNSUPPORTED_VALUE')
      expect(error.path).toBe('')
      expect(error.limit).toBeUndefined()
      expect(error.observed).toBeUndefined()
    }
  })

  it('points at the array member or object member that is not JSON', () => {
    expect(refusal(() => chargeJson([1, 2, undefined])).path).toBe('/2')
    expect(refusal(() => chargeJson({ a: 1, b: () => 1 })).path).toBe('/b')
    expect(refusal(() => chargeJson({ a: [0, { c: new Map() }] })).path).toBe('/a/1/c')
    expect(refusal(() => chargeJson([0, [1, 2, Number.POSITIVE_INFINITY]])).path).toBe('/1/2')
  })

  it('reports the depth it reached and the path of the container that passed maxDepth', () => {
    const deep = refusal(() => chargeJson([[[0]]], { maxDepth: 2 }))
    expect(deep).toMatchObject({ code: 'ERR_JSON_TOO_DEEP', limit: 2, observed: 3, path: '/0/0' })
    const objects = refusal(() => chargeJson({ a: { b: {} } }, { maxDepth: 2 }))
    expect(objects).toMatchObject({ limit: 2, observed: 3, path: '/a/b' })
    expect(refusal(() => chargeJson([], { maxDepth: 0 }))).toMatchObject({
      observed: 1,
      path: '',
    })
    expect(chargeJson([[0]], { maxDepth: 2 }).depth).toBe(2)
  })

  it('refuses an array by its length before reading it, counting every member', () => {
    expect(chargeJson([1, 2], { maxNodes: 3 }).nodes).toBe(3)
    expect(refusal(() => chargeJson([1, 2, 3], { maxNodes: 3 }))).toMatchObject({
      code: 'ERR_JSON_TOO_MANY_NODES',
      limit: 3,
      observed: 4,
      path: '',
    })
    expect(refusal(() => chargeJson({ a: [1, 2, 3] }, { maxNodes: 5 }))).toMatchObject({
      observed: 6,
      path: '/a',
    })
  })

  it('refuses an array member that passes maxNodes after a nested object, at that member', () => {
    expect(chargeJson([{ a: 1 }], { maxNodes: 4 }).nodes).toBe(4)
    expect(refusal(() => chargeJson([{ a: 1 }, 2], { maxNodes: 4 }))).toMatchObject({
      code: 'ERR_JSON_TOO_MANY_NODES',
      observed: 5,
      path: '/1',
    })
  })

  it('refuses the object member that passes maxNodes, at that member', () => {
    expect(refusal(() => chargeJson({ a: 1, b: 2 }, { maxNodes: 4 }))).toMatchObject({
      code: 'ERR_JSON_TOO_MANY_NODES',
      observed: 5,
      path: '/b',
    })
    expect(refusal(() => chargeJson({ a: 1, b: { c: 1 } }, { maxNodes: 6 }))).toMatchObject({
      observed: 7,
      path: '/b/c',
    })
  })

  it('refuses a container whose brackets and commas pass maxBytes, at that container', () => {
    expect(chargeJson([[]], { maxBytes: 4 }).bytes).toBe(4)
    expect(refusal(() => chargeJson([[]], { maxBytes: 3 }))).toMatchObject({
      code: 'ERR_JSON_TOO_LARGE',
      observed: 4,
      path: '/0',
    })
    expect(chargeJson([0, 0, 0], { maxBytes: 7 }).bytes).toBe(7)
    expect(refusal(() => chargeJson([[0, 0, 0]], { maxBytes: 5 }))).toMatchObject({
      observed: 6,
      path: '/0',
    })
    expect(refusal(() => chargeJson({}, { maxBytes: 1 }))).toMatchObject({ observed: 2, path: '' })
  })

  it('refuses the array member that passes maxBytes, with the bytes seen so far', () => {
    expect(refusal(() => chargeJson([1, 12345], { maxBytes: 8 }))).toMatchObject({
      code: 'ERR_JSON_TOO_LARGE',
      observed: 9,
      path: '/1',
    })
    expect(refusal(() => chargeJson([1, 'abc'], { maxBytes: 8 }))).toMatchObject({
      observed: 9,
      path: '/1',
    })
    expectTooLarge([1, 'x'.repeat(40)], 30, '/1', 46)
    expect(chargeJson([1, 'abc'], { maxBytes: 9 }).bytes).toBe(9)
  })

  it('refuses the object key or value that passes maxBytes, with the bytes seen so far', () => {
    expect(chargeJson({ a: 1, b: 2 }, { maxBytes: 13 }).bytes).toBe(13)
    expect(refusal(() => chargeJson({ a: 1, b: 2 }, { maxBytes: 12 }))).toMatchObject({
      observed: 13,
      path: '/b',
    })
    expect(refusal(() => chargeJson({ a: 'xyz' }, { maxBytes: 10 }))).toMatchObject({
      observed: 11,
      path: '/a',
    })
    expectTooLarge({ abcdef: 1 }, 8, '/abcdef', 10)
    expectTooLarge({ a: 1, ['k'.repeat(40)]: 1 }, 20, `/${'k'.repeat(40)}`, 50)
    expectTooLarge({ a: 'v'.repeat(40) }, 20, '/a', 48)
    expect(refusal(() => chargeJson({ a: 123456 }, { maxBytes: 10 }))).toMatchObject({
      observed: 12,
      path: '/a',
    })
  })

  it('charges the comma before every object member but the first, skipping undefined ones', () => {
    expect(chargeJson({ a: undefined, b: 1 }).bytes).toBe(size({ b: 1 }))
    expect(chargeJson({ a: 1, b: undefined, c: 2 }).bytes).toBe(size({ a: 1, c: 2 }))
    expect(chargeJson({ a: undefined }).bytes).toBe(2)
  })

  it('admits an object whose toJSON is not a function and refuses one whose toJSON is', () => {
    expect(chargeJson({ toJSON: 1 }).bytes).toBe(size({ toJSON: 1 }))
    const array = Object.assign([1], { toJSON: () => 'x' })
    expect(refusal(() => chargeJson(array)).code).toBe('ERR_JSON_UNSUPPORTED_VALUE')
    expect(refusal(() => chargeJson({ a: { toJSON: () => 1 } })).path).toBe('/a')
  })
})

describe('normalizeResult', () => {
  it('counts a Set by its size against maxNodes before reading it (rest profile)', () => {
    const value = new Set([1, 2])
    expect(normalizeResult(value, { profile: 'rest', maxNodes: 3 }).nodes).toBe(3)
    expect(refusal(() => normalizeResult(value, { profile: 'rest', maxNodes: 2 }))).toMatchObject({
      code: 'ERR_JSON_TOO_MANY_NODES',
      limit: 2,
      observed: 3,
      path: '',
    })
    const five = new Set([1, 2, 3, 4, 5])
    expect(refusal(() => normalizeResult([five], { profile: 'rest', maxNodes: 2 }))).toMatchObject({
      observed: 7,
      path: '/0',
    })
  })

  it('lowers Sets at every depth, drops undefined members and leaves the input as it was', () => {
    const input = {
      a: new Set([1]),
      b: undefined,
      c: [new Set([2]), { d: new Set<number>() }, null, 'st'],
      e: { f: 1, g: undefined, h: null, s: 'ab' },
    }
    const out = normalizeResult(input, { profile: 'rest' })
    expect(out.value).toStrictEqual({
      a: [1],
      c: [[2], { d: [] }, null, 'st'],
      e: { f: 1, h: null, s: 'ab' },
    })
    expect(Object.hasOwn(out.value as object, 'b')).toBe(false)
    expect(out.bytes).toBe(size(out.value))
    expect(input.a).toBeInstanceOf(Set)
    expect(Object.hasOwn(input, 'b')).toBe(true)
    expect(input.c[0]).toBeInstanceOf(Set)
  })

  it('returns the input itself when there is no Set to lower', () => {
    const input = { a: [1, { b: 2 }] }
    expect(normalizeResult(input, { profile: 'rest' }).value).toBe(input)
    expect(normalizeResult(input, { profile: 'mcp' }).value).toBe(input)
  })

  it('refuses symbol keys in both profiles while chargeJson ignores them', () => {
    const value = { a: { [Symbol('s')]: 1 } }
    for (const profile of ['rest', 'mcp'] as const) {
      expect(refusal(() => normalizeResult(value, { profile }))).toMatchObject({
        code: 'ERR_JSON_UNSUPPORTED_VALUE',
        path: '/a',
      })
    }
    expect(chargeJson(value).bytes).toBe(size(value))
  })

  it('throws a TypeError without options or with an unknown profile', () => {
    expect(() => normalizeResult(1, undefined as never)).toThrow(TypeError)
    expect(() => normalizeResult(1, { profile: 'json' as never })).toThrow(TypeError)
    expect(normalizeResult(1, { profile: 'mcp', maxBytes: 1 }).bytes).toBe(1)
    expect(() => normalizeResult(12, { profile: 'mcp', maxBytes: 1 })).toThrow(
      expect.objectContaining({ code: 'ERR_JSON_TOO_LARGE' }),
    )
  })
})

describe('chargeJson at its boundaries', () => {
  it('admits a container reached at exactly maxNodes, in an array and in an object', () => {
    expect(chargeJson([1, []], { maxNodes: 3 }).nodes).toBe(3)
    expect(chargeJson({ a: {} }, { maxNodes: 3 }).nodes).toBe(3)
  })

  it('reports the deepest nesting, not the last container entered', () => {
    expect(chargeJson([[[0]], []]).depth).toBe(3)
    expect(chargeJson({ a: [[0]], b: [] }).depth).toBe(3)
  })

  it('charges a key named undefined once', () => {
    expect(chargeJson({ undefined: 1 }).bytes).toBe(size({ undefined: 1 }))
    expect(chargeJson({ undefined: 1 }).nodes).toBe(3)
  })
})
