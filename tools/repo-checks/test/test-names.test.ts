import { describe, expect, it } from 'vitest'
import { extractTestNames, hasTestName, unescapeJs } from '../src/test-names.js'

// Helper test: the parser the citation check relies on, driven over hand-written sources.
describe('extractTestNames', () => {
  it('reads it() and test() names in either quote style and as plain templates', () => {
    const names = extractTestNames(`
      it('single quoted', () => {})
      test("double quoted", () => {})
      it(\`template without substitutions\`, () => {})
      it.skip('skipped but declared', () => {})
      test.concurrent.only('chained modifiers', () => {})
    `)
    expect([...names.exact].sort()).toEqual([
      'chained modifiers',
      'double quoted',
      'single quoted',
      'skipped but declared',
      'template without substitutions',
    ])
  })

  it('reads names after a property call: it.prop([...])(name) and test.prop({...})(name)', () => {
    const names = extractTestNames(`
      it.prop([fc.string(), fc.array(fc.nat(), { maxLength: 3 })])('agrees with JSON.parse', (s) => {})
      test.prop({ a: fc.tuple(fc.nat(), fc.constant(')')) }, { numRuns: 10 })('survives a paren in a string', () => {})
    `)
    expect(names.exact.has('agrees with JSON.parse')).toBe(true)
    expect(names.exact.has('survives a paren in a string')).toBe(true)
  })

  it('unescapes the literal, so a cited name is compared with what vitest prints', () => {
    const names = extractTestNames(String.raw`
      it('doesn\'t echo the caller\'s bytes', () => {})
      it("refuses \"__proto__\" keys", () => {})
      it('refuses U+2028 \u2028 inside', () => {})
    `)
    expect(names.exact.has("doesn't echo the caller's bytes")).toBe(true)
    expect(names.exact.has('refuses "__proto__" keys')).toBe(true)
    expect(names.exact.has('refuses U+2028 \u2028 inside')).toBe(true)
  })

  it('turns substitutions and each() placeholders into patterns that match an expansion', () => {
    const names = extractTestNames(`
      it(\`admits depth \${limit} and refuses \${limit + 1}\`, () => {})
      it.each([1, 2])('splits at byte %i', (n) => {})
      it.each([{ code: 'A' }])('maps $code to its status', () => {})
    `)
    expect(names.exact.size).toBe(0)
    expect(hasTestName(names, 'admits depth 64 and refuses 65')).toBe(true)
    expect(hasTestName(names, 'admits depth 64 and refuses')).toBe(false)
    expect(hasTestName(names, 'splits at byte 3')).toBe(true)
    expect(hasTestName(names, 'maps ERR_X to its status')).toBe(true)
  })

  it('ignores names in comments, strings and regular expressions, and calls that are not tests', () => {
    const names = extractTestNames(`
      // it('commented out', () => {})
      /* test('block comment', () => {}) */
      const s = "it('inside a string')"
      const r = /it\\('inside a regex'\\)'/g
      obj.it('a method named it')
      const x = { it: 'a property' }
      describe('a describe block', () => {})
      it('the real one', () => {})
      // A comment that ends in a full stop.
      it('the one after a comment', () => {})
    `)
    expect([...names.exact]).toEqual(['the real one', 'the one after a comment'])
  })

  it('does not match a name that differs by one character', () => {
    const names = extractTestNames(`it('refuses the 100,001st node', () => {})`)
    expect(hasTestName(names, 'refuses the 100,001st node')).toBe(true)
    expect(hasTestName(names, 'refuses the 100,001st node.')).toBe(false)
    expect(hasTestName(names, 'Refuses the 100,001st node')).toBe(false)
  })
})

describe('unescapeJs', () => {
  it('cooks hex, unicode and simple escapes', () => {
    expect(unescapeJs(String.raw`a\x41\u0042\u{1F600}\n\\`)).toBe('aAB\u{1F600}\n\\')
  })
})
