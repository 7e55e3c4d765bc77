import { readFileSync } from 'node:fs'
import { tableUnder, unquote } from '@tollgate/test-kit/markdown-table'
import { describe, expect, it } from 'vitest'
import {
  ADMISSION_DEFAULTS,
  assertLimit,
  formatPointer,
  formatPointerSegment,
  JSON_LIMIT_KEYS,
  JSON_LIMITS,
  JSON_LIMITS_DEFAULTS,
  resolveJsonLimits,
} from '../src/index.js'
import { messageOf } from './helpers/type-error.js'

describe('resolveJsonLimits', () => {
  it('fills a partial object from JSON_LIMITS_DEFAULTS and freezes it', () => {
    const limits = resolveJsonLimits({ maxDepth: 8 })
    expect(limits).toEqual({ maxNodes: 100_000, maxDepth: 8, maxBytes: 64 * 1024 * 1024 })
    expect(Object.isFrozen(limits)).toBe(true)
  })

  it('rejects negative, fractional, NaN and non-number limits with a TypeError', () => {
    for (const bad of [-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, '1', null]) {
      expect(() => resolveJsonLimits({ maxNodes: bad as number })).toThrow(TypeError)
    }
    expect(() => resolveJsonLimits({ maxBytes: 0 })).toThrow(TypeError)
    expect(resolveJsonLimits({ maxDepth: 0 }).maxDepth).toBe(0)
  })

  it('refuses a limit above the ceiling it is given', () => {
    expect(() =>
      resolveJsonLimits({ maxBytes: 2048 }, { ...JSON_LIMITS_DEFAULTS, maxBytes: 1024 }),
    ).toThrow(TypeError)
  })
})

describe('JSON_LIMITS_DEFAULTS', () => {
  it('matches the options table in the README', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    expect(readme).toContain(JSON_LIMITS.markdown())
    const rows = tableUnder(readme, 'Options (JsonLimitsOptions)')
    const row = (name: string): string => {
      const found = rows.find((r) => unquote(r.option ?? '') === name)
      if (found === undefined) throw new Error(`no README row for ${name}`)
      return found.default ?? ''
    }
    expect(row('maxNodes')).toBe(JSON_LIMITS_DEFAULTS.maxNodes.toLocaleString('en-US'))
    expect(row('maxDepth')).toBe(String(JSON_LIMITS_DEFAULTS.maxDepth))
    expect(row('maxBytes')).toBe(`${JSON_LIMITS_DEFAULTS.maxBytes / 1024 / 1024} MiB`)
  })

  it('is frozen, as is ADMISSION_DEFAULTS', () => {
    expect(Object.isFrozen(JSON_LIMITS_DEFAULTS)).toBe(true)
    expect(Object.isFrozen(ADMISSION_DEFAULTS)).toBe(true)
    expect(ADMISSION_DEFAULTS.mcpHttpBodyBytes).toBe(4 * 1024 * 1024)
    expect(ADMISSION_DEFAULTS.toolResultEnvelopeReserveBytes).toBe(1024)
  })
})

describe('formatPointer', () => {
  it('escapes ~ and / as RFC 6901 asks', () => {
    expect(formatPointer(['a/b', 'c~d', 0])).toBe('/a~1b/c~0d/0')
    expect(formatPointer([])).toBe('')
  })

  it('replaces long or non-printable segments by their length', () => {
    expect(formatPointerSegment('x'.repeat(65))).toBe('<65 chars>')
    expect(formatPointerSegment('x'.repeat(64))).toBe('x'.repeat(64))
    expect(formatPointerSegment('a\u0000b')).toBe('<3 chars>')
    expect(formatPointerSegment('é')).toBe('<1 chars>')
  })
})

describe('resolveJsonLimits', () => {
  it('returns an object resolveJsonLimits produced as it is, and validates anything else', () => {
    const resolved = resolveJsonLimits({ maxDepth: 3 })
    expect(resolveJsonLimits(resolved)).toBe(resolved)
    expect(resolveJsonLimits(undefined)).toBe(JSON_LIMITS_DEFAULTS)
    expect(resolveJsonLimits(JSON_LIMITS_DEFAULTS)).toBe(JSON_LIMITS_DEFAULTS)
    expect(resolveJsonLimits({})).toBe(JSON_LIMITS_DEFAULTS)
    expect(resolveJsonLimits({ maxNodes: undefined, profile: 'mcp' } as never)).toBe(
      JSON_LIMITS_DEFAULTS,
    )
    const partial = { maxDepth: 3 }
    const filled = resolveJsonLimits(partial)
    expect(filled).not.toBe(partial)
    expect(filled).toEqual(resolved)
    expect(() => resolveJsonLimits({ maxDepth: -1 })).toThrow(TypeError)
    // A look-alike that resolveJsonLimits never returned is validated, not trusted.
    expect(() =>
      resolveJsonLimits(Object.freeze({ maxNodes: -1, maxDepth: 1, maxBytes: 1 })),
    ).toThrow(TypeError)
  })

  it('checks the ceiling on every call, a resolved object included', () => {
    const ceiling = resolveJsonLimits({ maxNodes: 10, maxDepth: 5, maxBytes: 100 })
    const within = resolveJsonLimits({ maxNodes: 10, maxDepth: 5, maxBytes: 100 })
    expect(resolveJsonLimits(within, ceiling)).toBe(within)
    expect(() => resolveJsonLimits(undefined, ceiling)).toThrow(TypeError)
    expect(() => resolveJsonLimits(JSON_LIMITS_DEFAULTS, ceiling)).toThrow(TypeError)
    const above = resolveJsonLimits({ maxNodes: 11, maxDepth: 5, maxBytes: 100 })
    expect(() => resolveJsonLimits(above, ceiling)).toThrow(/maxNodes/)
    // Resolved once without a ceiling, the same object is still refused by one.
    expect(resolveJsonLimits(above)).toBe(above)
  })

  it('reads only the three limits of a wider options object', () => {
    const wider = { maxDepth: 2, duplicateKeys: 'refuse', profile: 'mcp' }
    expect(resolveJsonLimits(wider)).toEqual({ ...JSON_LIMITS_DEFAULTS, maxDepth: 2 })
  })

  it('names the limit in its TypeError and treats only undefined as the default', () => {
    expect(() => resolveJsonLimits({ maxBytes: null as never })).toThrow(/maxBytes/)
    expect(() => resolveJsonLimits({ maxNodes: 0 })).toThrow(/maxNodes/)
  })
})

