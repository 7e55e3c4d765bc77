import { isAdmissionError } from '@tollgate/json-budget'
import { isStrictJson } from '@tollgate/test-kit/strict-json'
import { describe, expect, it } from 'vitest'
import { createPreflight, type PreflightPolicies, preflight } from '../src/index.js'
import { byteCuts, hex, utf8, verdict } from './helpers/preflight-runs.js'

/** One-shot outcome, checked to be the same at every two-chunk split and byte by byte. */
function outcome(text: string | Uint8Array, policies: PreflightPolicies, limits = {}) {
  const bytes = typeof text === 'string' ? utf8(text) : text
  const whole = verdict(bytes, [], limits, policies)
  for (let cut = 0; cut <= bytes.length; cut++) {
    expect(verdict(bytes, [cut], limits, policies)).toEqual(whole)
  }
  expect(verdict(bytes, byteCuts(bytes.length), limits, policies)).toEqual(whole)
  return whole
}

const DUP: PreflightPolicies = { duplicateKeys: 'refuse' }
const PROTO: PreflightPolicies = { protoKeys: 'refuse' }

describe('preflight duplicateKeys policy', () => {
  it('admits a repeated key when off (the default), as JSON.parse does', () => {
    expect(outcome('{"a":1,"a":2}', {})).toMatchObject({ ok: true, nodes: 5 })
  })

  it('refuses a repeated key with ERR_JSON_DUPLICATE_KEY at the second key when on', () => {
    expect(outcome('{"a":1,"b":{},"a":2}', DUP)).toEqual({
      ok: false,
      code: 'ERR_JSON_DUPLICATE_KEY',
      offset: 14,
      limit: undefined,
    })
  })

  it('compares keys after unescaping', () => {
    expect(outcome('{"a":1,"\\u0061":2}', DUP)).toMatchObject({ code: 'ERR_JSON_DUPLICATE_KEY' })
    expect(outcome('{"é":1,"\\u00e9":2}', DUP)).toMatchObject({ code: 'ERR_JSON_DUPLICATE_KEY' })
    expect(outcome('{"\\/":1,"/":2}', DUP)).toMatchObject({ code: 'ERR_JSON_DUPLICATE_KEY' })
  })

  it('admits the same key in different objects, nested or sibling', () => {
    expect(outcome('{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}', DUP)).toMatchObject({ ok: true })
    expect(outcome('{"a":1,"A":2,"a ":3,"":4}', DUP)).toMatchObject({ ok: true })
  })

  it('finds a duplicate of a long key split across many chunks', () => {
    const key = 'k'.repeat(300)
    const doc = utf8(`{"${key}":1,"${key}":2}`)
    const scanner = createPreflight(DUP)
    let error: unknown
    try {
      for (let i = 0; i < doc.length; i += 7) scanner.push(doc.subarray(i, i + 7))
    } catch (e) {
      error = e
    }
    expect(isAdmissionError(error) && error.code).toBe('ERR_JSON_DUPLICATE_KEY')
  })
})

describe('preflight protoKeys policy', () => {
  const attacks = [
    '{"__proto__":{"polluted":true}}',
    '{"a":[{"__proto__":1}]}',
    '{"\\u005f_proto__":{}}',
    '{"\\u005F\\u005F\\u0070\\u0072\\u006F\\u0074\\u006F\\u005F\\u005F":{}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"x":{"constructor":{"a":1,"prototype":{}}}}',
    '{"constructor":{"\\u0070rototype":{}}}',
  ]

  it('admits __proto__ and constructor.prototype keys when off (the default)', () => {
    for (const doc of attacks)
      expect(preflight(utf8(doc))).toMatchObject({ depth: expect.any(Number) })
  })

  it('refuses __proto__ and constructor.prototype keys with ERR_JSON_PROTO_KEY when on', () => {
    for (const doc of attacks) {
      expect([doc, outcome(doc, PROTO)]).toEqual([
        doc,
        expect.objectContaining({ code: 'ERR_JSON_PROTO_KEY' }),
      ])
    }
  })

  it('admits what secure-json-parse admits: the words as values, prototype elsewhere', () => {
    for (const doc of [
      '{"a":"__proto__"}',
      '["__proto__","constructor"]',
      '{"prototype":1}',
      '{"constructor":1,"prototype":{}}',
      '{"constructor":[{"prototype":1}]}',
      '{"constructor":[1,{"prototype":1}]}',
      '{"a":{"prototype":1}}',
      '{"constructor":{"a":{"prototype":1}}}',
      '{"__proto":1,"_proto__":2}',
    ]) {
      expect([doc, outcome(doc, PROTO)]).toEqual([doc, expect.objectContaining({ ok: true })])
    }
  })

  it('shows the attack it stops: with the policy off a naive merge of the parsed body pollutes Object.prototype', () => {
    const body = utf8('{"__proto__":{"pollutedByTest":"yes"}}')
    const merge = (target: Record<string, unknown>, source: Record<string, unknown>) => {
      for (const key of Object.keys(source)) {
        const value = source[key]
        if (typeof value === 'object' && value !== null) {
          if (typeof target[key] !== 'object' || target[key] === null) target[key] = {}
          merge(target[key] as Record<string, unknown>, value as Record<string, unknown>)
        } else target[key] = value
      }
    }
    try {
      // Control removed: the preflight admits the body, the handler merges it.
      preflight(body)
      merge({}, JSON.parse(Buffer.from(body).toString()))
      expect(({} as Record<string, unknown>).pollutedByTest).toBe('yes')
    } finally {
      delete (Object.prototype as Record<string, unknown>).pollutedByTest
    }
    // Control on: refused before anything parses or merges it.
    let merged = false
    expect(() => {
      preflight(body, PROTO)
      merged = true
    }).toThrow(expect.objectContaining({ code: 'ERR_JSON_PROTO_KEY', offset: 1 }))
    expect(merged).toBe(false)
    expect(({} as Record<string, unknown>).pollutedByTest).toBeUndefined()
  })
})

