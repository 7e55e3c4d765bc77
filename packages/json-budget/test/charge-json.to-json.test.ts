import { refusal } from '@tollgate/test-kit/refusal'
import { describe, expect, it } from 'vitest'
import { chargeJson } from '../src/index.js'

// An object's `toJSON` is read with Reflect.get (an array's with a property load): the same
// [[Get]] stringify makes. Each way a callable toJSON can be reached is refused, also after the
// walk has seen thousands of records of distinct key sets (where a cached property load
// missed), and a toJSON that is not callable is charged as the data it is.

/** 3,000 records, each with its own key set, so the walk has met many object shapes. */
function manyShapes(): Record<string, number>[] {
  return Array.from({ length: 3000 }, (_, i) => ({ [`k${i}`]: i, [`m${i % 7}`]: 1 }))
}

describe('chargeJson', () => {
  it('refuses every way a callable toJSON is reached, among records of many key sets', () => {
    const fn = () => 'x'
    const cases: [string, () => object][] = [
      ['own', () => ({ a: 1, toJSON: fn })],
      ['own, not enumerable', () => Object.defineProperty({ a: 1 }, 'toJSON', { value: fn })],
      ['own getter', () => Object.defineProperty({ a: 1 }, 'toJSON', { get: () => fn })],
      ['null prototype, own', () => Object.assign(Object.create(null), { toJSON: fn })],
      [
        'proxy get trap',
        () => new Proxy({ a: 1 }, { get: (t, k) => (k === 'toJSON' ? fn : Reflect.get(t, k)) }),
      ],
      ['array, own', () => Object.assign([1, 2], { toJSON: fn })],
      ['array, not enumerable', () => Object.defineProperty([1], 'toJSON', { value: fn })],
    ]
    for (const [name, make] of cases) {
      const records: unknown[] = manyShapes()
      records.push({ deep: make() })
      const error = refusal(() => chargeJson(records, { maxNodes: 1e6 }))
      expect([name, error.code, error.path]).toEqual([
        name,
        'ERR_JSON_UNSUPPORTED_VALUE',
        '/3000/deep',
      ])
    }
  })

  it('refuses a toJSON inherited from a polluted Object.prototype or Array.prototype', () => {
    for (const proto of [Object.prototype, Array.prototype] as Record<string, unknown>[]) {
      Object.defineProperty(proto, 'toJSON', { value: () => 'x', configurable: true })
      try {
        const code = refusal(() => chargeJson([...manyShapes(), [1]], { maxNodes: 1e6 })).code
        expect(code).toBe('ERR_JSON_UNSUPPORTED_VALUE')
      } finally {
        delete proto.toJSON
      }
    }
  })

  it('charges a toJSON that is not callable as data, as stringify writes it', () => {
    const records: unknown[] = manyShapes()
    records.push({ toJSON: 1 }, Object.assign([2], { toJSON: 'no' }))
    expect(chargeJson(records, { maxNodes: 1e6 }).bytes).toBe(
      Buffer.byteLength(JSON.stringify(records)),
    )
  })
})
