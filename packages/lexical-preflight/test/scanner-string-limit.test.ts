import { describe, expect, it } from 'vitest'
import { differences, utf8 } from './helpers/every-scanner.js'

// maxStringBytes counts a string's raw bytes between its quotes (escapes as written, a character in
// its UTF-8 bytes) and refuses at the first byte past the limit, with that byte's offset: whatever
// token filled the string up to the limit (plain bytes, a two-byte escape, a \u escape, a two-byte
// character) and whatever token the next byte begins. The JS scanner (src/scanner.ts) checks the
// limit in separate places for each (its string loop, the escape loop, and the escape, \u digit and
// UTF-8 states it falls back to when a token is cut), so every pair is tried, whole, at every two-
// chunk split and one byte a push, through the three scanners createPreflight picks from, asserting
// code, limit and offset.

// Raw string bodies (as written between the quotes).
const FILLS = ['ab', '\\n', '\\u0041', 'é'] // 2, 2, 6 and 2 raw bytes
const NEXT = ['x', '\\n', '\\u0041', 'é', '\\\\']
// Bodies holding each kind of token, for limits that fall inside them.
const CUT = ['a\\nb\\u00e9c', 'é中😀', '\\\\\\"\\uD83D\\uDE00']

describe('maxStringBytes, at the token that fills the string and the one after it', () => {
  it('admits a string that the token fills exactly to the limit', () => {
    const bad: string[] = []
    for (const fill of FILLS) {
      const limit = utf8(fill).length
      const doc = utf8(`["${fill}"]`)
      bad.push(...differences(doc, { maxStringBytes: limit }, { ok: true, nodes: 2 }, fill))
    }
    expect(bad).toEqual([])
  })

  it('refuses one more token with ERR_JSON_STRING_TOO_LONG at the offset of its first byte', () => {
    const bad: string[] = []
    for (const fill of FILLS) {
      for (const next of NEXT) {
        const limit = utf8(fill).length
        const doc = utf8(`["${fill}${next}"]`)
        const want = { ok: false, code: 'ERR_JSON_STRING_TOO_LONG', limit, offset: 2 + limit }
        bad.push(...differences(doc, { maxStringBytes: limit }, want, `${fill} then ${next}`))
      }
    }
    expect(bad).toEqual([])
  })

  it('refuses a token cut by the limit with ERR_JSON_STRING_TOO_LONG at its first byte past it', () => {
    // Under each limit shorter than the body the limit falls inside each of its tokens in turn:
    // after a backslash, inside a \u escape's digits, inside a two-, three- or four-byte character.
    const bad: string[] = []
    for (const body of CUT) {
      for (let limit = 0; limit < utf8(body).length; limit++) {
        const doc = utf8(`["${body}"]`)
        const want = { ok: false, code: 'ERR_JSON_STRING_TOO_LONG', limit, offset: 2 + limit }
        bad.push(...differences(doc, { maxStringBytes: limit }, want, `${body} under ${limit}`))
      }
    }
    expect(bad).toEqual([])
  })

  it('refuses the string past the limit before a later ill-formed UTF-8 byte in the same chunk', () => {
    // The 0xFF later in the chunk: UTF-8 in the string is then judged byte by byte, not
    // vouched for in bulk, and the first failure in the input is still the one reported.
    const bad: string[] = []
    const cases: [string, number][] = []
    for (const fill of FILLS) for (const next of NEXT) cases.push([fill + next, utf8(fill).length])
    for (const body of CUT) for (let k = 0; k < utf8(body).length; k++) cases.push([body, k])
    for (const [body, limit] of cases) {
      const head = utf8(`["${body}","`)
      const doc = new Uint8Array([...head, 0xff, ...utf8('"]')])
      const want = { ok: false, code: 'ERR_JSON_STRING_TOO_LONG', limit, offset: 2 + limit }
      bad.push(...differences(doc, { maxStringBytes: limit }, want, `${body} under ${limit}, 0xFF`))
    }
    expect(bad).toEqual([])
  })
})
