import { fc, test } from '@fast-check/vitest'
import { describe, expect } from 'vitest'
import { chargeJson } from '../src/index.js'

// An independent reference: recursive, written from the definitions of node, depth and compact size.
function reference(value: unknown, level = 0): { nodes: number; depth: number } {
  if (Array.isArray(value)) {
    let nodes = 1
    let depth = level + 1
    for (const item of value) {
      const r = reference(item, level + 1)
      nodes += r.nodes
      depth = Math.max(depth, r.depth)
    }
    return { nodes, depth }
  }
  if (typeof value === 'object' && value !== null) {
    let nodes = 1
    let depth = level + 1
    for (const item of Object.values(value)) {
      const r = reference(item, level + 1)
      nodes += 1 + r.nodes
      depth = Math.max(depth, r.depth)
    }
    return { nodes, depth }
  }
  return { nodes: 1, depth: level }
}

// Strings over the whole UTF-16 range: lone surrogates, controls, U+2028, astral pairs.
const anyString = fc.string({ unit: 'binary', maxLength: 40 })
const edgeString = fc
  .array(
    fc.constantFrom(
      '\ud800',
      '\udfff',
      '\ud83d\ude00',
      '\u2028',
      '\u0000',
      '\u001f',
      '"',
      '\\',
      '\u007f',
      'é',
      '中',
      'a',
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''))
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    anyString,
    edgeString,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 6 }),
    fc.dictionary(fc.oneof(anyString, edgeString), tie('value'), { maxKeys: 6 }),
  ),
})).value

describe('chargeJson', () => {
  test.prop([json], { numRuns: 2000 })(
    'charges exactly Buffer.byteLength(JSON.stringify(v)) bytes for arbitrary JSON values',
    (value) => {
      expect(chargeJson(value, { maxDepth: 1000 }).bytes).toBe(
        Buffer.byteLength(JSON.stringify(value)),
      )
    },
  )

  test.prop([json], { numRuns: 1000 })(
    'counts nodes and depth as an independent recursive reference does',
    (value) => {
      const { nodes, depth } = chargeJson(value, { maxDepth: 1000, maxNodes: 1_000_000 })
      expect({ nodes, depth }).toEqual(reference(value))
    },
  )

  test.prop([fc.string({ unit: 'binary', minLength: 4000, maxLength: 13000 })], { numRuns: 200 })(
    'charges long strings across 4,096-unit chunk edges exactly',
    (s) => {
      expect(chargeJson(s).bytes).toBe(Buffer.byteLength(JSON.stringify(s)))
    },
  )

  test.prop([json, fc.nat({ max: 400 })], { numRuns: 1000 })(
    'admits a value exactly when its encoding fits maxBytes',
    (value, maxBytes) => {
      const size = Buffer.byteLength(JSON.stringify(value))
      const limit = maxBytes + 1
      if (size <= limit) {
        expect(chargeJson(value, { maxBytes: limit, maxDepth: 1000 }).bytes).toBe(size)
      } else {
        expect(() => chargeJson(value, { maxBytes: limit, maxDepth: 1000 })).toThrow(
          expect.objectContaining({ code: 'ERR_JSON_TOO_LARGE', limit }),
        )
      }
    },
  )
})
