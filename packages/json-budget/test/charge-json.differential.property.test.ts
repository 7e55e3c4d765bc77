import { fc, test } from '@fast-check/vitest'
import { describe, expect, it, vi } from 'vitest'
import { fastWalk } from '../src/fast-walk.js'
import { chargeJson, isAdmissionError, normalizeResult } from '../src/index.js'
import { resolveJsonLimits } from '../src/limits.js'
import { type ChargeOutcome, expectJudged, judgeValue, totalsOf } from './helpers/value-oracle.js'

// The fast paths (unordered walk, plain-ASCII string checks, int32 digit counts, batched
// numbers) against two oracles that are not them: the definitions (a counting walk for nodes
// and depth, Buffer.byteLength(JSON.stringify(v)) for bytes; test/helpers/value-oracle.ts), and
// the same functions with the unordered walk switched off, so that every value takes the
// ordered walk that makes every refusal.

const fast = vi.hoisted(() => ({ on: true }))
vi.mock('../src/fast-walk.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/fast-walk.js')>()
  return {
    ...real,
    fastWalk: (...args: Parameters<typeof real.fastWalk>) =>
      fast.on ? real.fastWalk(...args) : null,
  }
})

/** Runs `run` with the unordered walk switched off: every value takes the ordered walk. */
function withoutFastWalk<T>(run: () => T): T {
  fast.on = false
  try {
    return run()
  } finally {
    fast.on = true
  }
}

function outcome(run: () => { nodes: number; depth: number; bytes: number }): ChargeOutcome {
  try {
    const { nodes, depth, bytes } = run()
    return { admitted: { nodes, depth, bytes } }
  } catch (error) {
    if (!isAdmissionError(error)) throw error
    const { code, limit, observed, path } = error
    return { refused: { code, limit, observed, path } }
  }
}

/** The outcome of chargeJson, and of chargeJson with the unordered walk switched off. */
function both(value: unknown, limits?: Parameters<typeof chargeJson>[1]) {
  const got = outcome(() => chargeJson(value, limits))
  const plain = withoutFastWalk(() => outcome(() => chargeJson(value, limits)))
  return { got, plain }
}

const unit = fc.constantFrom(
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ud83d\ude00',
  '\u2028',
  '\u2029',
  '\u0000',
  '\u0008',
  '\u001f',
  '"',
  '\\',
  '\u007f',
  '\u0080',
  'é',
  '中',
  ' ',
  'a',
)
const edgeString = fc.array(unit, { maxLength: 40 }).map((parts) => parts.join(''))
// Mostly plain ASCII around the 32/33-unit short-string edge, with the odd unit that is not.
const nearShort = fc
  .tuple(fc.integer({ min: 28, max: 37 }), fc.array(fc.tuple(fc.nat(), unit), { maxLength: 2 }))
  .map(([n, spots]) => {
    const units = Array.from({ length: n }, () => 'k')
    for (const [at, u] of spots) units[at % n] = u
    return units.join('')
  })
const anyString = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), edgeString, nearShort)
const anyNumber = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.integer({ min: -(2 ** 31) - 2, max: -(2 ** 31) + 2 }),
  fc.integer({ min: 2 ** 31 - 2, max: 2 ** 31 + 2 }),
  fc.maxSafeInteger(),
  fc.constantFrom(-0, 0, 1e15, -1e15, 1e15 - 1, 1e21, 5e-324, 0.1, -1.5),
)
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    anyString,
    anyNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 6 }),
    fc.dictionary(anyString, fc.oneof(tie('value'), fc.constant(undefined)), { maxKeys: 6 }),
    fc
      .dictionary(anyString, tie('value'), { maxKeys: 4 })
      .map((o) => Object.assign(Object.create(null), o)),
  ),
})).value
// Values with things the walk refuses, for the refusal comparison.
const notJson = fc.constantFrom(
  undefined,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  () => 1,
  new Date(0),
)
const mixed = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    anyString,
    anyNumber,
    fc.constant(null),
    notJson,
    fc.array(tie('value'), { maxLength: 6 }),
    fc.dictionary(anyString, tie('value'), { maxKeys: 6 }),
  ),
})).value

