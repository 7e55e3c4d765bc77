import { fc, test } from '@fast-check/vitest'
import { countJson } from '@tollgate/test-kit/json-count'
import { strictJsonParse } from '@tollgate/test-kit/strict-json'
import { describe, expect } from 'vitest'
import { createPreflight, resolvePreflightOptions } from '../src/index.js'
import { WASM_MAX_DEPTH } from '../src/wasm-instance.js'
import { byteMachineScanner } from './helpers/byte-machine.js'
import { scanOf } from './helpers/every-scanner.js'

// Runs of whitespace are skipped 16 or 32 bytes a compare by the WebAssembly scanner. It and the
// JS scanner's fast path are held to the byte machine (the JS scanner with its fast path
// switched off, every byte one step) and to JSON.parse, on
// documents with runs of every length and kind, a stray byte inside a run, chunk cuts anywhere
// (inside runs too) and chunks at every word alignment.

const options = resolvePreflightOptions({ maxDepth: 64 })
const scanners = {
  wasm: () => createPreflight(options),
  js: () => createPreflight({ ...options, maxDepth: WASM_MAX_DEPTH + 1 }),
  machine: () => byteMachineScanner(options),
}

const blank = fc.constantFrom(' ', '\t', '\n', '\r')
const run = fc.oneof(
  // Uniform runs (indentation, floods), past the 32-byte SIMD step.
  fc.tuple(blank, fc.integer({ min: 0, max: 200 })).map(([c, k]) => c.repeat(k)),
  fc.array(blank, { maxLength: 70 }).map((cs) => cs.join('')),
)
/** A byte that is not whitespace (a few in a row, so a word of them can be met), or not a token start. */
const stray = fc.constantFrom('\u000b', '\u000c', '\u0000', '\u00a0', 'x', '1')
const indent = fc.constantFrom(undefined, 2, 4, '\t', ' '.repeat(40))

/** A document: a value written with some indentation, runs around it and between tokens. */
const doc = fc
  .record({
    value: fc.jsonValue({ maxDepth: 4 }),
    indent,
    before: run,
    after: run,
    inner: run,
    stray: fc.option(fc.tuple(stray, fc.nat(), fc.integer({ min: 1, max: 9 })), { freq: 3 }),
  })
  .map(({ value, indent, before, after, inner, stray }) => {
    // Runs inside the text: after every comma and colon the indentation does not already fill.
    let text = JSON.stringify(value, null, indent).replace(/,\n/g, `,${inner}\n`)
    text = `${before}${text}${after}`
    if (stray !== null) {
      const at = stray[1] % (text.length + 1)
      text = text.slice(0, at) + stray[0].repeat(stray[2]) + text.slice(at)
    }
    return new TextEncoder().encode(text)
  })

/** `bytes` copied at byte offset `shift` of a fresh buffer, cut at the (sorted) `cuts`. */
function chunksOf(bytes: Uint8Array, shift: number, cuts: number[]): Uint8Array[] {
  const copy = new Uint8Array(bytes.length + 8).subarray(shift, shift + bytes.length)
  copy.set(bytes)
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const out: Uint8Array[] = []
  let from = 0
  for (const cut of [...at, bytes.length]) {
    out.push(copy.subarray(from, cut))
    from = cut
  }
  return out
}

describe('createPreflight', () => {
  test.prop([doc, fc.integer({ min: 0, max: 7 }), fc.array(fc.nat(), { maxLength: 4 })], {
    numRuns: 400,
  })('skips whitespace runs as the byte machine and JSON.parse do', (bytes, shift, cuts) => {
    const chunks = chunksOf(bytes, shift, cuts)
    const wasm = scanOf(scanners.wasm(), chunks)
    const js = scanOf(scanners.js(), chunks)
    const machine = scanOf(scanners.machine(), chunks)
    expect(wasm).toEqual(machine)
    expect(js).toEqual(machine)
    const parsed = strictJsonParse(bytes, { stripBom: false })
    expect(machine.ok).toBe(parsed.ok)
    if (parsed.ok && machine.ok) {
      const count = countJson(parsed.value, { nonFiniteNumbers: true })!
      expect({ nodes: machine.nodes, depth: machine.depth }).toEqual({
        nodes: count.nodes,
        depth: count.depth,
      })
    }
  })
})
