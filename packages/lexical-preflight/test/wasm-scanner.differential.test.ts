import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { fc, test } from '@fast-check/vitest'
import type { JsonLimitsOptions } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import type { PreflightPolicies } from '../src/options.js'
import { PreflightScanner } from '../src/scanner.js'
import { acquireKeyModule, scannerModule } from '../src/wasm-instance.js'
import { WasmPreflightScanner } from '../src/wasm-scanner.js'
import {
  bom,
  both as bothOf,
  cutsOf,
  encode,
  limits,
  mutate,
  mutation,
  policies,
  type ScannerFactory,
  text,
} from './helpers/differential.js'

// The WebAssembly scanner (assembly/scanner.ts) against the JS scanner it stands in for
// (src/scanner.ts, the reference and the fallback): the same counts, or the same refusal (code,
// offset, limit, observed) at the same push, on JSONTestSuite and on random and mutated JSON
// under random chunkings, limits and every policy, the key policies included (on a module of
// the scanner's own, as createPreflight gives them; test/wasm-keys.differential.test.ts aims
// at the keys).

const wasm = scannerModule()
const subject: ScannerFactory = (options) => {
  const keys = options.duplicateKeys === 'refuse' || options.protoKeys === 'refuse'
  return new WasmPreflightScanner(options, keys ? acquireKeyModule()! : wasm!)
}
const reference: ScannerFactory = (options) => new PreflightScanner(options)
const wasmPolicies = policies
const both = (
  bytes: Uint8Array,
  cuts: readonly number[],
  l: JsonLimitsOptions = {},
  p: PreflightPolicies = {},
) => bothOf(subject, reference, bytes, cuts, l, p)

const CORPUS = new URL('./corpus/json-test-suite/test_parsing/', import.meta.url)
const corpusDir = fileURLToPath(CORPUS)
const corpus = readdirSync(corpusDir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => [f, new Uint8Array(readFileSync(`${corpusDir}${f}`))] as const)
const WIDE = { maxDepth: 1_000_000, maxNodes: 10_000_000 }

describe('WebAssembly scanner (differential against the JS scanner, src/scanner.ts)', () => {
  it('instantiates on this Node', () => {
    expect(wasm).not.toBeNull()
  })

  it('gives every JSONTestSuite file the JS outcome in one chunk and byte by byte', () => {
    expect(corpus.length).toBeGreaterThan(300)
    for (const [name, bytes] of corpus) {
      // Byte by byte below 5,000 bytes (as test/corpus.test.ts): the two 100 KB+ files in one chunk.
      const bytewise = bytes.length > 5000 ? [] : Array.from({ length: bytes.length }, (_, k) => k)
      for (const cuts of [[], bytewise]) {
        for (const l of [WIDE, {}]) {
          const { got, want } = both(bytes, cuts, l)
          expect({ name, ...got }).toEqual({ name, ...want })
        }
      }
    }
  })

  it('gives every JSONTestSuite file under 300 bytes the JS outcome at every two-chunk split', () => {
    for (const [name, bytes] of corpus) {
      if (bytes.length >= 300) continue
      for (let cut = 0; cut <= bytes.length; cut++) {
        const { got, want } = both(bytes, [cut], WIDE)
        expect({ name, cut, ...got }).toEqual({ name, cut, ...want })
      }
    }
  })

  test.prop([fc.array(fc.nat(), { maxLength: 6 }), wasmPolicies, limits], { numRuns: 30 })(
    'gives every JSONTestSuite file the JS outcome under random chunkings, limits and policies',
    (raw, p, l) => {
      for (const [name, bytes] of corpus) {
        const { got, want } = both(bytes, cutsOf(raw, bytes.length), l, p)
        expect({ name, ...got }).toEqual({ name, ...want })
      }
    },
  )

  test.prop([text, bom, fc.array(fc.nat(), { maxLength: 8 }), limits, wasmPolicies], {
    numRuns: 1500,
  })(
    'gives the JS outcome on generated JSON texts under any chunking, limits and policies',
    (t, b, raw, l, p) => {
      const bytes = encode(b + t)
      const { got, want } = both(bytes, cutsOf(raw, bytes.length), l, p)
      expect(got).toEqual(want)
    },
  )

  test.prop(
    [
      text,
      fc.array(mutation, { minLength: 1, maxLength: 4 }),
      fc.array(fc.nat(), { maxLength: 8 }),
      limits,
      wasmPolicies,
    ],
    { numRuns: 3000 },
  )(
    'gives the JS outcome on byte-level mutations under any chunking, limits and policies',
    (t, edits, raw, l, p) => {
      const bytes = mutate(encode(t), edits)
      const { got, want } = both(bytes, cutsOf(raw, bytes.length), l, p)
      expect(got).toEqual(want)
    },
  )

  test.prop(
    [fc.uint8Array({ maxLength: 40 }), fc.array(fc.nat(), { maxLength: 4 }), wasmPolicies],
    {
      numRuns: 1500,
    },
  )('gives the JS outcome on arbitrary byte strings', (bytes, raw, p) => {
    const { got, want } = both(bytes, cutsOf(raw, bytes.length), {}, p)
    expect(got).toEqual(want)
  })

  test.prop([text, fc.array(mutation, { maxLength: 2 }), wasmPolicies], { numRuns: 100 })(
    'gives the JS outcome at every split point of a small document',
    (t, edits, p) => {
      const bytes = mutate(encode(t), edits).subarray(0, 300)
      for (let cut = 0; cut <= bytes.length; cut++) {
        const { got, want } = both(bytes, [cut], {}, p)
        expect(got).toEqual(want)
      }
    },
  )

  test.prop(
    [
      fc.array(text, { minLength: 1, maxLength: 40 }),
      fc.array(mutation, { maxLength: 2 }),
      fc.array(fc.nat(), { maxLength: 6 }),
      wasmPolicies,
    ],
    { numRuns: 25 },
  )('gives the JS outcome on documents past the 64 KiB piece', (parts, edits, raw, p) => {
    // A long string pads each document past one piece, so tokens straddle piece ends.
    const pad = 'p'.repeat(70_000 / parts.length)
    const doc = `[${parts.map((t) => `${t},"${pad}"`).join(',')}]`
    const bytes = mutate(encode(doc), edits)
    const { got, want } = both(bytes, cutsOf(raw, bytes.length), { maxBytes: 10_000_000 }, p)
    expect(got).toEqual(want)
  })

  test.prop(
    [
      fc.integer({ min: 1, max: 3000 }),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 64 }),
      fc.array(mutation, { maxLength: 2 }),
      fc.array(fc.nat(), { maxLength: 6 }),
      fc.integer({ min: 0, max: 3100 }),
    ],
    { numRuns: 60 },
  )(
    'gives the JS outcome on deep nesting cut anywhere (container bits past one word)',
    (d, kinds, edits, raw, maxDepth) => {
      let open = ''
      let close = ''
      for (let k = 0; k < d; k++) {
        const obj = kinds[k % kinds.length] === true
        open += obj ? '{"k":' : '['
        close = (obj ? '}' : ']') + close
      }
      const bytes = mutate(encode(`${open}1${close}`), edits)
      const cuts = cutsOf(raw, bytes.length)
      for (const l of [{ maxDepth }, { maxDepth: 1_000_000, maxNodes: 10_000_000 }]) {
        const { got, want } = both(bytes, cuts, l)
        expect(got).toEqual(want)
      }
    },
  )
})
