import { describe, expect, it } from 'vitest'
import { limitKey } from '../src/index.js'

describe('limitKey', () => {
  it('gives different keys to tuples that plain joining would confuse', () => {
    const tuples = [
      ['a:b', 'c'],
      ['a', 'b:c'],
      ['a\\', ':c'],
      ['a\\:', 'c'],
      ['a', 'b', 'c'],
      ['a:b:c'],
    ]
    const keys = tuples.map((t) => limitKey(...t))
    expect(new Set(keys).size).toBe(tuples.length)
  })

  it('joins plain parts with a colon', () => {
    expect(limitKey('alice', 'search')).toBe('alice:search')
  })
})
