import { isAdmissionError } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { createPreflight, type Preflight } from '../src/index.js'
import { WASM_MAX_DEPTH } from '../src/wasm-instance.js'

// Long string interiors: the scanners skip them eight and sixteen bytes at a time (the JS
// scanner with the word tests of src/tables.ts, bounded by the next quote or backslash found
// with memchr and by the region `isUtf8` vouched for; the WebAssembly one with its own SIMD
// skip). A skip that passes one byte it should have judged admits a control byte, a broken
// UTF-8 sequence or a string that never closed, so every byte position of a long string is
// tried, at each of the four word alignments of the chunk, through the three scanners
// createPreflight picks from (each asserted with the code and the offset, never prose).

const SCANNERS: ReadonlyArray<readonly [string, () => Preflight]> = [
  ['the WebAssembly scanner (the defaults)', () => createPreflight()],
  // A maxDepth past the module's container bits: the JS scanner and its whole-token fast path.
  ['the JS scanner', () => createPreflight({ maxDepth: WASM_MAX_DEPTH + 1 })],
  // A key policy: the WebAssembly scanner on a module of its own.
  ['the WebAssembly scanner with a key policy', () => createPreflight({ duplicateKeys: 'refuse' })],
  // A key policy past the container bits: the JS scanner without the fast path (the byte
  // machine's string section).
  [
    'the JS scanner with a key policy',
    () => createPreflight({ duplicateKeys: 'refuse', maxDepth: WASM_MAX_DEPTH + 1 }),
  ],
]

type Outcome = { ok: true; nodes: number } | { ok: false; code: string; offset: number | undefined }

function outcome(scanner: Preflight, chunks: readonly Uint8Array[]): Outcome {
  try {
    for (const chunk of chunks) scanner.push(chunk)
    return { ok: true, nodes: scanner.end().nodes }
  } catch (error) {
    if (!isAdmissionError(error)) throw error
    return { ok: false, code: error.code, offset: error.offset }
  }
}

/** `bytes` copied to byte `align` of a fresh buffer, so the chunk's word alignment is known. */
function aligned(bytes: Uint8Array, align: number): Uint8Array {
  const out = new Uint8Array(new ArrayBuffer(align + bytes.length), align)
  out.set(bytes)
  return out
}

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)

/** `["` + body + `"]` with `byte` written over the body at `at` (an index into the body). */
function withByte(body: Uint8Array, at: number, byte: number): Uint8Array {
  const doc = new Uint8Array(body.length + 4)
  doc.set(utf8('["'))
  doc.set(body, 2)
  doc.set(utf8('"]'), body.length + 2)
  doc[2 + at] = byte
  return doc
}

/** Every (scanner, alignment) whose outcome on `doc` differs from `want`, labelled. */
function differences(doc: Uint8Array, want: Outcome, label: string): string[] {
  const out: string[] = []
  for (const [name, make] of SCANNERS) {
    for (let align = 0; align < 4; align++) {
      const got = outcome(make(), [aligned(doc, align)])
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        out.push(`${name}, ${label}, alignment ${align}: ${JSON.stringify(got)}`)
      }
    }
  }
  return out
}