describe('preflight maxStringBytes policy', () => {
  it('admits a string of maxStringBytes raw bytes and refuses one more at its offset', () => {
    expect(outcome('["abcd"]', { maxStringBytes: 4 })).toMatchObject({ ok: true })
    expect(outcome('["abcde"]', { maxStringBytes: 4 })).toEqual({
      ok: false,
      code: 'ERR_JSON_STRING_TOO_LONG',
      offset: 6,
      limit: 4,
    })
  })

  it('applies to keys too', () => {
    expect(outcome('{"abcd":1}', { maxStringBytes: 4 })).toMatchObject({ ok: true })
    expect(outcome('{"abcde":1}', { maxStringBytes: 4 })).toMatchObject({
      code: 'ERR_JSON_STRING_TOO_LONG',
      offset: 6,
    })
  })

  it('counts escapes as written and multi-byte characters in bytes', () => {
    expect(outcome('"\\n\\u0041"', { maxStringBytes: 8 })).toMatchObject({ ok: true })
    expect(outcome('"\\n\\u0041"', { maxStringBytes: 7 })).toMatchObject({ offset: 8 })
    expect(outcome('"中文"', { maxStringBytes: 6 })).toMatchObject({ ok: true })
    expect(outcome('"中文"', { maxStringBytes: 5 })).toMatchObject({ offset: 6 })
  })

  it('admits only empty strings at 0', () => {
    expect(outcome('["",{"":""}]', { maxStringBytes: 0 })).toMatchObject({ ok: true })
    expect(outcome('["a"]', { maxStringBytes: 0 })).toMatchObject({ offset: 2 })
  })

  it('refuses during push, before the string ends', () => {
    const scanner = createPreflight({ maxStringBytes: 1000 })
    scanner.push(utf8('["'))
    expect(() => scanner.push(utf8('x'.repeat(1001)))).toThrow(
      expect.objectContaining({ code: 'ERR_JSON_STRING_TOO_LONG', offset: 1002, limit: 1000 }),
    )
  })

  it('is off by default: a 1 MB string is admitted', () => {
    expect(preflight(utf8(JSON.stringify('y'.repeat(1_000_000)))).nodes).toBe(1)
  })
})

describe('preflight maxNumberLength policy', () => {
  it('admits a number of maxNumberLength characters and refuses one more at its offset', () => {
    expect(outcome('[12345]', { maxNumberLength: 5 })).toMatchObject({ ok: true })
    expect(outcome('[123456]', { maxNumberLength: 5 })).toEqual({
      ok: false,
      code: 'ERR_JSON_NUMBER_TOO_LONG',
      offset: 6,
      limit: 5,
    })
  })

  it('counts sign, point, exponent marker and exponent sign', () => {
    for (const text of ['-1.5e+7', '-0.0E-1', '12345.6', '1.2e-34']) {
      expect(outcome(text, { maxNumberLength: 7 })).toMatchObject({ ok: true })
      expect(outcome(text, { maxNumberLength: 6 })).toMatchObject({
        code: 'ERR_JSON_NUMBER_TOO_LONG',
        offset: 6,
      })
    }
  })

  it('refuses during push, before the number ends', () => {
    const scanner = createPreflight({ maxNumberLength: 20 })
    scanner.push(utf8('[1'))
    expect(() => scanner.push(utf8('0'.repeat(50)))).toThrow(
      expect.objectContaining({ code: 'ERR_JSON_NUMBER_TOO_LONG', offset: 21 }),
    )
  })

  it('is off by default: a 100,000-digit number is admitted', () => {
    expect(preflight(utf8(`1${'0'.repeat(100_000)}`)).nodes).toBe(1)
  })
})

describe('preflight bom policy', () => {
  const bom = hex('efbbbf7b7d')

  it("refuses a leading BOM with ERR_JSON_BOM at offset 0 by default ('refuse')", () => {
    expect(isStrictJson(bom)).toBe(false)
    expect(outcome(bom, {})).toEqual({
      ok: false,
      code: 'ERR_JSON_BOM',
      offset: 0,
      limit: undefined,
    })
    expect(outcome(bom, { bom: 'refuse' })).toMatchObject({ code: 'ERR_JSON_BOM' })
  })

  it("skips a leading BOM with 'strip', counting its bytes", () => {
    expect(isStrictJson(bom, { stripBom: true })).toBe(true)
    expect(outcome(bom, { bom: 'strip' })).toEqual({ ok: true, nodes: 1, depth: 1, bytes: 5 })
  })

  it('refuses a BOM anywhere but offset 0 as a syntax error under either setting', () => {
    for (const policy of ['refuse', 'strip'] as const) {
      expect(outcome(hex('20efbbbf7b7d'), { bom: policy })).toMatchObject({
        code: 'ERR_JSON_SYNTAX',
        offset: 1,
      })
      expect(outcome(hex('efbbbfefbbbf7b7d'), { bom: 'strip' })).toMatchObject({ offset: 3 })
    }
  })

  it('refuses an incomplete BOM or a BOM alone', () => {
    expect(outcome(hex('efbb7b7d'), { bom: 'strip' })).toMatchObject({
      code: 'ERR_JSON_SYNTAX',
      offset: 0,
    })
    expect(outcome(hex('efbbbf'), { bom: 'strip' })).toMatchObject({
      code: 'ERR_JSON_SYNTAX',
      offset: 3,
    })
    expect(outcome(hex('ef'), {})).toMatchObject({ code: 'ERR_JSON_SYNTAX', offset: 0 })
  })
})
