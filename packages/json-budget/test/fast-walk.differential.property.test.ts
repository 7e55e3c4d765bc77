import { fc, test } from '@fast-check/vitest'
import { describe, expect, it, vi } from 'vitest'
import { fastWalk } from '../src/fast-walk.js'
import { chargeJson, isAdmissionError, jsonStringByteLength } from '../src/index.js'
import { type ResolvedJsonLimits, resolveJsonLimits } from '../src/limits.js'
import type { WalkMode } from '../src/value-kind.js'
import { walkJson } from '../src/walk.js'
import { type ChargeOutcome, expectJudged, judgeValue, totalsOf } from './helpers/value-oracle.js'

// The unordered walk against two oracles that are not it: the ordered walk of walkJson, with
// the unordered walk switched off inside the same module (the same totals, and giving up, null,
// on exactly the values and limits the ordered walk refuses), and the definitions (a counting
// walk and Buffer.byteLength(JSON.stringify(v)); test/helpers/value-oracle.ts). Then the pieces
// this walk added, at their edges: the key memo, arrays resumed after a container member, and
// strings measured whole when they fit at six bytes a unit.

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

function outcome(run: () => object): object {
  try {
    return run()
  } catch (error) {
    if (!isAdmissionError(error)) throw error
    const { code, limit, observed, path } = error
    return { code, limit, observed, path }
  }
}

/** What the ordered walk makes of `value`: its totals, or null where it refuses. */
function orderedWalk(value: object, limits: ResolvedJsonLimits, mode: WalkMode) {
  return withoutFastWalk(() => {
    try {
      const { nodes, depth, bytes, sawSet } = walkJson(value, limits, mode)
      return { nodes, depth, bytes, sawSet }
    } catch (error) {
      if (!isAdmissionError(error)) throw error
      return null
    }
  })
}

/** Whether `value` holds a Set anywhere. */
function holdsSet(value: unknown): boolean {
  if (value instanceof Set) return true
  if (typeof value !== 'object' || value === null) return false
  return Object.values(value).some(holdsSet)
}

/** fastWalk gives the ordered walk's totals, or gives up where it refuses; both as the definitions say. */
function expectAgrees(value: object, limits: ResolvedJsonLimits, mode: WalkMode) {
  const got = fastWalk(value, limits, mode)
  expect(got).toEqual(orderedWalk(value, limits, mode))
  const want = judgeValue(value, limits, mode.setsAsArrays)
  expect(got).toEqual(
    want.ok ? { ...totalsOf(value, mode.setsAsArrays), sawSet: holdsSet(value) } : null,
  )
}

const unit = fc.constantFrom(
  '\ud800',
  '\udc00',
  '\ud83d\ude00',
  '\u2028',
  '\u0000',
  '\u001f',
  '"',
  '\\',
  '\u007f',
  '\u0080',
  'é',
  '中',
  'a',
)
const anyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(unit, { maxLength: 40 }).map((parts) => parts.join('')),
)
// Keys that repeat across records, at 12 and 13 units around the memo's edge, and the empty key.
const key = fc.oneof(
  fc.constantFrom('', 'id', 'name', 'x'.repeat(12), 'y'.repeat(13), 'é', '"', 'k\ud800'),
  anyString,
)
const anyNumber = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(-0, 2 ** 31, -(2 ** 31) - 1, 1e21, 5e-324, 0.1),
)
const value = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    anyString,
    anyNumber,
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(tie('value'), { maxLength: 6 }),
    fc.dictionary(key, tie('value'), { maxKeys: 6 }),
    fc.array(tie('value'), { maxLength: 4 }).map((items) => new Set(items)),
  ),
})).value
// Records: arrays of objects that share keys in the same order, as the memo expects, with
// some objects that differ in one key.
const records = fc
  .tuple(fc.array(key, { minLength: 1, maxLength: 5 }), fc.array(fc.tuple(fc.nat(), value)))
  .map(([keys, rows]) =>
    rows.map(([salt, v]) => {
      const row: Record<string, unknown> = {}
      keys.forEach((k, i) => {
        row[i === salt % (keys.length + 1) ? `${k}!` : k] = i === 0 ? v : salt
      })
      return row
    }),
  )
