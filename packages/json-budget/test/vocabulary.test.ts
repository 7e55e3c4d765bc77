// The refusal vocabulary as data: json-budget's code table is stable once released (codes are
// added, never renamed), so every row is pinned here; messages are checked for what they must
// hold (a distinct text per code, the limit and the option to raise), never for their wording.
// The codes of the other packages are pinned by their own tests. Written for the survivors of
// the Stryker run recorded in jobs/mutation/records/json-budget.md.
import { describe, expect, it } from 'vitest'
import {
  AdmissionError,
  assertLimit,
  chargeJson,
  defineRefusalCodes,
  formatPointer,
  formatPointerSegment,
  isAdmissionError,
  JSON_BUDGET_CODES,
  JSON_LIMITS_DEFAULTS,
  type JsonBudgetCode,
  jsonStringByteLength,
  MAX_POINTER_LENGTH,
  MAX_POINTER_SEGMENT,
  numberByteLength,
  refusalCodeSpec,
  resolveJsonLimits,
} from '../src/index.js'

// Each code with its status, RFC 9110 reason phrase (422 under its RFC 9110 name) and the
// option of json-budget a caller raises (one of `JsonLimitsOptions`, or none).
const ROWS: Record<JsonBudgetCode, readonly [number, string, string | undefined]> = {
  ERR_JSON_TOO_DEEP: [422, 'Unprocessable Content', 'maxDepth'],
  ERR_JSON_TOO_MANY_NODES: [422, 'Unprocessable Content', 'maxNodes'],
  ERR_JSON_TOO_LARGE: [413, 'Payload Too Large', 'maxBytes'],
  ERR_JSON_UNSUPPORTED_VALUE: [500, 'Internal Server Error', undefined],
}
const CODES = Object.keys(ROWS) as JsonBudgetCode[]

// A code with no status (nobody left to answer), registered by this test only.
const GONE = defineRefusalCodes('@tollgate/json-budget-test', {
  ERR_TEST_VOCABULARY_GONE: {
    status: undefined,
    title: 'Client Closed Request',
    option: undefined,
    message: 'the test client went away',
  },
})

describe('JSON_BUDGET_CODES', () => {
  it('holds every released code, in order, with its status, title and the option a caller raises', () => {
    expect(Object.keys(JSON_BUDGET_CODES)).toEqual(CODES)
    for (const code of CODES) {
      const [status, title, option] = ROWS[code]
      expect(JSON_BUDGET_CODES[code]).toEqual({
        status,
        title,
        option,
        message: expect.any(String),
      })
    }
  })

  it('is frozen, row by row, and registered under json-budget', () => {
    expect(Object.isFrozen(JSON_BUDGET_CODES)).toBe(true)
    for (const code of CODES) {
      expect(Object.isFrozen(JSON_BUDGET_CODES[code])).toBe(true)
      expect(refusalCodeSpec(code)).toMatchObject({
        code,
        owner: '@tollgate/json-budget',
        ...JSON_BUDGET_CODES[code],
      })
    }
  })

  it('names only options of JsonLimitsOptions', () => {
    for (const code of CODES) {
      const option = JSON_BUDGET_CODES[code].option
      if (option !== undefined) expect(Object.keys(JSON_LIMITS_DEFAULTS)).toContain(option)
    }
  })
})

describe('AdmissionError', () => {
  it('has a distinct, non-empty message for each code', () => {
    const messages = CODES.map((code) => new AdmissionError(code).message)
    expect(new Set(messages).size).toBe(CODES.length)
    for (const m of messages) expect(m.length).toBeGreaterThan(0)
  })

  it('names the limit and the option to raise only when a limit is known, and an overriding option', () => {
    const plain = new AdmissionError('ERR_JSON_TOO_LARGE')
    const limited = new AdmissionError('ERR_JSON_TOO_LARGE', { limit: 12345 })
    const other = new AdmissionError('ERR_JSON_TOO_LARGE', {
      limit: 12345,
      option: 'toolResultBytes',
    })
    expect(plain.message).not.toContain('12345')
    expect(plain.message).not.toContain('maxBytes')
    expect(plain.message).not.toContain('undefined')
    expect(limited.message).toContain('12345')
    expect(limited.message).toContain('maxBytes')
    expect(other.message).toContain('toolResultBytes')
    expect(other.message).not.toContain('maxBytes')
    const noOption = new AdmissionError('ERR_JSON_UNSUPPORTED_VALUE', { limit: 7 })
    expect(noOption.message).toContain('7')
    expect(noOption.message).not.toContain('undefined')
  })

  it('is named AdmissionError and serializes only the details that are set', () => {
    const gone = new AdmissionError('ERR_TEST_VOCABULARY_GONE', {}, GONE.ERR_TEST_VOCABULARY_GONE)
    expect(gone.name).toBe('AdmissionError')
    expect(gone).toBeInstanceOf(Error)
    expect(gone.status).toBeUndefined()
    expect(gone.toJSON()).toStrictEqual({ code: 'ERR_TEST_VOCABULARY_GONE', message: gone.message })
    const zero = new AdmissionError('ERR_JSON_UNSUPPORTED_VALUE', { offset: 0, path: '' })
    expect(zero.toJSON()).toStrictEqual({
      code: 'ERR_JSON_UNSUPPORTED_VALUE',
      status: 500,
      message: zero.message,
      path: '',
      offset: 0,
    })
  })
})

