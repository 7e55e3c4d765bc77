import { refusal } from '@tollgate/test-kit/refusal'
import { describe, expect, it } from 'vitest'
import { chargeJson, normalizeResult } from '../src/index.js'

// What a refusal costs in reads of the caller's value, counted through proxies, getters and an
// iterator (deterministic, no timing). The README promises that a container is measured before
// its members are read and that a walk stops at the limit it passes; both walks (the unordered
// one gives up, the ordered one refuses) must keep that, so each count covers the two.

/** A proxied array of `values` whose element reads are counted. */
function countedArray(values: unknown[]): { value: unknown[]; reads: () => number } {
  let reads = 0
  const value = new Proxy(values, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++
      return Reflect.get(target, key, receiver)
    },
  })
  return { value, reads: () => reads }
}

/** A plain object of members `m0`, `m1`, … holding `values`, each read counted by a getter. */
function countedObject(values: unknown[]): { value: object; reads: number[] } {
  const reads = values.map(() => 0)
  const value: Record<string, unknown> = {}
  values.forEach((member, i) => {
    Object.defineProperty(value, `m${i}`, {
      enumerable: true,
      get() {
        reads[i]!++
        return member
      },
    })
  })
  return { value, reads }
}

const times = <T>(n: number, v: T): T[] => Array.from({ length: n }, () => v)

describe('chargeJson, the reads a refusal costs', () => {
  it('reads no element of an array whose length passes maxNodes, at the root or nested', () => {
    for (const wrap of [(v: unknown) => v, (v: unknown) => [v], (v: unknown) => ({ a: v })]) {
      const { value, reads } = countedArray(times(1000, 1))
      const error = refusal(() => chargeJson(wrap(value), { maxNodes: 10 }))
      expect(error.code).toBe('ERR_JSON_TOO_MANY_NODES')
      expect(reads()).toBe(0)
    }
  })

  it('reads an array that fits once in each walk and stops at the member that passes maxBytes', () => {
    const fits = countedArray(times(1000, 10))
    expect(chargeJson(fits.value).bytes).toBe(3001)
    expect(fits.reads()).toBe(1000)
    for (const member of [10, 'ab']) {
      // `[10,10,…`: the brackets and commas (1001 bytes) and five members fit, the sixth does not.
      const size = JSON.stringify(member).length
      const over = countedArray(times(1000, member))
      const maxBytes = 1001 + 5 * size
      const error = refusal(() => chargeJson(over.value, { maxBytes }))
      expect(error).toMatchObject({ code: 'ERR_JSON_TOO_LARGE', limit: maxBytes, path: '/5' })
      expect(over.reads()).toBeLessThanOrEqual(2 * 6)
    }
  })

  it('never reads the object members after the one that passes maxBytes', () => {
    // Members `"mI":"xxxxxxxx"` and `"mI":1000000000` cost 15 or 16 bytes with the comma; 100
    // bytes fit six of them.
    for (const member of ['x'.repeat(8), 1_000_000_000]) {
      const { value, reads } = countedObject(times(40, member))
      const error = refusal(() => chargeJson(value, { maxBytes: 100 }))
      expect(error).toMatchObject({ code: 'ERR_JSON_TOO_LARGE', limit: 100, path: '/m6' })
      expect(reads.slice(0, 7).every((n) => n >= 1 && n <= 2)).toBe(true)
      expect(reads.slice(7)).toEqual(times(33, 0))
    }
  })

  it('never reads the object members after the one that passes maxNodes', () => {
    // The object is 1 node and each member 2 (key and value): 9 nodes admit four members.
    const { value, reads } = countedObject(times(40, 'v'))
    const error = refusal(() => chargeJson(value, { maxNodes: 9 }))
    expect(error).toMatchObject({ code: 'ERR_JSON_TOO_MANY_NODES', limit: 9, path: '/m4' })
    expect(reads.slice(5)).toEqual(times(35, 0))
  })

  it('never reads the object members after one that is not JSON', () => {
    for (const bad of [() => 1, Symbol('s'), 1n]) {
      const { value, reads } = countedObject([...times(3, 'v'), bad, ...times(20, 'v')])
      const error = refusal(() => chargeJson(value))
      expect(error).toMatchObject({ code: 'ERR_JSON_UNSUPPORTED_VALUE', path: '/m3' })
      expect(reads.slice(4)).toEqual(times(20, 0))
    }
  })

  it('reads at most one batch of 4,096 numbers past the fraction that passes maxBytes', () => {
    // Fractions are charged a byte each and measured 4,096 at a time, so the running total
    // lags by at most one batch. Each limit here is what the values cost at one byte a number,
    // so only measuring a batch can find the crossing: `1/3` is 18 bytes.
    const third = 1 / 3
    const list = countedArray(times(10_000, third))
    const listLimit = JSON.stringify(times(10_000, 0)).length
    const inList = refusal(() => chargeJson(list.value, { maxBytes: listLimit }))
    expect(inList.code).toBe('ERR_JSON_TOO_LARGE')
    const listAt = Number(inList.path?.slice(1))
    expect(listAt).toBeLessThan(4096)
    expect(list.reads()).toBeLessThanOrEqual(4096 + listAt + 1)
    const record = countedObject(times(10_000, third))
    const recordLimit = JSON.stringify(
      Object.fromEntries(times(10_000, 0).map((v, i) => [`m${i}`, v])),
    ).length
    const inRecord = refusal(() => chargeJson(record.value, { maxBytes: recordLimit }))
    expect(inRecord.code).toBe('ERR_JSON_TOO_LARGE')
    expect(Number(inRecord.path?.slice(2))).toBeLessThan(4096)
    expect(record.reads.slice(4096)).toEqual(times(10_000 - 4096, 0))
  })
})

describe('normalizeResult, the reads a refusal costs', () => {
  it('does not iterate a Set whose size passes maxNodes (rest profile)', () => {
    let iterated = 0
    const set = new Set(Array.from({ length: 100 }, (_, i) => i))
    const values = set.values.bind(set)
    Object.defineProperty(set, Symbol.iterator, {
      value: () => {
        iterated++
        return values()
      },
    })
    for (const value of [set, [set], { a: set }]) {
      const error = refusal(() => normalizeResult(value, { profile: 'rest', maxNodes: 10 }))
      expect(error.code).toBe('ERR_JSON_TOO_MANY_NODES')
    }
    expect(iterated).toBe(0)
    // The same Set under a limit it fits is iterated (by each walk, and by the lowering copy).
    expect(normalizeResult(set, { profile: 'rest' }).nodes).toBe(101)
    expect(iterated).toBeGreaterThan(0)
  })
})
