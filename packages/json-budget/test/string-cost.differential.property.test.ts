import { fc, test } from '@fast-check/vitest'
import { describe, expect, it } from 'vitest'
import { chargeJson, jsonStringByteLength } from '../src/index.js'
import { escapeExtra, escapeExtraByUnit } from '../src/string-cost.js'

// The escape cost of a chunk past 256 units is counted over its bytes written natively into a
// scratch buffer (Latin-1 for ASCII, else UTF-8, in pieces of 21,840 units), four bytes a test,
// not one code unit at a time. It is held to the loop over code units it replaces (switched in
// by name: the same module's reference) and to the definition, Buffer.byteLength of
// JSON.stringify, over strings drawn from every escape class, lone surrogates, astral
// characters, Latin-1, CJK and U+2028/2029, short and long enough to cross the pieces.

const anchor = (s: string) => Buffer.byteLength(JSON.stringify(s))

const c0 = fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c))
const unit = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('a', 'Z', ' ', '~', '/', '0') },
  { weight: 3, arbitrary: fc.constantFrom('"', '\\', '\b', '\t', '\n', '\f', '\r') },
  { weight: 2, arbitrary: c0 },
  { weight: 1, arbitrary: fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff') },
  { weight: 1, arbitrary: fc.constantFrom('\ud83d\ude00', '\u{10ffff}', '\u{1f4a9}') },
  { weight: 1, arbitrary: fc.constantFrom('é', '\u00a0', 'ÿ', '\u0122', '\u015c', '\u0100') },
  { weight: 1, arbitrary: fc.constantFrom('中', '\u2028', '\u2029', '\ufeff', '\uffff') },
)
const text = fc.array(unit, { maxLength: 300 }).map((units) => units.join(''))
/** A string past one scratch piece: `text` repeated, shifted so pairs straddle piece edges. */
const long = fc
  .tuple(fc.array(unit, { minLength: 1, maxLength: 40 }), fc.integer({ min: 0, max: 3 }))
  .map(([units, shift]) => {
    const base = units.join('')
    return 'x'.repeat(shift) + base.repeat(Math.ceil(50_000 / base.length))
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

  test.prop([long], { numRuns: 60 })(
    'counts escapes across scratch pieces, pairs cut at their edges included',
    (s) => {
      expect(escapeExtra(s, Buffer.byteLength(s) === s.length)).toBe(escapeExtraByUnit(s))
      expect(jsonStringByteLength(s)).toBe(anchor(s))
      expect(chargeJson({ s }, { maxBytes: 1 << 30 }).bytes).toBe(anchor(s) + 6)
    },
  )

  it('counts every byte value below 0x80 as stringify escapes it', () => {
    for (let c = 0; c < 0x80; c++) {
      const s = String.fromCharCode(c).repeat(40)
      expect([c, jsonStringByteLength(s)]).toEqual([c, anchor(s)])
    }
  })
})
