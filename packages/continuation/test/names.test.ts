// The name grammar at its bounds, through the exported predicates. Resolution refuses an
// out-of-grammar name anyway (it is not in the route's table), so these bounds are only
// observable here; written for the survivors of the Stryker run recorded in jobs/mutation/records/continuation.md.
import { describe, expect, it } from 'vitest'
import {
  compilePattern,
  composeToolName,
  isNameSegment,
  isToolName,
  MAX_SEGMENT_LENGTH,
  MAX_SEGMENTS,
} from '../src/index.js'

const seg = (n: number) => 'a'.repeat(n)
const segments = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`)

describe('isNameSegment', () => {
  it('accepts a segment of 64 characters and refuses 65, the empty string and non-strings', () => {
    expect(MAX_SEGMENT_LENGTH).toBe(64)
    expect(isNameSegment(seg(64))).toBe(true)
    expect(isNameSegment(seg(65))).toBe(false)
    expect(isNameSegment('')).toBe(false)
    expect(isNameSegment(42)).toBe(false)
    expect(isNameSegment(['a'])).toBe(false)
  })
})

describe('isToolName', () => {
  it('accepts 8 segments and refuses 9', () => {
    expect(MAX_SEGMENTS).toBe(8)
    expect(isToolName(segments(8).join('.'))).toBe(true)
    expect(isToolName(segments(9).join('.'))).toBe(false)
  })

  it('accepts the longest name (8 segments of 64 characters, 519 characters)', () => {
    const longest = Array.from({ length: 8 }, () => seg(64)).join('.')
    expect(longest).toHaveLength(519)
    expect(isToolName(longest)).toBe(true)
  })

  it('refuses the empty name and a name longer than the longest possible one', () => {
    expect(isToolName('')).toBe(false)
    expect(isToolName('a'.repeat(600))).toBe(false)
    expect(isToolName(Array.from({ length: 8 }, () => seg(70)).join('.'))).toBe(false)
  })

  it('returns false for a non-string instead of throwing', () => {
    for (const value of [42, null, undefined, { length: 3 }, ['a']]) {
      expect(isToolName(value)).toBe(false)
    }
  })
})

describe('composeToolName', () => {
  it('composes up to 8 segments and refuses none or 9', () => {
    expect(composeToolName(segments(8))).toBe(segments(8).join('.'))
    expect(composeToolName(segments(9))).toBeUndefined()
    expect(composeToolName([])).toBeUndefined()
    expect(composeToolName(['a', 42])).toBeUndefined()
  })
})

describe('compilePattern', () => {
  it('compiles a pattern of 8 segments and throws a TypeError for 9', () => {
    expect(compilePattern(segments(8).join('.')).matches(segments(8).join('.'))).toBe(true)
    expect(() => compilePattern(segments(9).join('.'))).toThrow(TypeError)
    expect(compilePattern('a.*').source).toBe('a.*')
  })
})
