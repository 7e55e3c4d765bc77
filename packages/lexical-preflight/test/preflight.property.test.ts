import { fc, test } from '@fast-check/vitest'
import { chargeJson } from '@tollgate/json-budget'
import { isStrictJson } from '@tollgate/test-kit/strict-json'
import { describe, expect } from 'vitest'
import { preflight } from '../src/index.js'
import { verdict, WIDE } from './helpers/preflight-runs.js'

const encode = (text: string) => new TextEncoder().encode(text)

// JSON texts: compact, pretty-printed, and with random whitespace between tokens; values reach
// every code point (lone surrogates come out of JSON.stringify as \u escapes).
const value = fc.jsonValue({ maxDepth: 6 })
const text = fc.oneof(
  value.map((v) => JSON.stringify(v)),
  value.map((v) => JSON.stringify(v, null, 2)),
  fc.json({ maxDepth: 6 }),
  fc
    .tuple(value, fc.array(fc.constantFrom(' ', '\t', '\n', '\r'), { maxLength: 4 }))
    .map(([v, ws]) => `${ws.join('')}${JSON.stringify(v)}${ws.join('')}`),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => JSON.stringify({ [s]: [s, 1.5e-7] })),
)

// Bytes chosen to hit every branch: structure, escapes, digits and UTF-8 boundary bytes.
const interesting = fc.constantFrom(
  0x00,
  0x09,
  0x0a,
  0x1f,
  0x20,
  0x22,
  0x2b,
  0x2c,
  0x2d,
  0x2e,
  0x2f,
  0x30,
  0x31,
  0x3a,
  0x45,
  0x5b,
  0x5c,
  0x5d,
  0x65,
  0x6e,
  0x74,
  0x75,
  0x7b,
  0x7d,
  0x7f,
  0x80,
  0x8f,
  0x90,
  0x9f,
  0xa0,
  0xbf,
  0xc0,
  0xc1,
  0xc2,
  0xdf,
  0xe0,
  0xed,
  0xef,
  0xf0,
  0xf4,
  0xf5,
  0xff,
)
const mutation = fc.record({
  kind: fc.constantFrom('replace', 'insert', 'delete'),
  at: fc.nat(),
  byte: fc.oneof(interesting, fc.integer({ min: 0, max: 255 })),
})

function mutate(bytes: Uint8Array, edits: { kind: string; at: number; byte: number }[]) {
  let out = Array.from(bytes)
  for (const { kind, at, byte } of edits) {
    const i = out.length === 0 ? 0 : at % (out.length + (kind === 'insert' ? 1 : 0))
    if (kind === 'replace' && out.length > 0) out[i] = byte
    else if (kind === 'insert') out.splice(i, 0, byte)
    else if (kind === 'delete') out = out.filter((_, k) => k !== i)
  }
  return Uint8Array.from(out)
}

describe('preflight (differential against JSON.parse over a strict UTF-8 decode)', () => {
  test.prop([text], { numRuns: 400 })('admits every generated JSON text', (t) => {
    const bytes = encode(t)
    expect(isStrictJson(bytes)).toBe(true)
    expect(verdict(bytes).ok).toBe(true)
  })

  test.prop([value], { numRuns: 400 })(
    'counts the nodes and depth chargeJson counts on the parsed value',
    (v) => {
      const bytes = encode(JSON.stringify(v))
      const charged = chargeJson(JSON.parse(JSON.stringify(v)), WIDE)
      const scanned = preflight(bytes, WIDE)
      expect({ nodes: scanned.nodes, depth: scanned.depth }).toEqual({
        nodes: charged.nodes,
        depth: charged.depth,
      })
      expect(scanned.bytes).toBe(charged.bytes)
    },
  )

  test.prop([text, fc.array(mutation, { minLength: 1, maxLength: 4 })], { numRuns: 1500 })(
    'agrees with the reference verdict on byte-level mutations',
    (t, edits) => {
      const bytes = mutate(encode(t), edits)
      expect(verdict(bytes).ok).toBe(isStrictJson(bytes))
    },
  )

  test.prop([fc.uint8Array({ maxLength: 24 })], { numRuns: 1500 })(
    'agrees with the reference verdict on arbitrary short byte strings',
    (bytes) => {
      expect(verdict(bytes).ok).toBe(isStrictJson(bytes))
    },
  )

  test.prop([text, fc.array(mutation, { maxLength: 2 })], { numRuns: 150 })(
    'gives the one-shot outcome at every split point of a small document',
    (t, edits) => {
      const bytes = mutate(encode(t), edits).subarray(0, 200)
      const whole = verdict(bytes)
      for (let cut = 0; cut <= bytes.length; cut++) expect(verdict(bytes, [cut])).toEqual(whole)
    },
  )

  test.prop([text, fc.array(fc.nat(), { maxLength: 12 })], { numRuns: 400 })(
    'gives the one-shot outcome under any chunking',
    (t, raw) => {
      const bytes = encode(t)
      const cuts = [...new Set(raw.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
      expect(verdict(bytes, cuts)).toEqual(verdict(bytes))
    },
  )

  test.prop([value, fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 60 })], {
    numRuns: 300,
  })(
    'refuses exactly when chargeJson refuses, for depth and node limits',
    (v, maxDepth, maxNodes) => {
      const json = JSON.stringify(v)
      const counts = chargeJson(JSON.parse(json), { maxDepth: 1e6, maxNodes: 1e6, maxBytes: 1e9 })
      let charged: string
      try {
        chargeJson(JSON.parse(json), { maxDepth, maxNodes, maxBytes: 1e9 })
        charged = 'ok'
      } catch (error) {
        charged = (error as { code: string }).code
      }
      const scanned = verdict(encode(json), [], { maxDepth, maxNodes, maxBytes: 1e9 })
      const got = scanned.ok ? 'ok' : scanned.code
      // When a document breaks both limits, which one is reported first depends on the order
      // of discovery: chargeJson reads an array's length before its members, the scanner
      // meets the nesting first. Either code is right then; otherwise they must agree.
      if (counts.depth > maxDepth && counts.nodes > maxNodes) {
        expect(['ERR_JSON_TOO_DEEP', 'ERR_JSON_TOO_MANY_NODES']).toContain(got)
        expect(['ERR_JSON_TOO_DEEP', 'ERR_JSON_TOO_MANY_NODES']).toContain(charged)
      } else {
        expect(got).toBe(charged)
      }
    },
  )
})