describe('chargeJson (differential against the definitions and against its ordered walk)', () => {
  it('switches the unordered walk off inside the same module', () => {
    const limits = resolveJsonLimits({})
    const mode = { setsAsArrays: false, refuseSymbolKeys: false }
    expect(fastWalk({ a: 1 }, limits, mode)).not.toBeNull()
    expect(withoutFastWalk(() => fastWalk({ a: 1 }, limits, mode))).toBeNull()
  })

  test.prop([json], { numRuns: 2000 })(
    'admits with the nodes and depth of the counting walk and bytes of Buffer.byteLength(JSON.stringify(v))',
    (value) => {
      const limits = { maxDepth: 1000, maxNodes: 1_000_000 }
      const { got, plain } = both(value, limits)
      expect(got).toEqual({ admitted: totalsOf(value) })
      expect(got).toEqual(plain)
    },
  )

  test.prop(
    [
      mixed,
      fc.record({
        maxNodes: fc.integer({ min: 1, max: 40 }),
        maxDepth: fc.integer({ min: 0, max: 5 }),
        maxBytes: fc.integer({ min: 1, max: 300 }),
      }),
    ],
    { numRuns: 3000 },
  )(
    "refuses exactly when a total breaks a limit or a value is not JSON, with the ordered walk's code, limit, observed and path",
    (value, limits) => {
      const { got, plain } = both(value, limits)
      expect(got).toEqual(plain)
      expectJudged(got, judgeValue(value, resolveJsonLimits(limits)), value)
    },
  )

  test.prop(
    [fc.array(fc.tuple(fc.nat(), unit), { maxLength: 3 }), fc.integer({ min: 0, max: 3 })],
    {
      numRuns: 300,
    },
  )('charges strings across the 4,096-unit chunk edge exactly', (spots, extra) => {
    const n = 4094 + extra
    const units = Array.from({ length: n * 2 }, () => 'x')
    for (const [at, u] of spots) units[at % units.length] = u
    const s = units.join('')
    const exact = Buffer.byteLength(JSON.stringify(s))
    expect(chargeJson(s)).toEqual({ nodes: 1, depth: 0, bytes: exact })
    for (const maxBytes of [exact, exact - 1]) {
      const got = outcome(() => chargeJson(s, { maxBytes }))
      expectJudged(got, judgeValue(s, resolveJsonLimits({ maxBytes })), s)
      expect(got).toEqual(withoutFastWalk(() => outcome(() => chargeJson(s, { maxBytes }))))
    }
  })

  test.prop([json, fc.constantFrom<'rest' | 'mcp'>('rest', 'mcp')], { numRuns: 500 })(
    'normalizeResult walks to the totals of the definitions and of its ordered walk in both profiles',
    (value, profile) => {
      const withSet = [new Set([value, 1]), value]
      const limits = { maxDepth: 1000, maxNodes: 1_000_000, maxBytes: 64 * 1024 * 1024 }
      const run = (v: unknown) => () => {
        const { nodes, depth, bytes } = normalizeResult(v, { profile, ...limits })
        return { nodes, depth, bytes }
      }
      for (const v of [withSet, value]) {
        const got = outcome(run(v))
        expect(got).toEqual(withoutFastWalk(() => outcome(run(v))))
        // The rest profile lowers a Set to an array; the mcp profile refuses it.
        expectJudged(got, judgeValue(v, resolveJsonLimits(limits), profile === 'rest'), v)
      }
    },
  )
})

