import { describe, expect, it } from 'vitest'
import { createInFlightBudget, principalUsage } from '../src/index.js'
import { openPrincipalShare, principalKeyOf } from '../src/principal-shares.js'

// The ledger's arithmetic at its boundaries, in process: the socket tests in
// test/fair-admission.test.ts show the refusals on the wire, these pin each limit exactly.

const busy = (limit: number, option: string) =>
  expect.objectContaining({ code: 'ERR_ADMISSION_PRINCIPAL_BUSY', limit, option })

describe('openPrincipalShare', () => {
  it('admits exactly maxBodiesPerPrincipal bodies of a key, refuses one more with its limit, and admits again once one closes', () => {
    const budget = createInFlightBudget(1000)
    const limits = { maxBodiesPerPrincipal: 2, principalShare: false } as const
    const first = openPrincipalShare(budget, 'a', limits)
    openPrincipalShare(budget, 'a', limits)
    expect(principalUsage(budget, 'a')).toEqual({ bodies: 2, bytes: 0 })
    let thrown: unknown
    try {
      openPrincipalShare(budget, 'a', limits)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toEqual(busy(2, 'maxBodiesPerPrincipal'))
    expect(principalUsage(budget, 'a')).toEqual({ bodies: 2, bytes: 0 })
    // Another key is not counted against this one.
    openPrincipalShare(budget, 'b', limits)
    first.close()
    first.close()
    expect(principalUsage(budget, 'a')).toEqual({ bodies: 1, bytes: 0 })
    openPrincipalShare(budget, 'a', limits)
    expect(principalUsage(budget, 'a')).toEqual({ bodies: 2, bytes: 0 })
    // `false` turns the count off.
    const open = { maxBodiesPerPrincipal: false, principalShare: false } as const
    for (let i = 0; i < 20; i++) openPrincipalShare(budget, 'c', open)
    expect(principalUsage(budget, 'c').bodies).toBe(20)
  })

  it('admits bytes up to the floor of the share of the budget, refuses one more with that limit, and gives them back on close', () => {
    // 1001 × 0.25 = 250.25: the share is 250 bytes.
    const budget = createInFlightBudget(1001)
    const limits = { maxBodiesPerPrincipal: false, principalShare: 0.25 } as const
    const one = openPrincipalShare(budget, 'k', limits)
    const two = openPrincipalShare(budget, 'k', limits)
    one.check(200)
    one.commit(200)
    two.check(50)
    two.commit(50)
    expect(principalUsage(budget, 'k')).toEqual({ bodies: 2, bytes: 250 })
    expect(() => two.check(51)).toThrow(busy(250, 'principalShare'))
    // A total no larger than what the body holds needs no room and changes nothing.
    two.check(50)
    one.commit(100)
    expect(principalUsage(budget, 'k')).toEqual({ bodies: 2, bytes: 250 })
    one.close()
    expect(principalUsage(budget, 'k')).toEqual({ bodies: 1, bytes: 50 })
    two.check(250)
    two.commit(250)
    expect(principalUsage(budget, 'k')).toEqual({ bodies: 1, bytes: 250 })
    expect(() => two.check(251)).toThrow(busy(250, 'principalShare'))
    two.close()
    expect(principalUsage(budget, 'k')).toEqual({ bodies: 0, bytes: 0 })
    // `false` leaves only the budget itself.
    const free = openPrincipalShare(budget, 'k', {
      maxBodiesPerPrincipal: false,
      principalShare: false,
    })
    free.check(1001)
    free.commit(1001)
    expect(principalUsage(budget, 'k')).toEqual({ bodies: 1, bytes: 1001 })
  })
})

describe('principalKeyOf', () => {
  it('takes a key of up to 1024 characters or undefined, and throws a TypeError for a longer key or a non-string', () => {
    const request = new Request('http://127.0.0.1/')
    expect(principalKeyOf(undefined, request)).toBeUndefined()
    expect(principalKeyOf(() => undefined, request)).toBeUndefined()
    expect(principalKeyOf(() => 'k'.repeat(1024), request)).toBe('k'.repeat(1024))
    expect(() => principalKeyOf(() => 'k'.repeat(1025), request)).toThrow(TypeError)
    expect(() => principalKeyOf(() => 7 as never, request)).toThrow(TypeError)
    expect(() => principalKeyOf(() => null as never, request)).toThrow(TypeError)
  })
})

describe('principalUsage', () => {
  it('reads zero for a key on a budget no admission has used yet', () => {
    expect(principalUsage(createInFlightBudget(1024), 'a')).toEqual({ bodies: 0, bytes: 0 })
  })
})