describe('isAdmissionError', () => {
  it('rejects a branded object whose code is not a string or is inherited from Object', () => {
    const forged = new AdmissionError('ERR_JSON_TOO_DEEP')
    Object.defineProperty(forged, 'code', { value: 42 })
    expect(isAdmissionError(forged)).toBe(false)
    const inherited = new AdmissionError('ERR_JSON_TOO_DEEP')
    Object.defineProperty(inherited, 'code', { value: 'toString' })
    expect(isAdmissionError(inherited)).toBe(false)
    const coerced = new AdmissionError('ERR_JSON_TOO_DEEP')
    Object.defineProperty(coerced, 'code', { value: { toString: () => 'ERR_JSON_TOO_DEEP' } })
    expect(isAdmissionError(coerced)).toBe(false)
    expect(isAdmissionError('ERR_JSON_TOO_DEEP')).toBe(false)
    expect(isAdmissionError(undefined)).toBe(false)
  })
})

describe('assertLimit', () => {
  it('returns a positive safe integer and throws a TypeError for 0 unless zero is allowed', () => {
    expect(assertLimit('n', 1)).toBe(1)
    expect(assertLimit('n', Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER)
    expect(() => assertLimit('n', 0)).toThrow(TypeError)
    expect(assertLimit('n', 0, true)).toBe(0)
    expect(() => assertLimit('n', -1, true)).toThrow(TypeError)
    expect(() => assertLimit('n', 2 ** 53)).toThrow(TypeError)
    expect(() => assertLimit('n', '1')).toThrow(TypeError)
  })
})

describe('resolveJsonLimits', () => {
  it('throws a TypeError for limits that are not an object, and fills all defaults when omitted', () => {
    expect(() => resolveJsonLimits(null as never)).toThrow(TypeError)
    expect(() => resolveJsonLimits('x' as never)).toThrow(TypeError)
    expect(resolveJsonLimits()).toEqual(JSON_LIMITS_DEFAULTS)
  })

  it('admits each limit equal to its ceiling and refuses each one above it', () => {
    const ceiling = { maxNodes: 10, maxDepth: 5, maxBytes: 100 }
    expect(resolveJsonLimits(ceiling, ceiling)).toEqual(ceiling)
    for (const key of ['maxNodes', 'maxDepth', 'maxBytes'] as const) {
      expect(() => resolveJsonLimits({ ...ceiling, [key]: ceiling[key] + 1 }, ceiling)).toThrow(
        TypeError,
      )
    }
  })

  it('validates maxDepth and maxBytes like maxNodes', () => {
    for (const key of ['maxNodes', 'maxDepth', 'maxBytes'] as const) {
      expect(() => resolveJsonLimits({ [key]: -1 })).toThrow(TypeError)
      expect(() => resolveJsonLimits({ [key]: 1.5 })).toThrow(TypeError)
      expect(() => resolveJsonLimits({ [key]: null as never })).toThrow(TypeError)
    }
  })
})

describe('formatPointer', () => {
  it('keeps a pointer of exactly MAX_POINTER_LENGTH characters and cuts one segment more', () => {
    expect(MAX_POINTER_LENGTH).toBe(512)
    const fits = Array.from({ length: 256 }, () => 'a')
    expect(formatPointer(fits)).toBe('/a'.repeat(256))
    expect(formatPointer([...fits, 'b'])).toBe(`${'/a'.repeat(256)}/…`)
    expect(formatPointer([...fits, 'b', 'c'])).toBe(`${'/a'.repeat(256)}/…`)
  })

  it('renders numbers as is and escapes every ~ and / in a segment', () => {
    expect(formatPointerSegment(12)).toBe('12')
    expect(formatPointerSegment('~~//')).toBe('~0~0~1~1')
    expect(formatPointerSegment(' ~')).toBe(' ~0')
    expect(formatPointerSegment('\u007f')).toBe('<1 chars>')
    expect(formatPointerSegment('')).toBe('')
    expect(MAX_POINTER_SEGMENT).toBe(64)
  })
})

describe('numberByteLength', () => {
  it('is the length JSON.stringify writes at every power-of-ten edge and beyond 10^15', () => {
    const values = [0, -0, 9, 10, -10, 99, 100, 999_999_999_999_999, 1e15, -1e15, 1e21, 0.5, -1.25]
    for (let d = 1; d <= 15; d++) values.push(10 ** d, 10 ** d - 1, -(10 ** d))
    for (const n of values) expect(numberByteLength(n)).toBe(JSON.stringify(n).length)
  })
})

describe('jsonStringByteLength', () => {
  const edge = 4096
  const cases: [string, string][] = [
    [
      'a pair straddling the first chunk edge',
      `${'a'.repeat(edge - 1)}\ud83d\ude00${'b'.repeat(10)}`,
    ],
    ['a lone high surrogate at the chunk edge', `${'a'.repeat(edge - 1)}\ud800b${'c'.repeat(10)}`],
    ['a lone low surrogate after the edge', `${'a'.repeat(edge)}\udc00${'c'.repeat(10)}`],
    [
      'escapes and controls in a later chunk',
      `${'é'.repeat(edge)}"\\\n\u0001\u001f${'中'.repeat(50)}`,
    ],
    [
      '33 characters, the first long string',
      `${'"'.repeat(11)}${'\u0002'.repeat(11)}${'é'.repeat(11)}`,
    ],
    [
      '32 characters, the last short string',
      `${'"'.repeat(10)}${'\u0002'.repeat(11)}${'\ud800'.repeat(11)}`,
    ],
    [
      'every kind of escape in one short string',
      '"\\\b\t\n\f\r\u0000\u007f\u0080\u07ff\u0800\uffff',
    ],
    ['spaces and surrogate-range edges, short', ' \ud800\udc00 \udbff\udfff\udbff \udc00\udfff'],
    [
      'spaces, every short escape and surrogate-range edges, long',
      `${' '.repeat(40)}"\b\t\n\f\r \ud800\udc00\udbff\udfff\udbff \udc00\udfff`,
    ],
    [
      'a pair across the edge after a lone high surrogate',
      `${'a'.repeat(edge - 1)}\ud800\ud800\udc00b`,
    ],
    ['a U+10000 pair across the edge', `${'a'.repeat(edge - 1)}\ud800\udc00b`],
    ['a U+10FFFF pair across the edge', `${'a'.repeat(edge - 1)}\udbff\udfffb`],
    ['a pair one unit before the edge', `${'a'.repeat(edge - 2)}\ud83d\ude00b`],
    ['a high surrogate before U+E000, short', 'a\ud800\ue000b'],
    [
      'a U+10FFFF pair, a lone U+D800 and U+E000, long',
      `${'a'.repeat(40)}\udbff\udfff\ud800\ue000\uffff`,
    ],
  ]
  it.each(cases)('is the UTF-8 length of JSON.stringify for %s', (_, s) => {
    expect(jsonStringByteLength(s)).toBe(Buffer.byteLength(JSON.stringify(s)))
  })

  it.each(cases)('admits %s at exactly its size and refuses it one byte under', (_, s) => {
    const bytes = Buffer.byteLength(JSON.stringify(s))
    expect(chargeJson(s, { maxBytes: bytes }).bytes).toBe(bytes)
    expect(() => chargeJson(s, { maxBytes: bytes - 1 })).toThrow(
      expect.objectContaining({ code: 'ERR_JSON_TOO_LARGE', limit: bytes - 1 }),
    )
    expect(chargeJson([s], { maxBytes: bytes + 2 }).bytes).toBe(bytes + 2)
    expect(() => chargeJson([s], { maxBytes: bytes + 1 })).toThrow(
      expect.objectContaining({ code: 'ERR_JSON_TOO_LARGE', path: '/0' }),
    )
  })
})
