import { refusal } from '@tollgate/test-kit/refusal'
import { describe, expect, it } from 'vitest'
import { chargeJson } from '../src/index.js'

const MARKER = 'CALLER-MARKER-7f3a'

function nested(depth: number): unknown {
  let v: unknown = 0
  for (let i = 0; i < depth; i++) v = [v]
  return v
}

describe('chargeJson', () => {
  it('counts containers, scalars and keys as nodes', () => {
    expect(chargeJson({ a: [1, 2] })).toEqual({ nodes: 5, depth: 2, bytes: 11 })
    expect(chargeJson(7)).toEqual({ nodes: 1, depth: 0, bytes: 1 })
    expect(chargeJson([])).toEqual({ nodes: 1, depth: 1, bytes: 2 })
    expect(chargeJson({})).toEqual({ nodes: 1, depth: 1, bytes: 2 })
  })

  it('admits exactly maxNodes nodes and refuses one more with ERR_JSON_TOO_MANY_NODES', () => {
    const at = Array.from({ length: 99_999 }, () => 0)
    expect(chargeJson(at).nodes).toBe(100_000)
    const past = Array.from({ length: 100_000 }, () => 0)
    const error = refusal(() => chargeJson(past))
    expect(error.code).toBe('ERR_JSON_TOO_MANY_NODES')
    expect(error.limit).toBe(100_000)
    expect(error.status).toBe(422)
  })

  it('counts object keys against maxNodes at N and N+1', () => {
    expect(chargeJson({ a: 1, b: 2 }, { maxNodes: 5 }).nodes).toBe(5)
    const error = refusal(() => chargeJson({ a: 1, b: 2, c: 3 }, { maxNodes: 5 }))
    expect(error.code).toBe('ERR_JSON_TOO_MANY_NODES')
    expect(error.limit).toBe(5)
  })

  it('admits depth 64 and refuses depth 65 with ERR_JSON_TOO_DEEP', () => {
    expect(chargeJson(nested(64)).depth).toBe(64)
    const error = refusal(() => chargeJson(nested(65)))
    expect(error.code).toBe('ERR_JSON_TOO_DEEP')
    expect(error.limit).toBe(64)
    expect(error.observed).toBe(65)
  })

  it('refuses a 1,000,000-deep value without a RangeError', () => {
    const error = refusal(() => chargeJson(nested(1_000_000)))
    expect(error.code).toBe('ERR_JSON_TOO_DEEP')
  })

  it('charges a 1,000,000-deep value when the depth limit allows it, without recursion', () => {
    const charge = chargeJson(nested(1_000_000), { maxDepth: 2_000_000, maxNodes: 2_000_000 })
    expect(charge.depth).toBe(1_000_000)
    expect(charge.nodes).toBe(1_000_001)
    expect(charge.bytes).toBe(2_000_001)
  })

  it('refuses a direct cycle as ERR_JSON_TOO_DEEP', () => {
    const a: unknown[] = []
    a.push(a)
    expect(refusal(() => chargeJson(a)).code).toBe('ERR_JSON_TOO_DEEP')
  })

  it('refuses a cycle through objects as ERR_JSON_TOO_DEEP', () => {
    const a: Record<string, unknown> = {}
    const b: Record<string, unknown> = { a }
    a.b = b
    const error = refusal(() => chargeJson({ root: a }))
    expect(error.code).toBe('ERR_JSON_TOO_DEEP')
    expect(error.path?.startsWith('/root/b/a/b')).toBe(true)
  })

  it('charges a value shared by reference at every occurrence', () => {
    const shared = { k: 'v' }
    const value = [shared, shared, shared]
    expect(chargeJson(value)).toEqual({
      nodes: 10,
      depth: 2,
      bytes: Buffer.byteLength(JSON.stringify(value)),
    })
    const error = refusal(() => chargeJson(value, { maxNodes: 9 }))
    expect(error.code).toBe('ERR_JSON_TOO_MANY_NODES')
  })

  it('refuses a 50,000,000-slot sparse array from its length, without iterating', () => {
    const sparse: unknown[] = []
    sparse.length = 50_000_000
    sparse[0] = 1
    const error = refusal(() => chargeJson(sparse))
    expect(error.code).toBe('ERR_JSON_TOO_MANY_NODES')
    expect(error.observed).toBe(50_000_001)
  })

  it('refuses a string over maxBytes at the first chunk that crosses it', () => {
    const big = 'x'.repeat(64 * 1024 * 1024 - 1)
    const error = refusal(() => chargeJson(big))
    expect(error.code).toBe('ERR_JSON_TOO_LARGE')
    expect(error.limit).toBe(64 * 1024 * 1024)
    expect(error.status).toBe(413)
    expect(chargeJson('x'.repeat(64 * 1024 * 1024 - 2)).bytes).toBe(64 * 1024 * 1024)
  })

  it('refuses a string whose escapes push it past maxBytes', () => {
    const s = '"'.repeat(6_000)
    expect(chargeJson(s, { maxBytes: 12_002 }).bytes).toBe(12_002)
    expect(refusal(() => chargeJson(s, { maxBytes: 12_001 })).code).toBe('ERR_JSON_TOO_LARGE')
  })

  it('admits exactly maxBytes and refuses one byte more', () => {
    const value = { a: 'b'.repeat(100) }
    const exact = Buffer.byteLength(JSON.stringify(value))
    expect(chargeJson(value, { maxBytes: exact }).bytes).toBe(exact)
    const error = refusal(() => chargeJson(value, { maxBytes: exact - 1 }))
    expect(error.code).toBe('ERR_JSON_TOO_LARGE')
    expect(error.limit).toBe(exact - 1)
  })

  it('charges lone surrogates, controls, U+2028 and astral characters as JSON.stringify writes them', () => {
    const samples = [
      '\ud800',
      '\udc00x',
      'a\ud83d\ude00b',
      '\u2028\u2029',
      '\u0000\u001f\u007f',
      '\b\f\n\r\t"\\/',
      `${'é'.repeat(4095)}\ud83d\ude00${'z'.repeat(10)}`,
      `${'a'.repeat(4095)}\ud83d\ude00`,
      `${'a'.repeat(4095)}\ud83d`,
      `${'a'.repeat(8190)}\udc00\ud800`,
    ]
    for (const s of samples) {
      expect(chargeJson(s).bytes).toBe(Buffer.byteLength(JSON.stringify(s)))
      expect(chargeJson({ [s]: s }).bytes).toBe(Buffer.byteLength(JSON.stringify({ [s]: s })))
    }
  })

  it('skips object properties whose value is undefined, as JSON.stringify does', () => {
    const value = { a: undefined, b: 1, c: undefined }
    expect(chargeJson(value)).toEqual({
      nodes: 3,
      depth: 1,
      bytes: Buffer.byteLength(JSON.stringify(value)),
    })
  })

  it('ignores symbol-keyed properties, as JSON.stringify does', () => {
    const value = { a: 1, [Symbol('s')]: 2 }
    expect(chargeJson(value).bytes).toBe(Buffer.byteLength(JSON.stringify(value)))
  })

  it('refuses values that are not JSON with ERR_JSON_UNSUPPORTED_VALUE', () => {
    class Thing {
      x = 1
    }
    const cases: unknown[] = [
      undefined,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      10n,
      () => 1,
      Symbol('s'),
      new Date(0),
      new Map(),
      new Set([1]),
      new Uint8Array(2),
      Buffer.from('x'),
      new Thing(),
      { toJSON: () => 1 },
      [1, undefined],
      { f: () => 1 },
      Promise.resolve(1),
      new Error('x'),
    ]
    for (const value of cases) {
      const error = refusal(() => chargeJson({ deep: [value] }))
      expect(error.code).toBe('ERR_JSON_UNSUPPORTED_VALUE')
      expect(error.path).toMatch(/^\/deep\/0/)
    }
  })

  it('refuses a sparse-array hole as an undefined array member', () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the case under test
    const error = refusal(() => chargeJson([1, , 3]))
    expect(error.code).toBe('ERR_JSON_UNSUPPORTED_VALUE')
    expect(error.path).toBe('/1')
  })

  it('admits objects with a null prototype', () => {
    const value = Object.create(null) as Record<string, unknown>
    value.k = [1]
    expect(chargeJson(value).bytes).toBe(Buffer.byteLength(JSON.stringify(value)))
  })

  it('bounds the refusal path and never echoes a caller key or value', () => {
    const longKey = `${MARKER}${'k'.repeat(10_000)}`
    const error = refusal(() => chargeJson({ [longKey]: [[[MARKER]]] }, { maxDepth: 2 }))
    expect(error.code).toBe('ERR_JSON_TOO_DEEP')
    expect(error.path).toBe('/<10018 chars>/0')
    const serialized = JSON.stringify(error) + error.message + String(error.stack)
    expect(serialized).not.toContain(MARKER)
    expect(JSON.stringify(error).length).toBeLessThan(300)
  })

  it('reports a path of at most 514 characters for a deep refusal', () => {
    let v: unknown = 1
    for (let i = 0; i < 70; i++) v = { ['k'.repeat(60)]: v }
    const error = refusal(() => chargeJson(v))
    expect(error.code).toBe('ERR_JSON_TOO_DEEP')
    expect(error.path!.length).toBeLessThanOrEqual(514)
    expect(error.path!.endsWith('/…')).toBe(true)
  })

  it('rejects invalid limits with a TypeError', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10']) {
      expect(() => chargeJson(1, { maxNodes: bad as number })).toThrow(TypeError)
      expect(() => chargeJson(1, { maxBytes: bad as number })).toThrow(TypeError)
      expect(() => chargeJson(1, { maxDepth: bad as number })).toThrow(TypeError)
    }
  })

  it('fills missing limits from the defaults', () => {
    const error = refusal(() => chargeJson(nested(65), { maxNodes: 1000 }))
    expect(error.limit).toBe(64)
  })

  it('applies the limits one options object holds at each call, after it was changed', () => {
    // The same object on every call (as a caller passing one literal): a change is seen.
    const limits: { maxNodes?: number; maxDepth?: number; maxBytes?: number } = { maxNodes: 10 }
    expect(chargeJson([1, 2, 3], limits).nodes).toBe(4)
    limits.maxNodes = 3
    const error = refusal(() => chargeJson([1, 2, 3], limits))
    expect([error.code, error.limit]).toEqual(['ERR_JSON_TOO_MANY_NODES', 3])
    limits.maxNodes = -1
    expect(() => chargeJson([1], limits)).toThrow(TypeError)
    expect(() => chargeJson([1], limits)).toThrow(TypeError)
    limits.maxNodes = undefined
    limits.maxDepth = 0
    expect(refusal(() => chargeJson([1], limits)).code).toBe('ERR_JSON_TOO_DEEP')
    limits.maxDepth = undefined
    expect(chargeJson(nested(64), limits).depth).toBe(64)
    limits.maxBytes = 2
    expect(refusal(() => chargeJson('abc', limits)).code).toBe('ERR_JSON_TOO_LARGE')
  })
})