describe('chargeJson at the fast-path boundaries', () => {
  const special = ['"', '\\', '\u0000', '\u001f', '\u007f', 'é', '\u2028', '\ud800', '\udc00']

  it('charges 31- to 34-unit strings with a quote, backslash, control or non-ASCII unit at each position', () => {
    for (let n = 31; n <= 34; n++) {
      for (let at = 0; at < n; at++) {
        for (const u of special) {
          const s = `${'a'.repeat(at)}${u}${'a'.repeat(n - at - 1)}`
          expect(chargeJson(s).bytes).toBe(Buffer.byteLength(JSON.stringify(s)))
          expect(chargeJson({ [s]: s }).bytes).toBe(Buffer.byteLength(JSON.stringify({ [s]: s })))
        }
      }
    }
  })

  it('charges a special unit at each position around the 4,096-unit chunk edge', () => {
    const positions = [0, 1, 2, 4093, 4094, 4095, 4096, 4097, 8190, 8191]
    for (const at of positions) {
      for (const u of [...special, '\ud83d\ude00']) {
        const s = `${'b'.repeat(at)}${u}${'b'.repeat(8192 - at)}`
        expect(chargeJson(s)).toEqual({
          nodes: 1,
          depth: 0,
          bytes: Buffer.byteLength(JSON.stringify(s)),
        })
      }
    }
  })

  it('counts int32 and safe-integer digits at every power of ten and at the int32 edges', () => {
    const values = [-0, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1]
    for (let k = 0; k <= 16; k++) values.push(10 ** k - 1, 10 ** k, -(10 ** k), -(10 ** k) + 1)
    for (const v of values) {
      expect(chargeJson(v).bytes).toBe(JSON.stringify(v).length)
      expect(chargeJson([v]).bytes).toBe(JSON.stringify([v]).length)
      expect(chargeJson({ v }).bytes).toBe(JSON.stringify({ v }).length)
    }
  })

  it('charges fractions and large integers measured in batches of 4,096, across batch edges', () => {
    for (const n of [4095, 4096, 4097, 8193]) {
      const list = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? i / 7 : i * 2 ** 40 - 0.5))
      const record = Object.fromEntries(list.map((v, i) => [`k${i}`, v]))
      for (const value of [list, record, [list, record]]) {
        const { got, plain } = both(value, { maxNodes: 1_000_000 })
        expect(got).toEqual({ admitted: totalsOf(value) })
        expect(got).toEqual(plain)
      }
      // A byte limit inside the batched numbers: the ordered walk's refusal.
      const limits = { maxNodes: 1_000_000, maxBytes: Buffer.byteLength(JSON.stringify(list)) - 1 }
      const { got, plain } = both(list, limits)
      expect(got).toEqual(plain)
      expectJudged(got, judgeValue(list, resolveJsonLimits(limits)), list)
    }
  })

  it('charges batched numbers like stringify when Array.prototype has a toJSON', () => {
    const proto = Array.prototype as unknown as Record<string, unknown>
    const value = { a: 0.5, b: 1e300, c: -2.5e-7, d: 2 ** 40 }
    try {
      proto.toJSON = () => 'x'
      expect(chargeJson(value).bytes).toBe(Buffer.byteLength(JSON.stringify(value)))
    } finally {
      delete proto.toJSON
    }
  })

  it('charges like stringify when Object.prototype has an enumerable property', () => {
    const proto = Object.prototype as Record<string, unknown>
    const value = { a: 1, b: [{ c: 'd' }] }
    try {
      proto.polluted = 'x'.repeat(100)
      const { got, plain } = both(value)
      expect(got).toEqual(plain)
      expect(got).toEqual({
        admitted: { ...totalsOf(value), bytes: Buffer.byteLength(JSON.stringify(value)) },
      })
    } finally {
      delete proto.polluted
    }
  })

  it('charges like stringify when a getter pollutes Object.prototype during the walk', () => {
    const proto = Object.prototype as Record<string, unknown>
    const value = {
      get a() {
        proto.late = 1
        return 1
      },
      b: { c: 2 },
    }
    try {
      const charge = chargeJson(value)
      expect(charge.bytes).toBe(Buffer.byteLength(JSON.stringify(value)))
    } finally {
      delete proto.late
    }
  })
})
