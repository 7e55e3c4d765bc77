import { isAdmissionError } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { createPreflight, type Preflight } from '../src/index.js'
import { WASM_MAX_DEPTH } from '../src/wasm-instance.js'

// maxNumberLength counts a number's characters (sign, digits, point, exponent marker and sign) and
// refuses at the first character past the limit, with its offset, whichever part of the number that
// character is in. The JS scanner (src/scanner.ts) checks the limit in each of its number states
// (after the sign, the point, the exponent marker and its sign, and in the integer, fraction and
// exponent digit runs), so each number below is run under every limit shorter than it, in an array
// and at the top level, whole, at every two-chunk split and one byte a push, through the three
// scanners createPreflight picks from, asserting code, limit and offset.

const SCANNERS: ReadonlyArray<readonly [string, (options: object) => Preflight]> = [
  ['the WebAssembly scanner', (options) => createPreflight(options)],
  // A maxDepth past the module's container bits: the JS scanner and its whole-token fast path.
  ['the JS scanner', (options) => createPreflight({ ...options, maxDepth: WASM_MAX_DEPTH + 1 })],
  // A key policy: the JS scanner without the fast path (every token through the byte machine).
  [
    'the JS scanner with a key policy',
    (options) => createPreflight({ ...options, duplicateKeys: 'refuse' }),
  ],
]

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)

function outcome(make: (options: object) => Preflight, options: object, chunks: Uint8Array[]) {
  const scanner = make(options)
  try {
    for (const chunk of chunks) scanner.push(chunk)
    return { ok: true, nodes: scanner.end().nodes }
  } catch (error) {
    if (!isAdmissionError(error)) throw error
    return { ok: false, code: error.code, limit: error.limit, offset: error.offset }
  }
}

/** Every (scanner, split) whose outcome on `doc` differs from `want`, labelled. */
function differences(doc: Uint8Array, options: object, want: object, label: string): string[] {
  const out: string[] = []
  for (const [name, make] of SCANNERS) {
    const splits: Uint8Array[][] = [[doc]]
    for (let cut = 1; cut < doc.length; cut++)
      splits.push([doc.subarray(0, cut), doc.subarray(cut)])
    // One byte a push: a token open across many pushes, each with its own input offset.
    splits.push(Array.from(doc, (_, k) => doc.subarray(k, k + 1)))
    for (const chunks of splits) {
      const got = outcome(make, options, chunks)
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        out.push(`${name}, ${label}, chunks ${chunks.map((c) => c.length)}: ${JSON.stringify(got)}`)
      }
    }
  }
  return out
}

// Each part of the grammar at each position: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
const NUMBERS = ['-0', '-905', '0.5', '12.340', '7e9', '0E+12', '-1.5e-10', '19.0E09']

describe('maxNumberLength, at every character of a number', () => {
  it('admits each number under a limit of its own length, in an array and alone', () => {
    const bad: string[] = []
    for (const number of NUMBERS) {
      const options = { maxNumberLength: number.length }
      bad.push(...differences(utf8(`[${number}]`), options, { ok: true, nodes: 2 }, `[${number}]`))
      bad.push(...differences(utf8(number), options, { ok: true, nodes: 1 }, number))
    }
    expect(bad).toEqual([])
  })

  it('refuses it under each shorter limit with ERR_JSON_NUMBER_TOO_LONG at the first character past it', () => {
    const bad: string[] = []
    for (const number of NUMBERS) {
      for (let limit = 1; limit < number.length; limit++) {
        const options = { maxNumberLength: limit }
        const code = 'ERR_JSON_NUMBER_TOO_LONG'
        const inArray = { ok: false, code, limit, offset: 1 + limit }
        bad.push(...differences(utf8(`[${number}]`), options, inArray, `[${number}] < ${limit}`))
        const alone = { ok: false, code, limit, offset: limit }
        bad.push(...differences(utf8(number), options, alone, `${number} < ${limit}`))
      }
    }
    expect(bad).toEqual([])
  })
})
