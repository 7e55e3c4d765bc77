import { isAdmissionError } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { createPreflight, type Preflight } from '../src/index.js'
import { WASM_MAX_DEPTH } from '../src/wasm-instance.js'

// The JS scanner (src/scanner.ts) scans one chunk in slices of 64 KiB, so the chunk's bytes go
// on past the end of the slice being scanned. A token that ends on a slice's last byte must
// not read the next slice's first byte as its own (a `:` after a key, a `,` after a value): that
// byte is scanned again by the next slice, and a separator read twice refuses a well-formed
// document. An escape cut by the slice end is judged in the next slice at its input offset.
// Held for the three scanners createPreflight picks from (asserting code and offset).

const SLICE = 64 * 1024

const SCANNERS: ReadonlyArray<readonly [string, () => Preflight]> = [
  ['the WebAssembly scanner (the defaults)', () => createPreflight()],
  // A maxDepth past the module's container bits: the JS scanner and its whole-token fast path.
  ['the JS scanner', () => createPreflight({ maxDepth: WASM_MAX_DEPTH + 1 })],
  // A key policy: the WebAssembly scanner on a module of its own.
  ['the WebAssembly scanner with a key policy', () => createPreflight({ duplicateKeys: 'refuse' })],
  // A key policy past the container bits: the JS scanner without the fast path.
  [
    'the JS scanner with a key policy',
    () => createPreflight({ duplicateKeys: 'refuse', maxDepth: WASM_MAX_DEPTH + 1 }),
  ],
]

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)

type Outcome = { ok: true; nodes: number } | { ok: false; code: string; offset: number | undefined }

/** The outcome of `doc` pushed as one chunk through each scanner, labelled by scanner. */
function outcomes(doc: Uint8Array): Array<[string, Outcome]> {
  return SCANNERS.map(([name, make]) => {
    const scanner = make()
    try {
      scanner.push(doc)
      return [name, { ok: true, nodes: scanner.end().nodes }]
    } catch (error) {
      if (!isAdmissionError(error)) throw error
      return [name, { ok: false, code: error.code, offset: error.offset }]
    }
  })
}

const each = (want: Outcome): Array<[string, Outcome]> => SCANNERS.map(([name]) => [name, want])

describe('one chunk across the 64 KiB slices of the JS scanner', () => {
  it('admits a key whose closing quote is the last byte of a slice, its colon the first of the next', () => {
    // `{"` then the key: its closing quote at SLICE - 1, the colon at SLICE.
    const doc = utf8(`{"${'k'.repeat(SLICE - 3)}":1}`)
    expect(doc[SLICE - 1]).toBe(0x22)
    expect(doc[SLICE]).toBe(0x3a)
    expect(outcomes(doc)).toEqual(each({ ok: true, nodes: 3 }))
  })

  it('admits a string value whose closing quote is the last byte of a slice, its comma the first of the next', () => {
    const doc = utf8(`["${'v'.repeat(SLICE - 3)}",1]`)
    expect(doc[SLICE - 1]).toBe(0x22)
    expect(doc[SLICE]).toBe(0x2c)
    expect(outcomes(doc)).toEqual(each({ ok: true, nodes: 3 }))
  })

  it('admits true, false and null ending on the last byte of a slice, a comma the first of the next', () => {
    for (const literal of ['true', 'false', 'null']) {
      // `[`, spaces, then the literal ending at SLICE - 1.
      const doc = utf8(`[${' '.repeat(SLICE - 1 - literal.length)}${literal},1]`)
      expect(doc[SLICE]).toBe(0x2c)
      expect([literal, outcomes(doc)]).toEqual([literal, each({ ok: true, nodes: 3 })])
    }
  })

  it('refuses a bad escape whose backslash is the last byte of a slice at the offset of the escaped byte', () => {
    // The backslash at SLICE - 1, the byte it escapes (x, not an escape) at SLICE.
    const doc = utf8(`["${'a'.repeat(SLICE - 3)}\\x"]`)
    expect(doc[SLICE - 1]).toBe(0x5c)
    expect(outcomes(doc)).toEqual(each({ ok: false, code: 'ERR_JSON_SYNTAX', offset: SLICE }))
  })
})
