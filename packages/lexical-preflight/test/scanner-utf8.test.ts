import { describe, expect, it } from 'vitest'
import { differences as differencesUnder } from './helpers/every-scanner.js'

// The edges of Unicode Table 3-7 (well-formed UTF-8 byte sequences) inside a string, through
// the JS scanner (src/scanner.ts) as well as the WebAssembly one. The JS scanner lets
// `isUtf8` vouch for a chunk's string bytes in bulk and judges byte by byte only where it
// cannot: a chunk holding an ill-formed sequence, or a sequence cut by the chunk's end. So each
// sequence is pushed whole, at every two-chunk split and one byte a push: the cuts send every
// lead byte and its second byte through the byte-by-byte validator, whose lead ranges and
// second-byte ranges (E0, ED, F0, F4) must be the table's. Asserted with code and offset.

/** `["` + the bytes (hex) + `"]`. */
function inString(hex: string): Uint8Array {
  return Uint8Array.from([0x5b, 0x22, ...Buffer.from(hex, 'hex'), 0x22, 0x5d])
}

/** Every (scanner, split) whose outcome on `doc` under the defaults differs from `want`. */
const differences = (doc: Uint8Array, want: object, label: string) =>
  differencesUnder(doc, {}, want, label)

// The smallest and largest sequence of each lead range, and each restricted second byte.
const WELL_FORMED = [
  'c280', // U+0080, C2 the first two-byte lead
  'dfbf', // U+07FF, DF the last
  'e0a080', // U+0800: after E0 the second byte is A0..BF
  'e0bfbf',
  'e18080',
  'ed9fbf', // U+D7FF: after ED it is 80..9F (no surrogates)
  'ee8080',
  'efbfbf',
  'f0908080', // U+10000: after F0 it is 90..BF
  'f0bfbfbf',
  'f1808080',
  'f48fbfbf', // U+10FFFF: after F4 it is 80..8F
]

// [bytes, index of the first byte that cannot continue a well-formed prefix]
const ILL_FORMED: ReadonlyArray<readonly [string, number]> = [
  ['c080', 0], // C0 and C1 lead only overlong forms
  ['c1bf', 0],
  ['e08080', 1], // overlong: E0 takes A0..BF
  ['e09fbf', 1],
  ['eda080', 1], // a surrogate: ED takes 80..9F
  ['f0808080', 1], // overlong: F0 takes 90..BF
  ['f08fbfbf', 1],
  ['f4908080', 1], // above U+10FFFF: F4 takes 80..8F
  ['f5808080', 0],
  ['c2c280', 1], // a lead where a continuation byte must be
  ['e0a0', 2], // cut short by the closing quote
]

describe('UTF-8 in strings at the edges of Table 3-7, through every scanner and chunking', () => {
  it('admits the first and last sequence of each lead range', () => {
    const bad: string[] = []
    for (const hex of WELL_FORMED)
      bad.push(...differences(inString(hex), { ok: true, nodes: 2 }, hex))
    expect(bad).toEqual([])
  })

  it('refuses an overlong, surrogate or out-of-range sequence with ERR_JSON_INVALID_UTF8 at its first bad byte', () => {
    const bad: string[] = []
    for (const [hex, at] of ILL_FORMED) {
      const want = { ok: false, code: 'ERR_JSON_INVALID_UTF8', offset: 2 + at }
      bad.push(...differences(inString(hex), want, hex))
    }
    expect(bad).toEqual([])
  })
})
