import { readFileSync } from 'node:fs'
import { tableUnder, unquote } from '@tollgate/test-kit/markdown-table'
import { describe, expect, it } from 'vitest'
import {
  ADMISSION_DEFAULTS,
  formatPointer,
  formatPointerSegment,
  JSON_LIMITS_DEFAULTS,
  resolveJsonLimits,
} from '../src/index.js'

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
    const rows = tableUnder(readme, 'Options (JsonLimitsOptions)')
    const row = (name: string): string => {
      const found = rows.find((r) => unquote(r.option ?? '') === name)
      if (found === undefined) throw new Error(`no README row for ${name}`)
      return found['Default:'] ?? ''
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
