// The refusal vocabulary as data: the code table is stable once released (codes are added,
// never renamed), so every row is pinned here; messages are checked for what they must hold
// (a distinct text per code, the limit and the option to raise), never for their wording.
// Written for the survivors of the Stryker run recorded in the README.
import { describe, expect, it } from 'vitest'
import {
  ADMISSION_CODE_LIST,
  ADMISSION_CODES,
  ADMISSION_DEFAULTS,
  AdmissionError,
  assertLimit,
  chargeJson,
  formatPointer,
  formatPointerSegment,
  isAdmissionError,
  JSON_LIMITS_DEFAULTS,
  jsonStringByteLength,
  MAX_POINTER_LENGTH,
  MAX_POINTER_SEGMENT,
  numberByteLength,
  resolveJsonLimits,
  statusForCode,
} from '../src/index.js'

// RFC 9110 reason phrases (422 under its RFC 9110 name), and nginx's 499 for a client abort.
const TITLES: Record<string, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  undefined: 'Client Closed Request',
}

const OPTIONS = {
  ERR_BODY_TOO_LARGE: 'maxBytes',
  ERR_BODY_INVALID_LENGTH: 'Content-Length',
  ERR_BODY_MEDIA_TYPE: 'types',
  ERR_BODY_ENCODING: 'encodings',
  ERR_BODY_INFLATION_RATIO: 'maxInflationRatio',
  ERR_BODY_TIMEOUT: 'timeoutMs',
  ERR_BODY_ABORTED: undefined,
  ERR_ADMISSION_BUSY: 'maxInFlightBytes',
  ERR_HOST_NOT_ALLOWED: 'allowedHosts',
  ERR_ORIGIN_NOT_ALLOWED: 'allowedOrigins',
  ERR_LINE_TOO_LARGE: 'maxLineBytes',
  ERR_JSON_INVALID_UTF8: undefined,
  ERR_JSON_SYNTAX: undefined,
  ERR_JSON_TOO_DEEP: 'maxDepth',
  ERR_JSON_TOO_MANY_NODES: 'maxNodes',
  ERR_JSON_TOO_LARGE: 'maxBytes',
  ERR_JSON_UNSUPPORTED_VALUE: undefined,
  ERR_JSON_DUPLICATE_KEY: 'duplicateKeys',
  ERR_JSON_PROTO_KEY: 'protoKeys',
  ERR_JSON_STRING_TOO_LONG: 'maxStringBytes',
  ERR_JSON_NUMBER_TOO_LONG: 'maxNumberLength',
  ERR_JSON_BOM: 'bom',
  ERR_BODY_INCOMPLETE: undefined,
  ERR_JSON_NOT_OBJECT_OR_ARRAY: 'strict',
  ERR_BODY_VERIFY_FAILED: 'verify',
  ERR_ADMISSION_PRINCIPAL_BUSY: 'principalShare',
} as const

describe('ADMISSION_CODES', () => {
  it('holds every released code, in order, with the option a caller raises', () => {
    expect(ADMISSION_CODE_LIST).toEqual(Object.keys(OPTIONS))
    for (const code of ADMISSION_CODE_LIST) expect(ADMISSION_CODES[code].option).toBe(OPTIONS[code])
    expect(Object.isFrozen(ADMISSION_CODE_LIST)).toBe(true)
  })

  it('titles each code with the reason phrase of its status', () => {
    for (const code of ADMISSION_CODE_LIST) {
      expect(ADMISSION_CODES[code].title).toBe(TITLES[String(statusForCode(code))])
    }
  })
})

describe('AdmissionError', () => {
  it('has a distinct, non-empty message for each code', () => {
    const messages = ADMISSION_CODE_LIST.map((code) => new AdmissionError(code).message)
    expect(new Set(messages).size).toBe(ADMISSION_CODE_LIST.length)
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
    const noOption = new AdmissionError('ERR_JSON_SYNTAX', { limit: 7 })
    expect(noOption.message).toContain('7')
    expect(noOption.message).not.toContain('undefined')
  })

  it('is named AdmissionError and serializes only the details that are set', () => {
    const aborted = new AdmissionError('ERR_BODY_ABORTED')
    expect(aborted.name).toBe('AdmissionError')
    expect(aborted).toBeInstanceOf(Error)
    expect(aborted.toJSON()).toStrictEqual({ code: 'ERR_BODY_ABORTED', message: aborted.message })
    const zero = new AdmissionError('ERR_JSON_SYNTAX', { offset: 0, path: '' })
    expect(zero.toJSON()).toStrictEqual({
      code: 'ERR_JSON_SYNTAX',
      status: 422,
      message: zero.message,
      path: '',
      offset: 0,
    })
  })
})

describe('isAdmissionError', () => {
  it('rejects a branded object whose code is not a string or is inherited from Object', () => {
    const forged = new AdmissionError('ERR_JSON_SYNTAX')
    Object.defineProperty(forged, 'code', { value: 42 })
    expect(isAdmissionError(forged)).toBe(false)
    const inherited = new AdmissionError('ERR_JSON_SYNTAX')
    Object.defineProperty(inherited, 'code', { value: 'toString' })
    expect(isAdmissionError(inherited)).toBe(false)
    const coerced = new AdmissionError('ERR_JSON_SYNTAX')
    Object.defineProperty(coerced, 'code', { value: { toString: () => 'ERR_JSON_SYNTAX' } })
    expect(isAdmissionError(coerced)).toBe(false)
    expect(isAdmissionError('ERR_JSON_SYNTAX')).toBe(false)
    expect(isAdmissionError(undefined)).toBe(false)
  })
})

describe('ADMISSION_DEFAULTS', () => {
  it('holds the byte boundaries of DESIGN.md', () => {
    const MiB = 1024 * 1024
    expect(ADMISSION_DEFAULTS).toMatchObject({
      restBodyBytes: 64 * MiB,
      restBodyBytesCeiling: 64 * MiB,
      mcpHttpBodyBytes: 4 * MiB,
      mcpHttpBodyBytesCeiling: 64 * MiB,
      stdioLineBytes: 64 * MiB,
      stdioLineBytesCeiling: 64 * MiB,
      toolResultBytes: 64 * MiB,
      toolResultEnvelopeReserveBytes: 1024,
      stringChunkCodeUnits: 4096,
    })
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
