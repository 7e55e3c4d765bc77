import { isAdmissionError } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { createPreflight, type Preflight } from '../src/index.js'
import { WASM_MAX_DEPTH } from '../src/wasm-instance.js'

// A `\u` escape takes exactly four hexadecimal digits (RFC 8259 §7): one other character among
// them is refused as a syntax error at that character. The JS scanner (src/scanner.ts) reads a
// whole escape at once when it fits in the chunk and falls back to one byte at a time when it
// does not, so each bad digit is tried whole, at every two-chunk split and one byte a push,
// after text of hex digits and letters (a check that read the wrong byte would find a digit
// there), through the three scanners createPreflight picks from, asserting code and offset.

const SCANNERS: ReadonlyArray<readonly [string, () => Preflight]> = [
  ['the WebAssembly scanner (the defaults)', () => createPreflight()],
  // A maxDepth past the module's container bits: the JS scanner and its whole-token fast path.
  ['the JS scanner', () => createPreflight({ maxDepth: WASM_MAX_DEPTH + 1 })],
  // A key policy: the JS scanner without the fast path (every token through the byte machine).
  ['the JS scanner with a key policy', () => createPreflight({ duplicateKeys: 'refuse' })],
]

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)

function outcome(make: () => Preflight, chunks: Uint8Array[]) {
  const scanner = make()
  try {
    for (const chunk of chunks) scanner.push(chunk)
    return { ok: true, nodes: scanner.end().nodes }
  } catch (error) {
    if (!isAdmissionError(error)) throw error
    return { ok: false, code: error.code, offset: error.offset }
  }
}

/** Every (scanner, split) whose outcome on `doc` differs from `want`, labelled. */
function differences(doc: Uint8Array, want: object, label: string): string[] {
  const out: string[] = []
  for (const [name, make] of SCANNERS) {
    const splits: Uint8Array[][] = [[doc]]
    for (let cut = 1; cut < doc.length; cut++)
      splits.push([doc.subarray(0, cut), doc.subarray(cut)])
    splits.push(Array.from(doc, (_, k) => doc.subarray(k, k + 1)))
    for (const chunks of splits) {
      const got = outcome(make, chunks)
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        out.push(`${name}, ${label}, chunks ${chunks.map((c) => c.length)}: ${JSON.stringify(got)}`)
      }
    }
  }
  return out
}

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
