import { describe, expect, it } from 'vitest'
import { differences as differencesUnder, utf8 } from './helpers/every-scanner.js'

// A `\u` escape takes exactly four hexadecimal digits (RFC 8259 §7): one other character among
// them is refused as a syntax error at that character. The JS scanner (src/scanner.ts) reads a
// whole escape at once when it fits in the chunk and falls back to one byte at a time when it
// does not, so each bad digit is tried whole, at every two-chunk split and one byte a push,
// after text of hex digits and letters (a check that read the wrong byte would find a digit
// there), through the three scanners createPreflight picks from, asserting code and offset.

/** Every (scanner, split) whose outcome on `doc` under the defaults differs from `want`. */
const differences = (doc: Uint8Array, want: object, label: string) =>
  differencesUnder(doc, {}, want, label)

// Text before the escape: none, hex digits, letters that are hex digits, other letters.
const BEFORE = ['', '0123', 'abcd', 'wxyz']
const BAD = ['g', 'Z', ':', ' ']

describe('\\u escapes in strings', () => {
  it('admits four hex digits of either case after any text', () => {
    const bad: string[] = []
    for (const before of BEFORE) {
      for (const digits of ['0041', 'aBcD', 'FFFF']) {
        const doc = utf8(`["${before}\\u${digits}"]`)
        bad.push(...differences(doc, { ok: true, nodes: 2 }, `${before}\\u${digits}`))
      }
    }
    expect(bad).toEqual([])
  })

  it('refuses a non-hex character at any of the four digits with ERR_JSON_SYNTAX at that character', () => {
    const bad: string[] = []
    for (const before of BEFORE) {
      for (let k = 0; k < 4; k++) {
        for (const c of BAD) {
          const digits = `${'0041'.slice(0, k)}${c}${'0041'.slice(k + 1)}`
          const doc = utf8(`["${before}\\u${digits}"]`)
          // `["`, the text, `\u`, then the digits.
          const offset = 2 + before.length + 2 + k
          const want = { ok: false, code: 'ERR_JSON_SYNTAX', offset }
          bad.push(...differences(doc, want, `${before}\\u${digits}`))
        }
      }
    }
    expect(bad).toEqual([])
  })
})
