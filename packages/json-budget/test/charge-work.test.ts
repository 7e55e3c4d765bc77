import { refusal } from '@tollgate/test-kit/refusal'
import { describe, expect, it } from 'vitest'
import { chargeJson, normalizeResult } from '../src/index.js'

// What a refusal costs in reads of the caller's value, counted through proxies, getters and an
// iterator (deterministic, no timing). The README promises that a container is measured before
// its members are read and that a walk stops at the limit it passes; both walks (the unordered
// one gives up, the ordered one refuses) must keep that, so each count covers the two.

/** An array of `length` ones whose element reads are counted. */
function countedArray(length: number): { value: unknown[]; reads: () => number } {
  let reads = 0
  const value = new Proxy(
    Array.from({ length }, () => 1),
    {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++
        return Reflect.get(target, key, receiver)
      },
    },
  )
  return { value, reads: () => reads }
}

/** A plain object of `count` string members `m0`, `m1`, … whose reads are counted per member. */
function countedObject(count: number, member: string): { value: object; reads: number[] } {
  const reads = Array.from({ length: count }, () => 0)
  const value: Record<string, unknown> = {}
  for (let i = 0; i < count; i++) {
    Object.defineProperty(value, `m${i}`, {
      enumerable: true,
      get() {
        reads[i]!++
        return member
      },
    })
  }
  return { value, reads }
}

describe('chargeJson, the reads a refusal costs', () => {
  it('reads no element of an array whose length passes maxNodes, at the root or nested', () => {
    for (const wrap of [(v: unknown) => v, (v: unknown) => [v], (v: unknown) => ({ a: v })]) {
      const { value, reads } = countedArray(1000)
      const error = refusal(() => chargeJson(wrap(value), { maxNodes: 10 }))
      expect(error.code).toBe('ERR_JSON_TOO_MANY_NODES')
      expect(reads()).toBe(0)
    }
  })

  it('reads an array that fits once in each walk and stops at the member that passes maxBytes', () => {
    const { value, reads } = countedArray(1000)
    expect(chargeJson(value).bytes).toBe(2001)
    expect(reads()).toBe(1000)
    const over = countedArray(1000)
    // `[1,1,…` : the brackets and commas (1001 bytes) fit, the 11th digit does not.
    const error = refusal(() => chargeJson(over.value, { maxBytes: 1011 }))
    expect(error).toMatchObject({ code: 'ERR_JSON_TOO_LARGE', limit: 1011, path: '/10' })
    expect(over.reads()).toBeLessThanOrEqual(2 * 11)
  })

  it('never reads the object members after the one that passes maxBytes', () => {
    // Each member costs `"mI":"xxxxxxxx",` = 15 or 16 bytes; 100 bytes fit six of them.
    const { value, reads } = countedObject(40, 'x'.repeat(8))
    const error = refusal(() => chargeJson(value, { maxBytes: 100 }))
    expect(error).toMatchObject({ code: 'ERR_JSON_TOO_LARGE', limit: 100, path: '/m6' })
    expect(reads.slice(0, 7).every((n) => n >= 1 && n <= 2)).toBe(true)
    expect(reads.slice(7)).toEqual(Array.from({ length: 33 }, () => 0))
  })

  it('never reads the object members after the one that passes maxNodes', () => {
    // The object is 1 node and each member 2 (key and value): 9 nodes admit four members.
    const { value, reads } = countedObject(40, 'v')
    const error = refusal(() => chargeJson(value, { maxNodes: 9 }))
    expect(error).toMatchObject({ code: 'ERR_JSON_TOO_MANY_NODES', limit: 9, path: '/m4' })
    expect(reads.slice(5)).toEqual(Array.from({ length: 35 }, () => 0))
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
