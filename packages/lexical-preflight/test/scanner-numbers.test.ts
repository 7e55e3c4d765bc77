import { describe, expect, it } from 'vitest'
import { differences as differencesUnder, utf8 } from './helpers/every-scanner.js'

// The number grammar of RFC 8259 §6, -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?:
// a character that cannot continue the number where it stands is refused as a syntax error
// at that character (or at the end of the input for a number cut short there). The JS scanner
// (src/scanner.ts) reads a number whole when it fits in the chunk and one character at a time
// through its number states when a chunk ends inside it, so each text is pushed whole, at
// every two-chunk split and one byte a push, in an array and alone, through the three scanners
// createPreflight picks from, asserting code and offset.

/** Every (scanner, split) whose outcome on `doc` under the defaults differs from `want`. */
const differences = (doc: Uint8Array, want: object, label: string) =>
  differencesUnder(doc, {}, want, label)

// [text, index of the first character that cannot continue it]
const MALFORMED: ReadonlyArray<readonly [string, number]> = [
  ['1e+5e3', 4], // one exponent only, after a signed one as after an unsigned one
  ['1e-5E3', 4],
  ['2E09e1', 4],
  ['1e+5.3', 4], // no fraction after an exponent
  ['1.5.2', 3],
  ['1.e5', 2], // a point needs a digit after it
  ['1e,2', 2], // an exponent marker needs a digit (after an optional sign)
  ['1e 2', 2],
  ['1E+-2', 3],
  ['-a', 1],
  ['01', 1],
]

describe('numbers, one character at a time through every scanner and chunking', () => {
  it('refuses a character that cannot continue the number with ERR_JSON_SYNTAX at that character', () => {
    const bad: string[] = []
    for (const [text, at] of MALFORMED) {
      const syntax = (offset: number) => ({ ok: false, code: 'ERR_JSON_SYNTAX', offset })
      bad.push(...differences(utf8(`[${text}]`), syntax(1 + at), `[${text}]`))
      bad.push(...differences(utf8(text), syntax(at), text))
    }
    expect(bad).toEqual([])
  })

  it('admits every part of the grammar, with the digits 0 and 9 in each part', () => {
    const bad: string[] = []
    for (const text of ['-0', '-9', '90.09e+09', '1.23456789E-98765', '5e9', '0.0e0', '-10E+1']) {
      bad.push(...differences(utf8(`[${text}]`), { ok: true, nodes: 2 }, `[${text}]`))
      bad.push(...differences(utf8(text), { ok: true, nodes: 1 }, text))
    }
    expect(bad).toEqual([])
  })
})
