import { fc, test } from '@fast-check/vitest'
import type { JsonLimitsOptions } from '@tollgate/json-budget'
import { countJson } from '@tollgate/test-kit/json-count'
import { describe, expect, it } from 'vitest'
import {
  type PreflightPolicies,
  type ResolvedPreflightOptions,
  resolvePreflightOptions,
} from '../src/options.js'
import { PreflightScanner } from '../src/scanner.js'
import { byteMachineScanner, takesFastPath } from './helpers/byte-machine.js'
import {
  bom,
  both as bothOf,
  cutsOf,
  encode,
  limits,
  mutate,
  mutation,
  outcome,
  policies,
  type ScannerFactory,
  text,
} from './helpers/differential.js'
import { judge, strictVerdict } from './helpers/json-oracle.js'

// Two oracles, neither a copy of the scanner. (1) The same class with its whole-token fast path
// switched off (test/helpers/byte-machine.ts): on random and mutated JSON byte strings, cut into
// random chunks, under random limits and policies, both must give the same counts or the same
// refusal (code, offset, limit, observed) at the same push. (2) JSON.parse over a strict UTF-8
// decode and the counting walk (test/helpers/json-oracle.ts) on the same inputs and chunkings:
// a generated text is admitted with the walk's counts exactly when no limit or policy is broken,
// and refused otherwise with a code (and its limit) that the parsed value shows broken; on any
// input, an admitted text parses, a syntax refusal does not, an invalid-UTF-8 refusal does not
// decode.

const subject: ScannerFactory = (options) => new PreflightScanner(options)
const reference: ScannerFactory = byteMachineScanner
const both = (
  bytes: Uint8Array,
  cuts: readonly number[],
  l: JsonLimitsOptions,
  p: PreflightPolicies,
) => bothOf(subject, reference, bytes, cuts, l, p)

/** A parsed value: a number literal past the double range is `Infinity`, still one scalar. */
const PARSED = { nonFiniteNumbers: true }
const WIDE = { maxDepth: 1_000_000, maxNodes: 10_000_000, maxBytes: 10_000_000 }

/** Whether `bytes` holds a duplicate key, which `JSON.parse` collapses (so the walk cannot count it). */
function hasDuplicateKeys(bytes: Uint8Array): boolean {
  const options = resolvePreflightOptions({ ...WIDE, duplicateKeys: 'refuse', bom: 'strip' })
  const got = outcome(subject(options), bytes, [])
  return !got.ok && got.code === 'ERR_JSON_DUPLICATE_KEY'
}

type Got = ReturnType<typeof outcome>

/** What every outcome must agree with the strict reference on, whatever the input. */
function expectConsistent(got: Got, bytes: Uint8Array, options: ResolvedPreflightOptions) {
  const strict = strictVerdict(bytes, options)
  if (got.ok) {
    expect(strict.ok).toBe(true)
    if (strict.ok && !hasDuplicateKeys(bytes)) {
      expect({ nodes: got.nodes, depth: got.depth }).toEqual(countJson(strict.value, PARSED))
    }
    expect(got.bytes).toBe(bytes.length)
    return
  }
  expect(got.offset).toBeGreaterThanOrEqual(0)
  expect(got.offset).toBeLessThanOrEqual(bytes.length)
  if (got.code === 'ERR_JSON_SYNTAX') expect(strict.ok).toBe(false)
  if (got.code === 'ERR_JSON_INVALID_UTF8') {
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow()
  }
}

/** Runs the scanner and checks it against the oracle's judgement of a generated text. */
function expectJudged(
  bytes: Uint8Array,
  cuts: readonly number[],
  l: JsonLimitsOptions,
  p: PreflightPolicies,
) {
  const options = resolvePreflightOptions({ ...l, ...p })
  const got = outcome(subject(options), bytes, cuts)
  expectConsistent(got, bytes, options)
  const want = judge(bytes, options, hasDuplicateKeys(bytes))
  if (want === null) return
  if (want.ok) {
    expect(got).toMatchObject({ ok: true, nodes: want.nodes, depth: want.depth, bytes: want.bytes })
    return
  }
  expect(got.ok).toBe(false)
  if (got.ok || want.broken === null) return
  expect([...want.broken.keys()]).toContain(got.code)
  expect(got.limit).toBe(want.broken.get(got.code as never))
  // A limit refusal saw one past its limit and no more than the text holds; the byte limit is
  // refused at the offset of the first byte past it.
  const total = {
    ERR_JSON_TOO_MANY_NODES: want.totals?.nodes,
    ERR_JSON_TOO_DEEP: want.totals?.depth,
    ERR_JSON_TOO_LARGE: want.totals?.bytes,
  }[got.code as string]
  if (total !== undefined) {
    expect(got.observed).toBeGreaterThan(got.limit as number)
    expect(got.observed).toBeLessThanOrEqual(total)
  }
  if (got.code === 'ERR_JSON_TOO_LARGE') expect(got.offset).toBe(got.limit)
}

