// Shared by the differential tests: JSON texts and byte mutations aimed at the scanners'
// branches, random limits, policies and chunkings, and the outcome of one chunked run (counts,
// or the refusal's code, offset, limit and observed, and the push that threw).
import { fc } from '@fast-check/vitest'
import { isAdmissionError, type JsonLimitsOptions } from '@tollgate/json-budget'
import { expect } from 'vitest'
import {
  type PreflightPolicies,
  type ResolvedPreflightOptions,
  resolvePreflightOptions,
} from '../../src/options.js'

/** What both scanners offer. */
export interface Scanner {
  push(chunk: Uint8Array): void
  end(): { nodes: number; depth: number; bytes: number }
}

/** The outcome of pushing `bytes` cut at `cuts`, then `end()`. */
export function outcome(scanner: Scanner, bytes: Uint8Array, cuts: readonly number[]) {
  let at = 0
  try {
    let from = 0
    for (const cut of [...cuts, bytes.length]) {
      scanner.push(bytes.subarray(from, cut))
      from = cut
      at++
    }
    const r = scanner.end()
    // A second end() returns the same counts.
    expect(scanner.end()).toEqual(r)
    return { ok: true, nodes: r.nodes, depth: r.depth, bytes: r.bytes, at }
  } catch (error) {
    if (!isAdmissionError(error)) throw error
    const { code, offset, limit, observed } = error
    // A failed scanner rethrows the same error.
    expect(() => scanner.end()).toThrow(error)
    return { ok: false, code, offset, limit, observed, at }
  }
}

/** Makes one scanner for resolved options. */
export type ScannerFactory = (options: ResolvedPreflightOptions) => Scanner

/** The outcomes of the scanner under test (`got`) and of its reference (`want`). */
export function both(
  subject: ScannerFactory,
  reference: ScannerFactory,
  bytes: Uint8Array,
  cuts: readonly number[],
  limits: JsonLimitsOptions,
  policies: PreflightPolicies,
) {
  const options = resolvePreflightOptions({ ...limits, ...policies })
  const got = outcome(subject(options), bytes, cuts)
  const want = outcome(reference(options), bytes, cuts)
  return { got, want }
}

export const encode = (text: string) => new TextEncoder().encode(text)

// Short tokens dominate (keys, small numbers, literals), with strings around the fast path's
// 32-byte hand-over, escapes, non-ASCII text and nesting past the 32 levels kept in one word.
const longish = fc
  .tuple(fc.integer({ min: 20, max: 80 }), fc.constantFrom('x', 'é', '中', '\\n', '"', '\u0001'))
  .map(([k, s]) => 'a'.repeat(k) + s + 'b'.repeat(k % 7))
const str = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  longish,
)
const num = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: 0, max: 9 }),
)
const leaf = fc.oneof(str, num, fc.boolean(), fc.constant(null))
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('v'), { maxLength: 5 }),
    fc.dictionary(str, tie('v'), { maxKeys: 5 }),
  ),
})).v
const deep = fc
  .tuple(fc.integer({ min: 28, max: 70 }), fc.array(fc.boolean(), { maxLength: 70 }), leaf)
  .map(([d, kinds, inner]) => {
    let open = ''
    let close = ''
    for (let k = 0; k < d; k++) {
      const obj = kinds[k] === true
      open += obj ? '{"k":' : '['
      close = (obj ? '}' : ']') + close
    }
    return `${open}${JSON.stringify(inner)}${close}`
  })
const spaced = (s: string, ws: string[]) =>
  s.replace(/[,:[\]{}]/g, (m, k: number) => `${ws[k % (ws.length || 1)] ?? ''}${m}`)
export const text = fc.oneof(
  value.map((v) => JSON.stringify(v)),
  value.map((v) => JSON.stringify(v, null, 2)),
  fc
    .tuple(value, fc.array(fc.constantFrom(' ', '\t', '\n', '\r', '', '  '), { maxLength: 6 }))
    .map(([v, ws]) => spaced(JSON.stringify(v), ws)),
  deep,
  fc.json({ maxDepth: 4 }),
)
export const bom = fc.constantFrom('', '\ufeff')

const interesting = fc.constantFrom(
  ...[0x00, 0x09, 0x0a, 0x0d, 0x1f, 0x20, 0x22, 0x2b, 0x2c, 0x2d, 0x2e, 0x30, 0x31, 0x39, 0x3a],
  ...[0x45, 0x5b, 0x5c, 0x5d, 0x61, 0x65, 0x66, 0x6c, 0x6e, 0x72, 0x73, 0x74, 0x75, 0x7b, 0x7d],
  ...[0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff],
)
export const mutation = fc.record({
  kind: fc.constantFrom('replace', 'insert', 'delete', 'truncate'),
  at: fc.nat(),
  byte: fc.oneof(interesting, fc.integer({ min: 0, max: 255 })),
})

/** Applies byte edits (replace, insert, delete, truncate) in order. */
export function mutate(bytes: Uint8Array, edits: { kind: string; at: number; byte: number }[]) {
  let out = Array.from(bytes)
  for (const { kind, at, byte } of edits) {
    const i = out.length === 0 ? 0 : at % (out.length + (kind === 'insert' ? 1 : 0))
    if (kind === 'replace' && out.length > 0) out[i] = byte
    else if (kind === 'insert') out.splice(i, 0, byte)
    else if (kind === 'delete') out = out.filter((_, k) => k !== i)
    else if (kind === 'truncate') out = out.slice(0, i)
  }
  return Uint8Array.from(out)
}

export const limits = fc.record(
  {
    maxDepth: fc.oneof(fc.integer({ min: 0, max: 80 }), fc.constant(1_000_000)),
    maxNodes: fc.oneof(fc.integer({ min: 1, max: 200 }), fc.constant(10_000_000)),
    maxBytes: fc.oneof(fc.integer({ min: 1, max: 4000 }), fc.constant(1_000_000)),
  },
  { requiredKeys: [] },
)
export const policies = fc.record(
  {
    duplicateKeys: fc.constantFrom('allow' as const, 'refuse' as const),
    protoKeys: fc.constantFrom('allow' as const, 'refuse' as const),
    maxStringBytes: fc.integer({ min: 0, max: 100 }),
    maxNumberLength: fc.integer({ min: 1, max: 30 }),
    bom: fc.constantFrom('refuse' as const, 'strip' as const),
  },
  { requiredKeys: [] },
)
export const cutsOf = (raw: number[], length: number) =>
  [...new Set(raw.map((c) => c % (length + 1)))].sort((a, b) => a - b)
