import { fc, test } from '@fast-check/vitest'
import type { JsonLimitsOptions } from '@tollgate/json-budget'
import { describe, expect } from 'vitest'
import type { PreflightPolicies } from '../src/options.js'
import { PreflightScanner } from '../src/scanner.js'
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
import { ReferenceScanner } from './helpers/reference-scanner.js'

// The scanner against the algorithm it replaced (test/helpers/reference-scanner.ts, the byte-at-a-time
// state machine kept verbatim): on random and mutated JSON byte strings, cut into random chunks,
// under random limits and policies, both must give the same counts or the same refusal (code,
// offset, limit, observed) at the same push.

const subject: ScannerFactory = (options) => new PreflightScanner(options)
const reference: ScannerFactory = (options) => new ReferenceScanner(options)
const both = (
  bytes: Uint8Array,
  cuts: readonly number[],
  l: JsonLimitsOptions,
  p: PreflightPolicies,
) => bothOf(subject, reference, bytes, cuts, l, p)

describe('scanner (differential against the previous algorithm, test/helpers/reference-scanner.ts)', () => {
  test.prop([text, bom, fc.array(fc.nat(), { maxLength: 8 }), limits, policies], {
    numRuns: 1500,
  })(
    'gives the same outcome on generated JSON texts under any chunking, limits and policies',
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
      policies,
    ],
    { numRuns: 3000 },
  )(
    'gives the same outcome on byte-level mutations under any chunking, limits and policies',
    (t, edits, raw, l, p) => {
      const bytes = mutate(encode(t), edits)
      const { got, want } = both(bytes, cutsOf(raw, bytes.length), l, p)
      expect(got).toEqual(want)
    },
  )

  test.prop([fc.uint8Array({ maxLength: 40 }), fc.array(fc.nat(), { maxLength: 4 }), policies], {
    numRuns: 1500,
  })('gives the same outcome on arbitrary byte strings', (bytes, raw, p) => {
    const { got, want } = both(bytes, cutsOf(raw, bytes.length), {}, p)
    expect(got).toEqual(want)
  })

  test.prop([text, fc.array(mutation, { maxLength: 2 })], { numRuns: 100 })(
    'gives the same outcome at every split point of a small document',
    (t, edits) => {
      const bytes = mutate(encode(t), edits).subarray(0, 300)
      for (let cut = 0; cut <= bytes.length; cut++) {
        const { got, want } = both(bytes, [cut], {}, {})
        expect(got).toEqual(want)
      }
    },
  )

  test.prop(
    [
      fc.array(text, { minLength: 1, maxLength: 40 }),
      fc.array(mutation, { maxLength: 2 }),
      fc.array(fc.nat(), { maxLength: 6 }),
    ],
    { numRuns: 25 },
  )('gives the same outcome on documents past the 64 KiB slice', (parts, edits, raw) => {
    // A long string pads each document past one slice, so tokens straddle slice ends.
    const pad = 'p'.repeat(70_000 / parts.length)
    const doc = `[${parts.map((t) => `${t},"${pad}"`).join(',')}]`
    const bytes = mutate(encode(doc), edits)
    const { got, want } = both(bytes, cutsOf(raw, bytes.length), { maxBytes: 10_000_000 }, {})
    expect(got).toEqual(want)
  })
})