// Bytes below 0x60 only: the word tests must find a control byte among them by themselves
// (a byte of 0x60 or more would stop a wrong test early by chance, hiding it).
const ASCII = utf8('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.repeat(3)) // 108 bytes
// Two-byte É and three-byte 中 between ASCII: a string `isUtf8` vouches for, non-ASCII in
// every word.
const MIXED = utf8('AÉ中BCDÉ中EF'.repeat(8)) // 128 bytes, all whole sequences
// One É, then ASCII: the rest of the string is in the region `isUtf8` vouched for, in words
// without a byte of 0x80 or more.
const CLEAN_ASCII = utf8(`É${'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.repeat(3)}`)

describe('long string interiors, through every scanner and alignment', () => {
  it('refuses a control byte at every offset of a long ASCII string with ERR_JSON_SYNTAX there', () => {
    const bad: string[] = []
    for (let at = 0; at < ASCII.length; at++) {
      const want = { ok: false, code: 'ERR_JSON_SYNTAX', offset: 2 + at } as const
      for (const byte of [0x00, 0x1f]) {
        bad.push(...differences(withByte(ASCII, at, byte), want, `byte ${byte} at ${at}`))
      }
    }
    expect(bad).toEqual([])
  })

  it('refuses a byte that starts no UTF-8 sequence at every offset of a long ASCII string', () => {
    const bad: string[] = []
    for (let at = 0; at < ASCII.length; at++) {
      const want = { ok: false, code: 'ERR_JSON_INVALID_UTF8', offset: 2 + at } as const
      for (const byte of [0x80, 0xff]) {
        bad.push(...differences(withByte(ASCII, at, byte), want, `byte ${byte} at ${at}`))
      }
    }
    expect(bad).toEqual([])
  })

  it('refuses a control byte at every ASCII offset of a long well-formed non-ASCII string', () => {
    const bad: string[] = []
    for (const body of [MIXED, CLEAN_ASCII]) {
      for (let at = 0; at < body.length; at++) {
        if (body[at]! >= 0x80) continue
        const want = { ok: false, code: 'ERR_JSON_SYNTAX', offset: 2 + at } as const
        bad.push(...differences(withByte(body, at, 0x01), want, `byte 1 at ${at}`))
      }
    }
    expect(bad).toEqual([])
  })

  it('ends a long string at its closing quote and reads the value after it', () => {
    const bad: string[] = []
    for (const body of [ASCII, MIXED, CLEAN_ASCII]) {
      for (let length = 24; length <= body.length; length++) {
        const text = new TextDecoder().decode(body.subarray(0, length))
        // A cut inside é or 中 leaves U+FFFD, still a well-formed string.
        const doc = utf8(`["${text}","${text}",{"k":"${text}"}]`)
        bad.push(...differences(doc, { ok: true, nodes: 6 }, `length ${length}`))
        const escaped = utf8(`["${text}\\n${text}\\u00e9${text}"]`)
        bad.push(...differences(escaped, { ok: true, nodes: 2 }, `escaped, length ${length}`))
      }
    }
    expect(bad).toEqual([])
  })

  it('judges a long string cut anywhere into two chunks as in one', () => {
    const bad: string[] = []
    const bodies = [
      [withByte(MIXED, 102, 0x01), { ok: false, code: 'ERR_JSON_SYNTAX', offset: 104 }],
      [withByte(CLEAN_ASCII, 100, 0x01), { ok: false, code: 'ERR_JSON_SYNTAX', offset: 102 }],
      [withByte(ASCII, 100, 0xff), { ok: false, code: 'ERR_JSON_INVALID_UTF8', offset: 102 }],
      [utf8(`["${new TextDecoder().decode(MIXED)}","x"]`), { ok: true, nodes: 3 }],
    ] as const
    for (const [doc, want] of bodies) {
      for (let cut = 1; cut < doc.length; cut++) {
        for (const [name, make] of SCANNERS) {
          const got = outcome(make(), [doc.slice(0, cut), doc.slice(cut)])
          if (JSON.stringify(got) !== JSON.stringify(want)) bad.push(`${name}, cut ${cut}`)
        }
      }
    }
    expect(bad).toEqual([])
  })

  it('refuses a control byte in a chunk of a resizable buffer after the buffer grew', () => {
    // A caller that reads into one growable buffer: the JS scanner's cached word view of the
    // buffer must follow the growth, or the skip reads past its end as clean bytes.
    type Resizable = ArrayBuffer & { resize(length: number): void }
    const Growable = ArrayBuffer as unknown as new (
      length: number,
      options: { maxByteLength: number },
    ) => Resizable
    for (const [name, make] of SCANNERS) {
      const buffer = new Growable(64, { maxByteLength: 4096 })
      const first = new Uint8Array(buffer, 0, 64)
      first.set(utf8(`["${'a'.repeat(62)}`))
      const scanner = make()
      scanner.push(first)
      buffer.resize(4096)
      const second = new Uint8Array(buffer, 64, 200)
      second.set(utf8(`${'a'.repeat(198)}"]`))
      second[100] = 0x01
      expect([name, outcome(scanner, [second])]).toEqual([
        name,
        { ok: false, code: 'ERR_JSON_SYNTAX', offset: 164 },
      ])
    }
  })
})
