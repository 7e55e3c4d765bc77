import { isStrictJson } from '@tollgate/test-kit/strict-json'
import { describe, expect, it } from 'vitest'
import { createPreflight } from '../src/index.js'
import { byteCuts, hex, verdict } from './helpers/preflight-runs.js'

// Unicode 15, Table 3-7 (well-formed UTF-8 byte sequences), one class at a time. Each sequence
// sits inside a JSON string: `"` + bytes + `"`. For refusals, `at` is the offset of the first
// byte that cannot continue a well-formed prefix (the quote is at offset 0).
const accepted: [string, string][] = [
  ['U+0000..U+007F: one byte (printable ASCII)', '41'],
  ['U+0080: C2 80, the smallest two-byte sequence', 'c280'],
  ['U+07FF: DF BF, the largest two-byte sequence', 'dfbf'],
  ['U+0800: E0 A0 80, E0 needs A0..BF second', 'e0a080'],
  ['U+1000..U+CFFF: E1..EC with 80..BF', 'e18080ecbfbf'],
  ['U+D7FF: ED 9F BF, the last before the surrogates', 'ed9fbf'],
  ['U+E000..U+FFFF: EE..EF with 80..BF', 'ee8080efbfbf'],
  ['U+10000: F0 90 80 80, F0 needs 90..BF second', 'f0908080'],
  ['U+40000..U+FFFFF: F1..F3 with 80..BF', 'f1808080f3bfbfbf'],
  ['U+10FFFF: F4 8F BF BF, the largest code point', 'f48fbfbf'],
  ['U+FEFF inside a string', 'efbbbf'],
]

const refused: [string, string, number][] = [
  ['a lone continuation byte 80', '80', 1],
  ['a lone continuation byte BF', 'bf', 1],
  ['overlong two-byte C0 80', 'c080', 1],
  ['overlong two-byte C1 BF', 'c1bf', 1],
  ['overlong three-byte E0 80 80', 'e08080', 2],
  ['overlong three-byte E0 9F BF', 'e09fbf', 2],
  ['UTF-8-encoded high surrogate ED A0 80 (U+D800)', 'eda080', 2],
  ['UTF-8-encoded low surrogate ED BF BF (U+DFFF)', 'edbfbf', 2],
  ['UTF-8-encoded surrogate pair ED A0 BD ED B2 A9', 'eda0bdedb2a9', 2],
  ['overlong four-byte F0 80 80 80', 'f0808080', 2],
  ['overlong four-byte F0 8F BF BF', 'f08fbfbf', 2],
  ['above U+10FFFF: F4 90 80 80', 'f4908080', 2],
  ['above U+10FFFF: F5 80 80 80', 'f5808080', 1],
  ['the bytes F8..FF (old five- and six-byte forms)', 'f888808080', 1],
  ['the byte FF', 'ff', 1],
  ['a two-byte sequence interrupted by ASCII', 'c241', 2],
  ['a three-byte sequence interrupted after two bytes', 'e4b841', 3],
  ['a four-byte sequence interrupted after three bytes', 'f09f9841', 4],
  ['a sequence interrupted by the closing quote', 'e4b8', 3],
  ['a second lead where a continuation belongs', 'e4e4b8ad', 2],
]

const inString = (bytes: string) => hex(`22${bytes}22`)

describe('preflight UTF-8 (Unicode Table 3-7)', () => {
  for (const [name, bytes] of accepted) {
    it(`admits ${name} at every split`, () => {
      const doc = inString(bytes)
      expect(isStrictJson(doc)).toBe(true)
      const whole = verdict(doc)
      expect(whole).toMatchObject({ ok: true })
      for (let cut = 0; cut <= doc.length; cut++) expect(verdict(doc, [cut])).toEqual(whole)
      expect(verdict(doc, byteCuts(doc.length))).toEqual(whole)
    })
  }

  for (const [name, bytes, at] of refused) {
    it(`refuses ${name} with ERR_JSON_INVALID_UTF8 at its offset, at every split`, () => {
      const doc = inString(bytes)
      expect(isStrictJson(doc)).toBe(false)
      const expected = { ok: false, code: 'ERR_JSON_INVALID_UTF8', offset: at, limit: undefined }
      expect(verdict(doc)).toEqual(expected)
      for (let cut = 0; cut <= doc.length; cut++) expect(verdict(doc, [cut])).toEqual(expected)
      expect(verdict(doc, byteCuts(doc.length))).toEqual(expected)
    })
  }

  it('refuses a sequence truncated by the end of input with ERR_JSON_INVALID_UTF8 at the end', () => {
    for (const bytes of ['22c2', '22e4b8', '22f09f98']) {
      const doc = hex(bytes)
      expect(verdict(doc)).toMatchObject({ code: 'ERR_JSON_INVALID_UTF8', offset: doc.length })
    }
  })

  it('validates the same classes inside a long string, where the whole-chunk check runs', () => {
    const pad = '中'.repeat(200)
    for (const [, bytes] of accepted) {
      const doc = Buffer.concat([Buffer.from(`["${pad}`), hex(bytes), Buffer.from(`${pad}"]`)])
      expect(verdict(doc)).toMatchObject({ ok: true })
      expect(verdict(doc, [301])).toMatchObject({ ok: true })
    }
    for (const [, bytes, at] of refused) {
      const prefix = Buffer.from(`["${pad}`)
      const doc = Buffer.concat([prefix, hex(bytes), Buffer.from(`${pad}"]`)])
      const expected = { code: 'ERR_JSON_INVALID_UTF8', offset: prefix.length + at - 1 }
      expect(verdict(doc)).toMatchObject(expected)
      expect(verdict(doc, [prefix.length + 1])).toMatchObject(expected)
    }
  })

  it('refuses ill-formed UTF-8 outside strings with ERR_JSON_INVALID_UTF8 where it starts', () => {
    expect(verdict(hex('5b312c'.concat('ff5d')))).toMatchObject({
      code: 'ERR_JSON_INVALID_UTF8',
      offset: 3,
    })
    expect(verdict(hex('5b80'))).toMatchObject({ code: 'ERR_JSON_INVALID_UTF8', offset: 1 })
  })

  it('refuses well-formed non-ASCII outside strings with ERR_JSON_SYNTAX where it starts', () => {
    expect(verdict(Buffer.from('[1,é]'))).toMatchObject({ code: 'ERR_JSON_SYNTAX', offset: 3 })
    expect(verdict(Buffer.from('1\u00a0'))).toMatchObject({ code: 'ERR_JSON_SYNTAX', offset: 1 })
  })

  it('refuses during push, not at end, at the first ill-formed byte', () => {
    const scanner = createPreflight()
    scanner.push(Buffer.from('["ok", "'))
    expect(() => scanner.push(hex('eda080'))).toThrow(
      expect.objectContaining({ code: 'ERR_JSON_INVALID_UTF8', offset: 9 }),
    )
  })
})
