import { fc, test } from '@fast-check/vitest'
import { describe, expect, it } from 'vitest'
import { chargeJson, numberByteLength } from '../src/index.js'

// Integers past int32 and below 10^21 are counted by comparisons with powers of ten in both
// walks instead of being formatted. Held to the definition, the length JSON.stringify writes,
// at every power-of-ten edge (the double just below each power included) up to the switch to
// exponent notation at 10^21, and over drawn integers of every magnitude, alone, in arrays and
// as object members, beside fractions that still take the batched path.

/** The largest double below `x` (for x > 0). */
function below(x: number): number {
  const f = new Float64Array([x])
  new BigInt64Array(f.buffer)[0]! -= 1n
  return f[0]!
}

const written = (v: unknown) => Buffer.byteLength(JSON.stringify(v))

const integer = fc
  .tuple(fc.integer({ min: 1, max: 2 ** 31 }), fc.integer({ min: 0, max: 24 }), fc.boolean())
  .map(([m, e, negative]) => (negative ? -1 : 1) * Math.trunc(m * 10 ** e))
const number = fc.oneof(
  integer,
  fc.double({ min: -1e23, max: 1e23, noNaN: true }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
)

describe('numberByteLength', () => {
  it('writes integers past int32 as stringify does at every power-of-ten edge, to 10^21 and past', () => {
    const values: number[] = []
    for (let k = 9; k <= 23; k++) {
      const p = 10 ** k
      values.push(p, below(p), p + 1, below(p) - 1)
    }
    values.push(2 ** 31, 2 ** 53, 2 ** 53 + 2, 2 ** 64, Number.MAX_SAFE_INTEGER, Number.MAX_VALUE)
    for (const v of [...values, ...values.map((x) => -x)]) {
      expect([v, numberByteLength(v)]).toEqual([v, JSON.stringify(v).length])
      expect([v, chargeJson([v, v]).bytes]).toEqual([v, written([v, v])])
      expect([v, chargeJson({ v }).bytes]).toEqual([v, written({ v })])
    }
  })
})

describe('chargeJson', () => {
  test.prop([fc.array(number, { maxLength: 20 })], { numRuns: 1000 })(
    'charges integers of every magnitude and fractions as stringify writes them',
    (list) => {
      const record = Object.fromEntries(list.map((n, i) => [`k${i}`, n]))
      expect(chargeJson(list).bytes).toBe(written(list))
      expect(chargeJson(record).bytes).toBe(written(record))
      for (const n of list) expect(numberByteLength(n)).toBe(JSON.stringify(n).length)
    },
  )
})