// The TypeError's text is what a caller reads at start-up: it names the limit, says what is
// admitted and what was given (a number as written, anything else by its type only).
describe('assertLimit', () => {
  it('returns a positive safe integer, and 0 only when allowZero is set', () => {
    expect(assertLimit('maxWidgets', 1)).toBe(1)
    expect(assertLimit('maxWidgets', Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER)
    expect(assertLimit('maxWidgets', 0, true)).toBe(0)
    expect(messageOf(() => assertLimit('maxWidgets', 0))).toBe(
      'maxWidgets must be a positive safe integer, got 0',
    )
  })

  it('names the limit, what it admits and the number or type it was given', () => {
    const cases: [unknown, boolean, string][] = [
      [-1, false, 'maxWidgets must be a positive safe integer, got -1'],
      [-1, true, 'maxWidgets must be a non-negative safe integer, got -1'],
      [0.5, true, 'maxWidgets must be a non-negative safe integer, got 0.5'],
      [Number.NaN, false, 'maxWidgets must be a positive safe integer, got NaN'],
      [
        Number.MAX_SAFE_INTEGER + 1,
        false,
        'maxWidgets must be a positive safe integer, got 9007199254740992',
      ],
      ['1', false, 'maxWidgets must be a positive safe integer, got string'],
      [null, false, 'maxWidgets must be a positive safe integer, got object'],
      [undefined, true, 'maxWidgets must be a non-negative safe integer, got undefined'],
      [1n, false, 'maxWidgets must be a positive safe integer, got bigint'],
    ]
    for (const [value, allowZero, message] of cases) {
      expect(messageOf(() => assertLimit('maxWidgets', value, allowZero))).toBe(message)
    }
  })
})

describe('resolveJsonLimits', () => {
  it('validates each limit set alone, and fills the other two from the defaults', () => {
    expect(resolveJsonLimits({ maxNodes: 7 })).toEqual({ ...JSON_LIMITS_DEFAULTS, maxNodes: 7 })
    expect(resolveJsonLimits({ maxDepth: 7 })).toEqual({ ...JSON_LIMITS_DEFAULTS, maxDepth: 7 })
    expect(resolveJsonLimits({ maxBytes: 7 })).toEqual({ ...JSON_LIMITS_DEFAULTS, maxBytes: 7 })
    expect(messageOf(() => resolveJsonLimits({ maxNodes: -1 }))).toBe(
      'maxNodes must be a positive safe integer, got -1',
    )
    expect(messageOf(() => resolveJsonLimits({ maxDepth: -1 }))).toBe(
      'maxDepth must be a non-negative safe integer, got -1',
    )
    expect(messageOf(() => resolveJsonLimits({ maxBytes: -1 }))).toBe(
      'maxBytes must be a positive safe integer, got -1',
    )
  })

  it('refuses limits that are not an object, saying so', () => {
    for (const bad of [null, 'maxBytes', 3]) {
      expect(messageOf(() => resolveJsonLimits(bad as never))).toBe('limits must be an object')
    }
  })

  it('checks each of the three limits against the ceiling, equal admitted, naming the limit and both figures', () => {
    const ceiling = resolveJsonLimits({ maxNodes: 10, maxDepth: 5, maxBytes: 100 })
    expect(resolveJsonLimits({ maxNodes: 10, maxDepth: 5, maxBytes: 100 }, ceiling)).toEqual(
      ceiling,
    )
    expect(
      messageOf(() => resolveJsonLimits({ maxNodes: 11, maxDepth: 5, maxBytes: 100 }, ceiling)),
    ).toBe('maxNodes may not exceed 10, got 11')
    expect(
      messageOf(() => resolveJsonLimits({ maxNodes: 10, maxDepth: 6, maxBytes: 100 }, ceiling)),
    ).toBe('maxDepth may not exceed 5, got 6')
    expect(
      messageOf(() => resolveJsonLimits({ maxNodes: 10, maxDepth: 5, maxBytes: 101 }, ceiling)),
    ).toBe('maxBytes may not exceed 100, got 101')
  })
})

describe('ADMISSION_DEFAULTS', () => {
  it('holds every transport boundary, in bytes (MiB = 1,048,576)', () => {
    const MiB = 1_048_576
    expect(ADMISSION_DEFAULTS).toStrictEqual({
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
    expect(JSON_LIMITS_DEFAULTS).toStrictEqual({
      maxNodes: 100_000,
      maxDepth: 64,
      maxBytes: 64 * MiB,
    })
  })
})

describe('JSON_LIMIT_KEYS', () => {
  it('names the three limits, frozen', () => {
    expect(JSON_LIMIT_KEYS).toEqual(['maxNodes', 'maxDepth', 'maxBytes'])
    expect(Object.isFrozen(JSON_LIMIT_KEYS)).toBe(true)
  })
})
