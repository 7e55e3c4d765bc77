import { fc, test } from '@fast-check/vitest'
import { describe, expect } from 'vitest'
import { resolvePreflightOptions } from '../src/options.js'
import { PreflightScanner } from '../src/scanner.js'
import { scannerModule } from '../src/wasm-instance.js'
import { WasmPreflightScanner } from '../src/wasm-scanner.js'
import { cutsOf, encode, mutate, mutation, outcome, text } from './helpers/differential.js'

// Scanners sharing the process's module, their pushes interleaved: the module holds the state
// of the scanner that pushed last, and another scanner's push has that one take its state out
// first (src/wasm-scanner.ts, `enter` and `leave`). A slot or container word left behind, or
// taken out of the wrong scanner, changes an outcome, so each scanner's outcome (counts, or the
// refusal's code, offset, limit and observed and the push that threw) is held to the JS
// scanner's on the same text and cuts, pushed alone.

const wasm = scannerModule()!

const doc = fc
  .tuple(text, fc.array(mutation, { maxLength: 2 }), fc.array(fc.nat(), { maxLength: 12 }))
  .map(([t, edits, raw]) => {
    const bytes = mutate(encode(t), edits)
    return { bytes, cuts: cutsOf(raw, bytes.length) }
  })

/** `bytes` cut at `cuts`, as the chunks a scanner is pushed. */
const chunksOf = (bytes: Uint8Array, cuts: readonly number[]) => {
  const out: Uint8Array[] = []
  let from = 0
  for (const cut of [...cuts, bytes.length]) {
    out.push(bytes.subarray(from, cut))
    from = cut
  }
  return out
}

describe('WasmPreflightScanner, scanners interleaved on one module (differential)', () => {
  test.prop(
    [
      fc.array(doc, { minLength: 2, maxLength: 4 }),
      fc.array(fc.nat(), { minLength: 1, maxLength: 60 }),
      fc.integer({ min: 3, max: 80 }),
    ],
    { numRuns: 400 },
  )(
    'gives each scanner the outcome of the JS scanner pushed alone, whatever the order of pushes',
    (docs, order, maxDepth) => {
      const options = resolvePreflightOptions({ maxDepth, maxNodes: 10_000, maxBytes: 100_000 })
      const scanners = docs.map(() => new WasmPreflightScanner(options, wasm))
      const chunks = docs.map(({ bytes, cuts }) => chunksOf(bytes, cuts))
      const next = docs.map(() => 0)
      const failed: { error: unknown; at: number }[] = docs.map(() => ({ error: null, at: -1 }))
      // Pushes in the drawn order (a scanner that has pushed everything is skipped), then the
      // rest of each in turn.
      const pushOne = (k: number) => {
        if (next[k]! >= chunks[k]!.length || failed[k]!.error !== null) return
        try {
          scanners[k]!.push(chunks[k]![next[k]!]!)
        } catch (error) {
          failed[k] = { error, at: next[k]! }
        }
        next[k]!++
      }
      for (const pick of order) pushOne(pick % docs.length)
      for (let k = 0; k < docs.length; k++)
        while (next[k]! < chunks[k]!.length && failed[k]!.error === null) pushOne(k)
      docs.forEach(({ bytes, cuts }, k) => {
        const want = outcome(new PreflightScanner(options), bytes, cuts)
        const got = outcome(
          {
            push: () => {},
            end: () => {
              const f = failed[k]!
              if (f.error !== null) throw f.error
              return scanners[k]!.end()
            },
          },
          bytes,
          cuts,
        )
        // `at` counts the pushes made before the refusal: from the record for the interleaved run.
        const at = failed[k]!.error === null ? want.at : failed[k]!.at
        expect({ k, ...got, at }).toEqual({ k, ...want })
      })
    },
  )
})
