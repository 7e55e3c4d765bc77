import { isAdmissionError } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { createPreflight, type Preflight } from '../src/index.js'
import { WASM_MAX_DEPTH } from '../src/wasm-instance.js'

// The number grammar of RFC 8259 §6, -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?:
// a character that cannot continue the number where it stands is refused as a syntax error
// at that character (or at the end of the input for a number cut short there). The JS scanner
// (src/scanner.ts) reads a number whole when it fits in the chunk and one character at a time
// through its number states when a chunk ends inside it, so each text is pushed whole, at
// every two-chunk split and one byte a push, in an array and alone, through the three scanners
// createPreflight picks from, asserting code and offset.

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
