import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  ADMISSION_DEFAULTS,
  DEFAULT_JSON_LIMITS,
  ensureLimits,
  formatPointer,
  formatPointerSegment,
  resolveLimits,
} from '../src/index.js'

describe('resolveLimits', () => {
  it('fills a partial object from DEFAULT_JSON_LIMITS and freezes it', () => {
    const limits = resolveLimits({ maxDepth: 8 })
    expect(limits).toEqual({ maxNodes: 100_000, maxDepth: 8, maxBytes: 64 * 1024 * 1024 })
    expect(Object.isFrozen(limits)).toBe(true)
  })

  it('rejects negative, fractional, NaN and non-number limits with a TypeError', () => {
    for (const bad of [-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, '1', null]) {
      expect(() => resolveLimits({ maxNodes: bad as number })).toThrow(TypeError)
    }
    expect(() => resolveLimits({ maxBytes: 0 })).toThrow(TypeError)
    expect(resolveLimits({ maxDepth: 0 }).maxDepth).toBe(0)
  })

  it('refuses a limit above the ceiling it is given', () => {
    expect(() =>
      resolveLimits({ maxBytes: 2048 }, { ...DEFAULT_JSON_LIMITS, maxBytes: 1024 }),
    ).toThrow(TypeError)
  })
})

describe('DEFAULT_JSON_LIMITS', () => {
  it('matches the options table in the README', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    const row = (name: string): string => {
      const match = readme.match(new RegExp(`^\\| \`${name}\` \\|[^|]*\\| ([^|]+) \\|`, 'm'))
      if (!match) throw new Error(`no README row for ${name}`)
      return match[1]!.trim()
    }
    expect(row('maxNodes')).toBe(DEFAULT_JSON_LIMITS.maxNodes.toLocaleString('en-US'))
    expect(row('maxDepth')).toBe(String(DEFAULT_JSON_LIMITS.maxDepth))
    expect(row('maxBytes')).toBe(`${DEFAULT_JSON_LIMITS.maxBytes / 1024 / 1024} MiB`)
  })

  it('is frozen, as is ADMISSION_DEFAULTS', () => {
    expect(Object.isFrozen(DEFAULT_JSON_LIMITS)).toBe(true)
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

describe('ensureLimits', () => {
  it('returns an object resolveLimits produced as it is, and validates anything else', () => {
    const resolved = resolveLimits({ maxDepth: 3 })
    expect(ensureLimits(resolved)).toBe(resolved)
    expect(ensureLimits(undefined)).toBe(DEFAULT_JSON_LIMITS)
    const partial = { maxDepth: 3 }
    const filled = ensureLimits(partial)
    expect(filled).not.toBe(partial)
    expect(filled).toEqual(resolved)
    expect(() => ensureLimits({ maxDepth: -1 })).toThrow(TypeError)
    // A look-alike that resolveLimits never returned is validated, not trusted.
    expect(() => ensureLimits(Object.freeze({ maxNodes: -1, maxDepth: 1, maxBytes: 1 }))).toThrow(
      TypeError,
    )
  })
})
