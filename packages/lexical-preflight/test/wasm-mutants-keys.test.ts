import { isAdmissionError } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { createPreflight } from '../src/index.js'

// Written for a survivor of the key kernel's mutants (jobs/mutation/assembly-mutants.mjs
// --files assembly/keys.ts, record in jobs/mutation/records/lexical-preflight-wasm.md): the
// kernel compares keys by their decoded UTF-8, writing an escaped code point's bytes itself,
// while a raw key's bytes are copied. A wrong bit in one byte it writes (the mutant masked the
// last byte of a 4-byte sequence with 0x40, not 0x3f) makes a raw key and the same key escaped
// differ, so the duplicate passes. The random keys of the differential test use few code
// points; here every low bit of every written byte is reached: a key written raw, then escaped,
// for code points of each length, against JSON.parse (the oracle: a duplicate exactly when the
// parsed object holds one key).

const utf8 = (text: string) => new TextEncoder().encode(text)

/** `\uXXXX` (a surrogate pair past U+FFFF), upper- or lower-case hex. */
function escaped(cp: number, upper: boolean): string {
  const units =
    cp > 0xffff ? [0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff)] : [cp]
  return units
    .map((u) => {
      const hex = u.toString(16).padStart(4, '0')
      return `\\u${upper ? hex.toUpperCase() : hex}`
    })
    .join('')
}

/** Code points of each UTF-8 length, covering every value of each byte's low six bits. */
function codePoints(): number[] {
  const out: number[] = []
  // Printable ASCII (a raw quote or backslash would end or escape the key).
  for (let cp = 0x20; cp < 0x80; cp++) if (cp !== 0x22 && cp !== 0x5c) out.push(cp)
  for (let cp = 0x80; cp <= 0x7ff; cp++) out.push(cp)
  for (let cp = 0x800; cp <= 0xffff; cp += 0x41) if (cp < 0xd800 || cp > 0xdfff) out.push(cp)
  for (let k = 0; k < 0x1000; k += 0x41) out.push(0xe000 + k, 0xf000 + k)
  for (let cp = 0x10000; cp <= 0x10ffff; cp += 0x1041) out.push(cp)
  for (let k = 0; k < 64; k++)
    out.push(0x10000 + k, 0x10ffc0 + k, 0x10000 + (k << 6), 0x10000 + (k << 12))
  return out
}

type Verdict = { ok: true } | { ok: false; code: string; offset: number | undefined }

function verdict(bytes: Uint8Array): Verdict {
  const scanner = createPreflight({ duplicateKeys: 'refuse' })
  try {
    scanner.push(bytes)
    scanner.end()
    return { ok: true }
  } catch (error) {
    if (!isAdmissionError(error)) throw error
    return { ok: false, code: error.code, offset: error.offset }
  }
}

describe('createPreflight (duplicateKeys refused, the WebAssembly key kernel)', () => {
  it('refuses a key written raw and again escaped, and admits two that differ, for every bit of its UTF-8', () => {
    const wrong: string[] = []
    let refused = 0
    const points = codePoints()
    points.forEach((cp, k) => {
      // The same code point, and one that differs in a low bit (same UTF-8 length).
      for (const other of [cp, cp ^ (1 << (k % 6))]) {
        for (const rawFirst of [true, false]) {
          const raw = `"a${String.fromCodePoint(cp)}"`
          const esc = `"a${escaped(other, k % 2 === 0)}"`
          const [first, second] = rawFirst ? [raw, esc] : [esc, raw]
          const text = `{${first}:1,${second}:2}`
          const duplicate = Object.keys(JSON.parse(text)).length === 1
          const want: Verdict = duplicate
            ? { ok: false, code: 'ERR_JSON_DUPLICATE_KEY', offset: utf8(`{${first}:1,`).length }
            : { ok: true }
          const got = verdict(utf8(text))
          if (JSON.stringify(got) !== JSON.stringify(want))
            wrong.push(`U+${cp.toString(16)} / U+${other.toString(16)} raw first ${rawFirst}`)
          if (duplicate) refused++
        }
      }
    })
    expect(wrong.slice(0, 10)).toEqual([])
    // Every code point was also met as its own duplicate, in both orders.
    expect(refused).toBeGreaterThanOrEqual(2 * points.length)
  })

  it('refuses a repeat of any early key after thousands of distinct keys have filled the table', () => {
    // Key records are kept on a stack above the hash buckets; a stack laid over the buckets (its
    // base one bucket table too low, a mutant of STACK_BASE) overwrites chain heads as keys
    // arrive, and a repeat of an early key is then missed. 6,000 keys write about 200 KB of
    // records, where the differential test's objects hold a few keys.
    const keys = Array.from({ length: 6000 }, (_, k) => `"key-${k}-${'x'.repeat(k % 17)}"`)
    const head = `{${keys.map((key) => `${key}:0`).join(',')},`
    const wrong: number[] = []
    for (let j = 0; j < keys.length; j += 97) {
      const got = verdict(utf8(`${head}${keys[j]}:1}`))
      const want = { ok: false, code: 'ERR_JSON_DUPLICATE_KEY', offset: utf8(head).length }
      if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push(j)
    }
    expect(wrong).toEqual([])
    expect(verdict(utf8(`${head}"key-new":1}`))).toEqual({ ok: true })
  })

  it('compares the one-letter escapes by what they decode to, against every other spelling', () => {
    // A survivor decoded `\r` as the letter r: `"a\r"` and `"a\u000d"` then differ, and
    // `"a\r"` and `"ar"` collide.
    const spellings = (c: string): string[] => {
      const code = c.charCodeAt(0)
      const hex = code.toString(16).padStart(4, '0')
      const short: Record<string, string> = {
        '"': '\\"',
        '\\': '\\\\',
        '/': '\\/',
        '\b': '\\b',
        '\f': '\\f',
        '\n': '\\n',
        '\r': '\\r',
        '\t': '\\t',
      }
      const out = [`\\u${hex}`, `\\u${hex.toUpperCase()}`]
      if (short[c] !== undefined) out.push(short[c]!)
      if (code >= 0x20 && c !== '"' && c !== '\\') out.push(c)
      return out
    }
    const chars = ['"', '\\', '/', '\b', '\f', '\n', '\r', '\t', 'b', 'f', 'n', 'r', 't', 'u']
    const all = chars.flatMap(spellings)
    const wrong: string[] = []
    for (const x of all) {
      for (const y of all) {
        const first = `"a${x}"`
        const text = `{${first}:1,"a${y}":2}`
        const duplicate = Object.keys(JSON.parse(text)).length === 1
        const want: Verdict = duplicate
          ? { ok: false, code: 'ERR_JSON_DUPLICATE_KEY', offset: utf8(`{${first}:1,`).length }
          : { ok: true }
        if (JSON.stringify(verdict(utf8(text))) !== JSON.stringify(want)) wrong.push(`${x} ${y}`)
      }
    }
    expect(wrong).toEqual([])
    expect(all.length).toBeGreaterThan(40)
  })
})
