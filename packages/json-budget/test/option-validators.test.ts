// The validators every package's option rows check with, and the brand that marks what a
// resolver returned.
import { describe, expect, it } from 'vitest'
import {
  booleanOption,
  createResolvedBrand,
  functionOption,
  integerOption,
  oneOfOption,
} from '../src/index.js'
import { messageOf } from './helpers/type-error.js'

describe('the validators', () => {
  it('integerOption admits a positive safe integer, and 0 only when allowed', () => {
    const positive = integerOption()
    const nonNegative = integerOption(true)
    expect(() => positive(1, 'n')).not.toThrow()
    expect(() => positive(Number.MAX_SAFE_INTEGER, 'n')).not.toThrow()
    expect(() => nonNegative(0, 'n')).not.toThrow()
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '1', null]) {
      expect(() => positive(bad, 'n')).toThrow(TypeError)
    }
    expect(() => nonNegative(-1, 'n')).toThrow(TypeError)
  })

  it('oneOfOption admits exactly the listed values and lists them, not the value', () => {
    const mode = oneOfOption(['fast', 'safe'])
    expect(() => mode('fast', 'mode')).not.toThrow()
    const message = messageOf(() => mode('secret-value', 'mode'))
    expect(message).toContain('"fast"')
    expect(message).not.toContain('secret-value')
    expect(() => mode('FAST', 'mode')).toThrow(TypeError)
  })

  it('booleanOption and functionOption admit their type only', () => {
    expect(() => booleanOption(false, 'b')).not.toThrow()
    expect(() => booleanOption('false', 'b')).toThrow(TypeError)
    expect(() => functionOption(() => {}, 'f')).not.toThrow()
    expect(() => functionOption({}, 'f')).toThrow(TypeError)
  })
})

describe('the validator messages', () => {
  // A configuration mistake is read at start-up: each message names the option and what it
  // admits (the listed values for oneOfOption), never the value given.
  it('name the option and what it admits', () => {
    expect(messageOf(() => integerOption()(0, 'maxWidgets'))).toBe(
      'maxWidgets must be a positive safe integer, got 0',
    )
    expect(messageOf(() => integerOption(true)(-1, 'maxWidgets'))).toBe(
      'maxWidgets must be a non-negative safe integer, got -1',
    )
    expect(messageOf(() => oneOfOption(['fast', 'safe', 1])('slow', 'mode'))).toBe(
      'mode must be one of "fast", "safe", 1',
    )
    expect(messageOf(() => booleanOption('true', 'strict'))).toBe('strict must be a boolean')
    expect(messageOf(() => functionOption({}, 'onWidget'))).toBe('onWidget must be a function')
  })
})

describe('createResolvedBrand', () => {
  it('knows only the objects it marked, not look-alikes or another brand’s', () => {
    const brand = createResolvedBrand<{ readonly n: number }>()
    const other = createResolvedBrand<{ readonly n: number }>()
    const marked = brand.mark(Object.freeze({ n: 1 }))
    expect(brand.has(marked)).toBe(true)
    expect(brand.has({ n: 1 })).toBe(false)
    expect(other.has(marked)).toBe(false)
    for (const value of [null, undefined, 1, 'x']) expect(brand.has(value)).toBe(false)
  })

  it('returns the object it marks', () => {
    const brand = createResolvedBrand<{ readonly n: number }>()
    const value = { n: 2 }
    expect(brand.mark(value)).toBe(value)
  })
})