describe('PreflightScanner (differential against itself with the fast path switched off)', () => {
  it('compares a scanner that takes the fast path with one that does not', () => {
    const options = resolvePreflightOptions({})
    expect(takesFastPath(new PreflightScanner(options))).toBe(true)
    expect(takesFastPath(byteMachineScanner(options))).toBe(false)
  })

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
    const bytes = mutate(encode(padded(parts)), edits)
    const { got, want } = both(bytes, cutsOf(raw, bytes.length), { maxBytes: 10_000_000 }, {})
    expect(got).toEqual(want)
  })
})

/** Generated texts, each followed by a long string, in one array past the 64 KiB slice. */
function padded(parts: readonly string[]): string {
  const pad = 'p'.repeat(70_000 / parts.length)
  return `[${parts.map((t) => `${t},"${pad}"`).join(',')}]`
}

describe('PreflightScanner (differential against JSON.parse over a strict UTF-8 decode and a counting walk)', () => {
  test.prop([text, bom, fc.array(fc.nat(), { maxLength: 8 }), limits, policies], {
    numRuns: 1500,
  })(
    'admits a generated text with the counts of the walk exactly when no limit or policy is broken',
    (t, b, raw, l, p) => {
      const bytes = encode(b + t)
      expectJudged(bytes, cutsOf(raw, bytes.length), l, p)
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
    'agrees with the strict reference on byte-level mutations under any chunking, limits and policies',
    (t, edits, raw, l, p) => {
      const bytes = mutate(encode(t), edits)
      const cuts = cutsOf(raw, bytes.length)
      const options = resolvePreflightOptions({ ...l, ...p })
      expectConsistent(outcome(subject(options), bytes, cuts), bytes, options)
      // With room to spare and no policy, the verdict is the reference's.
      const wide = resolvePreflightOptions(WIDE)
      const got = outcome(subject(wide), bytes, cuts)
      expect(got.ok).toBe(strictVerdict(bytes, wide).ok)
      expectConsistent(got, bytes, wide)
    },
  )

  test.prop([fc.uint8Array({ maxLength: 40 }), fc.array(fc.nat(), { maxLength: 4 }), policies], {
    numRuns: 1500,
  })('agrees with the strict reference on arbitrary byte strings', (bytes, raw, p) => {
    const options = resolvePreflightOptions(p)
    const got = outcome(subject(options), bytes, cutsOf(raw, bytes.length))
    expectConsistent(got, bytes, options)
    const wide = resolvePreflightOptions(WIDE)
    expect(outcome(subject(wide), bytes, cutsOf(raw, bytes.length)).ok).toBe(
      strictVerdict(bytes, wide).ok,
    )
  })

  test.prop([text, fc.array(mutation, { maxLength: 2 })], { numRuns: 100 })(
    'agrees with the strict reference at every split point of a small document',
    (t, edits) => {
      const bytes = mutate(encode(t), edits).subarray(0, 300)
      const options = resolvePreflightOptions(WIDE)
      const ok = strictVerdict(bytes, options).ok
      for (let cut = 0; cut <= bytes.length; cut++) {
        const got = outcome(subject(options), bytes, [cut])
        expect(got.ok).toBe(ok)
        expectConsistent(got, bytes, options)
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
  )('agrees with the strict reference on documents past the 64 KiB slice', (parts, edits, raw) => {
    const bytes = mutate(encode(padded(parts)), edits)
    const options = resolvePreflightOptions(WIDE)
    const got = outcome(subject(options), bytes, cutsOf(raw, bytes.length))
    expect(got.ok).toBe(strictVerdict(bytes, options).ok)
    expectConsistent(got, bytes, options)
  })
})
