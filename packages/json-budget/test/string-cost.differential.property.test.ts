import { fc, test } from '@fast-check/vitest'
import { describe, expect, it } from 'vitest'
import { chargeJson, jsonStringByteLength } from '../src/index.js'
import { escapeExtra, escapeExtraByUnit, shortStringCost } from '../src/string-cost.js'

// Every path of the string cost is held to the definition, Buffer.byteLength of
// JSON.stringify: the one-pass loop with its table of unit costs (strings of at most 32 units
// in the fast walk, and chunks up to 256 units that are not plain ASCII), and past 256 units
// the native passes (byte length, escapes counted over the bytes written into a scratch buffer
// four at a time, lone surrogates). The strings are drawn from every class a unit can be in:
// `"` and `\`, the two-character escapes, other C0 controls, U+007F, the edges of the table
// (U+07FF, U+0800) and of the surrogates (U+D7FF, U+E000), lone high and low surrogates,
// astral pairs, Latin-1, CJK, U+2028/2029, any BMP unit, in runs and alone. The scratch pass is
// also held to the loop over code units it replaces (the same module's reference).

const anchor = (s: string) => Buffer.byteLength(JSON.stringify(s))

const c0 = fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c))
const one = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('a', 'Z', ' ', '~', '/', '0') },
  { weight: 3, arbitrary: fc.constantFrom('"', '\\', '\b', '\t', '\n', '\f', '\r') },
  { weight: 2, arbitrary: c0 },
  { weight: 1, arbitrary: fc.constantFrom('\u007f', '\u0080', '\u07ff', '\u0800') },
  { weight: 1, arbitrary: fc.constantFrom('\ud7ff', '\ue000', '\ufeff', '\uffff', '\ufffd') },
  { weight: 1, arbitrary: fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff') },
  { weight: 1, arbitrary: fc.constantFrom('\ud83d\ude00', '\u{10ffff}', '\u{1f4a9}', '\u{10000}') },
  { weight: 1, arbitrary: fc.constantFrom('é', '\u00a0', 'ÿ', '\u0122', '\u015c', '\u0100') },
  { weight: 1, arbitrary: fc.constantFrom('中', '\u2028', '\u2029') },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
)
/** A unit alone, or a run of it (runs of escapes, of lone surrogates, of astral pairs). */
const unit = fc.oneof(
  { weight: 4, arbitrary: one },
  {
    weight: 1,
    arbitrary: fc.tuple(one, fc.integer({ min: 2, max: 40 })).map(([u, k]) => u.repeat(k)),
  },
)
const text = fc.array(unit, { maxLength: 120 }).map((units) => units.join(''))
/** Strings the fast walk charges in one inlined loop: at most 32 units, 33 to see the edge. */
const short = fc.array(one, { maxLength: 33 }).map((units) => units.join('').slice(0, 33))
/** A string past two scratch pieces: `text` repeated, shifted so pairs straddle piece edges. */
const long = fc
  .tuple(fc.array(unit, { minLength: 1, maxLength: 40 }), fc.integer({ min: 0, max: 3 }))
  .map(([units, shift]) => {
    const base = units.join('')
    return 'x'.repeat(shift) + base.repeat(Math.ceil(45_000 / base.length))
  })

describe('shortStringCost', () => {
  test.prop([short], { numRuns: 3000 })(
    'costs a string of at most 32 units as JSON.stringify writes it, and gives up past 32',
    (s) => {
      expect(shortStringCost(s)).toBe(s.length > 32 ? -1 : anchor(s))
    },
  )

  it('costs every BMP code unit alone, after an ASCII letter and before an astral pair', () => {
    const wrong: number[] = []
    for (let c = 0; c <= 0xffff; c++) {
      const u = String.fromCharCode(c)
      for (const s of [u, `a${u}`, `${u}\ud83d\ude00`]) {
        if (shortStringCost(s) !== anchor(s)) wrong.push(c)
      }
    }
    expect(wrong).toEqual([])
  })
})

describe('jsonStringByteLength', () => {
  test.prop([text], { numRuns: 2000 })(
    'counts escapes as the loop over code units does, and as JSON.stringify writes',
    (s) => {
      const ascii = Buffer.byteLength(s) === s.length
      expect(escapeExtra(s, ascii)).toBe(escapeExtraByUnit(s))
      expect(jsonStringByteLength(s)).toBe(anchor(s))
    },
  )

  test.prop([long], { numRuns: 25 })(
    'counts escapes across scratch pieces, pairs cut at their edges included',
    (s) => {
      expect(escapeExtra(s, Buffer.byteLength(s) === s.length)).toBe(escapeExtraByUnit(s))
      expect(jsonStringByteLength(s)).toBe(anchor(s))
      expect(chargeJson({ s }, { maxBytes: 1 << 30 }).bytes).toBe(anchor(s) + 6)
    },
  )

  it('counts several lone surrogates in long text without escapes, measured by native passes', () => {
    for (const text of ['a', 'é', '中', '\ud83d\ude00']) {
      for (const lone of ['\ud800', '\udfff']) {
        for (const count of [1, 2, 5]) {
          const s = Array.from({ length: count }, () => text.repeat(150) + lone).join('')
          expect([text, lone, count, jsonStringByteLength(s)]).toEqual([
            text,
            lone,
            count,
            anchor(s),
          ])
        }
      }
    }
  })

  it('counts every byte value below 0x80 as stringify escapes it', () => {
    for (let c = 0; c < 0x80; c++) {
      const s = String.fromCharCode(c).repeat(40)
      expect([c, jsonStringByteLength(s)]).toEqual([c, anchor(s)])
    }
  })
})

describe('chargeJson', () => {
  // Records sharing their keys (the key memo), keys and values of every class, and values past
  // the 32-unit loop: the byte figure is the length of the serialized value, as promised.
  const record = fc.dictionary(fc.oneof(short, text), fc.oneof(short, text), { maxKeys: 5 })
  test.prop([fc.array(record, { maxLength: 30 }), fc.array(short, { maxLength: 30 })], {
    numRuns: 500,
  })(
    'charges records and arrays of strings of every class as their serialized size',
    (records, strings) => {
      const value = { records, strings, again: records }
      expect(chargeJson(value, { maxBytes: 1 << 30 }).bytes).toBe(
        Buffer.byteLength(JSON.stringify(value)),
      )
    },
  )
})