const modes = fc.record({ setsAsArrays: fc.boolean(), refuseSymbolKeys: fc.boolean() })
const limits = fc.record({
  maxNodes: fc.integer({ min: 1, max: 60 }),
  maxDepth: fc.integer({ min: 1, max: 6 }),
  maxBytes: fc.integer({ min: 1, max: 400 }),
})

// First in the file, so that it meets the memo as a fresh process does (vitest loads the
// module once per file): every slot holding the empty key.
describe('fastWalk on its first call', () => {
  it('charges the empty key at any position of a fresh memo', () => {
    const value = { a: 1, b: 2, '': 3, c: { '': 4 } }
    expect(chargeJson(value).bytes).toBe(Buffer.byteLength(JSON.stringify(value)))
  })
})

describe('fastWalk (differential against the ordered walk and the definitions)', () => {
  test.prop([fc.oneof(value, records), modes, limits], { numRuns: 3000 })(
    'gives the same totals, or gives up on the same values, under small limits',
    (v, mode, small) => {
      if (typeof v !== 'object' || v === null) return
      expectAgrees(v, resolveJsonLimits(small), mode)
    },
  )

  test.prop([fc.oneof(value, records), modes], { numRuns: 1000 })(
    'gives the same totals under the defaults',
    (v, mode) => {
      if (typeof v !== 'object' || v === null) return
      const resolved = resolveJsonLimits({ maxNodes: 1_000_000, maxDepth: 1000 })
      expectAgrees(v, resolved, mode)
    },
  )
})

