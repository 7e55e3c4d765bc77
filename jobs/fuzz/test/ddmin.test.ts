import { describe, expect, it } from 'vitest'
import { ddmin } from '../src/ddmin.js'

describe('ddmin', () => {
  it('reduces a list to the items the failure needs', async () => {
    const items = Array.from({ length: 200 }, (_, i) => i)
    const fails = (c: readonly number[]) => c.includes(17) && c.includes(150)
    expect(await ddmin(items, fails)).toEqual([17, 150])
  })

  it('returns a 1-minimal list: removing any single item makes it pass', async () => {
    const items = [...'xx{"a":[1,,2]}yy']
    const fails = (c: readonly string[]) => c.join('').includes(',,')
    const out = await ddmin(items, fails)
    expect(out.join('')).toBe(',,')
  })

  it('stops after the test budget', async () => {
    let calls = 0
    await ddmin(
      Array.from({ length: 1000 }, (_, i) => i),
      () => {
        calls++
        return false
      },
      50,
    )
    expect(calls).toBeLessThanOrEqual(51)
  })
})
