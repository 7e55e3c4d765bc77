import { isAdmissionError } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { createPreflight } from '../src/index.js'
import { PreflightScanner } from '../src/scanner.js'
import { WasmPreflightScanner } from '../src/wasm-scanner.js'
import { both, encode } from './helpers/differential.js'

// Tests written for survivors of the AssemblyScript mutants (jobs/mutation/assembly-mutants.mjs,
// jobs/mutation/records/lexical-preflight-wasm.md): byte classes of the WebAssembly scanner that random
// and corpus inputs rarely reach, checked exhaustively over all 256 byte values through
// createPreflight (the WebAssembly scanner for these options), in one push and split just
// before the byte judged (the split sends it through the scanner's byte-by-byte states); where
// the expected outcome is the whole grammar's, the JS scanner (src/scanner.ts) is the oracle.
// The two larger tests get a 120 s budget: about a second each, but the shared machine starves.

type Verdict = { ok: true } | { ok: false; code: string; offset: number | undefined }

function verdict(bytes: Uint8Array, cut?: number): Verdict {
  const scanner = createPreflight()
  try {
    if (cut === undefined) scanner.push(bytes)
    else {
      scanner.push(bytes.subarray(0, cut))
      scanner.push(bytes.subarray(cut))
    }
    scanner.end()
    return { ok: true }
  } catch (error) {
    if (!isAdmissionError(error)) throw error
    return { ok: false, code: error.code, offset: error.offset }
  }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const isHexByte = (b: number) => /^[0-9a-fA-F]$/.test(String.fromCharCode(b))

/** Every outcome that differs from `want`, labelled, over one push and the split before `at`. */
function differences(label: string, bytes: Uint8Array, at: number, want: Verdict): string[] {
  const out: string[] = []
  for (const cut of [undefined, at]) {
    const got = verdict(bytes, cut)
    if (JSON.stringify(got) !== JSON.stringify(want))
      out.push(`${label} cut ${cut ?? '-'}: ${JSON.stringify(got)}`)
  }
  return out
}

/** Unicode Table 3-7: the range of the second byte after lead byte `lead`, and the length. */
function sequenceOf(lead: number): { length: number; lo: number; hi: number } | null {
  if (lead >= 0xc2 && lead <= 0xdf) return { length: 2, lo: 0x80, hi: 0xbf }
  if (lead >= 0xe0 && lead <= 0xef)
    return { length: 3, lo: lead === 0xe0 ? 0xa0 : 0x80, hi: lead === 0xed ? 0x9f : 0xbf }
  if (lead >= 0xf0 && lead <= 0xf4)
    return { length: 4, lo: lead === 0xf0 ? 0x90 : 0x80, hi: lead === 0xf4 ? 0x8f : 0xbf }
  return null
}

describe('WebAssembly scanner byte classes (survivors of the AssemblyScript mutants)', () => {
  it('accepts exactly the hex digits at each of the four places of a \\u escape', () => {
    const wrong: string[] = []
    for (let place = 0; place < 4; place++) {
      for (let b = 0; b < 256; b++) {
        // "\u0000" with byte b at the place: offsets 0 quote, 1 backslash, 2 u, 3..6 digits.
        const bytes = Uint8Array.from([QUOTE, BACKSLASH, 0x75, 0x30, 0x30, 0x30, 0x30, QUOTE])
        bytes[3 + place] = b
        const want: Verdict = isHexByte(b)
          ? { ok: true }
          : { ok: false, code: 'ERR_JSON_SYNTAX', offset: 3 + place }
        wrong.push(...differences(`place ${place} byte ${b}`, bytes, 3 + place, want))
      }
    }
    expect(wrong).toEqual([])
  })

  it('accepts exactly the eight one-letter escapes after a backslash', () => {
    const wrong: string[] = []
    for (let b = 0; b < 256; b++) {
      if (b === 0x75) continue // \u: the test above
      const bytes = Uint8Array.from([QUOTE, BACKSLASH, b, QUOTE])
      const want: Verdict = '"\\/bfnrt'.includes(String.fromCharCode(b))
        ? { ok: true }
        : { ok: false, code: 'ERR_JSON_SYNTAX', offset: 2 }
      wrong.push(...differences(`byte ${b}`, bytes, 2, want))
    }
    expect(wrong).toEqual([])
  })

  it('accepts exactly the Table 3-7 byte ranges at every place of a multi-byte sequence', () => {
    // Every byte value at every place for the leads whose second-byte range differs (E0, ED,
    // F0, F4) and one lead of each plain range; the range edges for every other lead.
    const full = new Set([0xc2, 0xe0, 0xe1, 0xed, 0xf0, 0xf1, 0xf4])
    const wrong: string[] = []
    for (let lead = 0x80; lead < 256; lead++) {
      const seq = sequenceOf(lead)
      if (seq === null) {
        const bytes = Uint8Array.from([QUOTE, lead, 0x80, 0x80, 0x80, QUOTE])
        const want: Verdict = { ok: false, code: 'ERR_JSON_INVALID_UTF8', offset: 1 }
        wrong.push(...differences(`lead ${lead}`, bytes, 1, want))
        continue
      }
      for (let place = 1; place < seq.length; place++) {
        const lo = place === 1 ? seq.lo : 0x80
        const hi = place === 1 ? seq.hi : 0xbf
        const values = full.has(lead)
          ? Array.from({ length: 256 }, (_, b) => b)
          : [lo - 1, lo, hi, hi + 1]
        for (const b of values) {
          // The well-formed sequence with the lowest bytes, then byte b at `place`.
          const body = [lead, seq.lo, ...Array(seq.length - 2).fill(0x80)]
          body[place] = b
          const bytes = Uint8Array.from([QUOTE, ...body, QUOTE])
          const want: Verdict =
            b >= lo && b <= hi
              ? { ok: true }
              : { ok: false, code: 'ERR_JSON_INVALID_UTF8', offset: 1 + place }
          wrong.push(
            ...differences(`lead ${lead} place ${place} byte ${b}`, bytes, 1 + place, want),
          )
        }
      }
    }
    expect(wrong).toEqual([])
  }, 120_000)

  it('gives the JS outcome for every byte after a key, a value or a container, cut before it', () => {
    // Each template with X where the byte goes: right after a key, a string, a number, a
    // literal or a closed container, where the scanner's shortcuts read one byte ahead (a
    // colon after a key, a comma after a value) before its states would.
    const templates = [
      '{"a"X1}',
      '{"a":"b"X"c":1}',
      '["b"X"c"]',
      '[1X2]',
      '[1e5X2]',
      '[trueX2]',
      '[falseX2]',
      '{"a":nullX"c":1}',
      '{"a":{}X"c":1}',
      '"a"X',
    ]
    expect(createPreflight()).toBeInstanceOf(WasmPreflightScanner)
    const subject = () => createPreflight()
    const reference = (o: ConstructorParameters<typeof PreflightScanner>[0]) =>
      new PreflightScanner(o)
    const wrong: string[] = []
    for (const template of templates) {
      const at = template.indexOf('X')
      for (let b = 0; b < 256; b++) {
        const bytes = encode(template)
        bytes[at] = b
        for (const cuts of [[], [at]]) {
          const { got, want } = both(subject, reference, bytes, cuts, {}, {})
          if (JSON.stringify(got) !== JSON.stringify(want))
            wrong.push(`${template} byte ${b} cuts ${cuts}: ${JSON.stringify(got)}`)
        }
      }
    }
    expect(wrong).toEqual([])
    // Two of them by name: a byte taken for the colon, and one taken for the comma.
    expect(verdict(encode('{"a"91}'))).toEqual({ ok: false, code: 'ERR_JSON_SYNTAX', offset: 4 })
    expect(verdict(encode('["a"+"b"]'))).toEqual({
      ok: false,
      code: 'ERR_JSON_SYNTAX',
      offset: 4,
    })
  }, 120_000)
})