describe('fastWalk at the edges of its shortcuts', () => {
  it('charges the empty key and keys that change at a remembered position', () => {
    const value = [
      { '': 1, id: 2 },
      { '': 1, id: 2 },
      { a: 1, '': 2 },
      { a: 1, id: 'é' },
      { '"': 1, ['x'.repeat(12)]: 2 },
      { '"': 1, ['x'.repeat(12)]: 2 },
      { é: 1, ['y'.repeat(13)]: 2 },
      { é: 1, ['y'.repeat(13)]: 2 },
    ]
    expect(chargeJson(value).bytes).toBe(Buffer.byteLength(JSON.stringify(value)))
    expect(chargeJson(value)).toEqual(totalsOf(value))
  })

  it('charges objects wider than the memo, and keys past its last slot', () => {
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i % 20}${i}`, i]))
    const value = [wide, wide, { ...wide, k00: 'changed' }]
    expect(chargeJson(value).bytes).toBe(Buffer.byteLength(JSON.stringify(value)))
    expect(chargeJson(value)).toEqual(totalsOf(value))
  })

  it('charges like stringify when a getter calls chargeJson on other keys mid-walk', () => {
    let inner = 0
    const row = {
      get a() {
        inner = chargeJson([{ zz: 1, yy: 2, xx: 3 }]).bytes
        return 'v'
      },
      b: 1,
      c: 2,
    }
    const value = [row, { a: 'v', b: 1, c: 2 }, row]
    expect(chargeJson(value).bytes).toBe(Buffer.byteLength(JSON.stringify(value)))
    expect(inner).toBe(Buffer.byteLength(JSON.stringify([{ zz: 1, yy: 2, xx: 3 }])))
  })

  it('counts the digits of integers past int32 as stringify writes them, up to 1e21 and past it', () => {
    const edges: number[] = [2 ** 31, 2 ** 52, 2 ** 53, 2 ** 53 + 2, 2 ** 60, 2 ** 64]
    for (let d = 9; d <= 22; d++) edges.push(10 ** d - 2 ** Math.max(0, d - 15), 10 ** d)
    const values = edges.flatMap((n) => [n, -n, n + 1, n * 3])
    const limits = resolveJsonLimits({})
    for (const n of values) {
      const want = Buffer.byteLength(JSON.stringify({ k: n, a: [n, [n]] }))
      const got = fastWalk({ k: n, a: [n, [n]] }, limits, {
        setsAsArrays: false,
        refuseSymbolKeys: false,
      })
      expect([n, got?.bytes]).toEqual([n, want])
    }
  })

  it('resumes arrays after container members, at every position and depth', () => {
    const value = [[], 1, [[2, [3]], {}], 'x', { a: [4, [5, {}]] }, [[[[]]]], 6]
    const resolved = resolveJsonLimits({ maxDepth: 5 })
    const mode = { setsAsArrays: true, refuseSymbolKeys: false }
    expectAgrees(value, resolved, mode)
    expect(chargeJson(value).bytes).toBe(Buffer.byteLength(JSON.stringify(value)))
    expect(chargeJson(value, { maxDepth: 5 }).depth).toBe(5)
    const withSet = [new Set([[1], 2, { a: new Set([[]]) }, 3])]
    expectAgrees(withSet, resolved, mode)
  })

  it('gives up on an array resumed past maxDepth and maxNodes where the ordered walk refuses', () => {
    const value = [1, [2, [3]], 4, [5]]
    for (let maxDepth = 1; maxDepth <= 3; maxDepth++) {
      for (let maxNodes = 1; maxNodes <= 9; maxNodes++) {
        const resolved = resolveJsonLimits({ maxDepth, maxNodes })
        const mode = { setsAsArrays: false, refuseSymbolKeys: false }
        expectAgrees(value, resolved, mode)
      }
    }
  })

  it('admits without giving up at exactly maxNodes, maxDepth and maxBytes, and gives up one under', () => {
    // Each limit reached exactly by the last thing counted: the braces of an empty object, a
    // member of an object, an array's brackets, a Set's size; giving up there would send an
    // admissible value to the ordered walk.
    const values: object[] = [
      {},
      [],
      { a: 1 },
      [1, 'é'],
      { a: { b: [] }, c: 'x', d: true, e: null },
      [[], {}],
      new Set(),
      [new Set([1, 2])],
      { s: new Set([[], 'é']) },
    ]
    const mode = { setsAsArrays: true, refuseSymbolKeys: false }
    for (const value of values) {
      const exact = { ...totalsOf(value, true)!, sawSet: holdsSet(value) }
      const { nodes, depth, bytes } = exact
      const fits = resolveJsonLimits({ maxNodes: nodes, maxDepth: depth, maxBytes: bytes })
      expect(fastWalk(value, fits, mode)).toEqual(exact)
      for (const under of [
        { maxNodes: nodes - 1, maxDepth: depth, maxBytes: bytes },
        { maxNodes: nodes, maxDepth: depth - 1, maxBytes: bytes },
        { maxNodes: nodes, maxDepth: depth, maxBytes: bytes - 1 },
      ]) {
        if (under.maxNodes < 1) continue
        expect(fastWalk(value, resolveJsonLimits(under), mode)).toBeNull()
      }
    }
  })

  it('measures a string whole exactly when it fits at six bytes a unit, and in chunks past that', () => {
    // n lone surrogates cost 6n + 2 bytes: the most n units can cost.
    for (const n of [33, 4095, 4097, 9000]) {
      const worst = '\ud800'.repeat(n)
      const mixed = `${'a'.repeat(n - 3)}"\u0001\udc00`
      for (const s of [worst, mixed]) {
        const exact = Buffer.byteLength(JSON.stringify(s))
        for (const maxBytes of [6 * n + 2, 6 * n + 1, exact, exact - 1]) {
          const got = outcome(() => chargeJson(s, { maxBytes }))
          expect(got).toEqual(withoutFastWalk(() => outcome(() => chargeJson(s, { maxBytes }))))
          // Inside an array (two more bytes), where the unordered walk measures it.
          const inArray = { maxBytes: maxBytes + 2 }
          const held = outcome(() => chargeJson([s], inArray))
          expect(held).toEqual(withoutFastWalk(() => outcome(() => chargeJson([s], inArray))))
          const judged = (o: object) =>
            ('code' in o ? { refused: o } : { admitted: o }) as ChargeOutcome
          expectJudged(judged(got), judgeValue(s, resolveJsonLimits({ maxBytes })), s)
          expectJudged(judged(held), judgeValue([s], resolveJsonLimits(inArray)), [s])
          if (maxBytes < exact) expect(got).toMatchObject({ code: 'ERR_JSON_TOO_LARGE' })
          else expect(got).toMatchObject({ bytes: exact })
        }
        expect(jsonStringByteLength(s)).toBe(exact)
      }
    }
  })
})
