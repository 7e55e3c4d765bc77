import { describe, expect, it } from 'vitest'
import { resolveInputValidationOptions, withInputValidation } from '../src/index.js'
import { fixtureRegistry } from './helpers/raw-clients.js'

const transport = { send: async () => {}, start: async () => {}, close: async () => {} }

// A refusal at construction names the function the caller configured and the option they
// wrote, never an engine message about a property of `null`.
describe('withInputValidation', () => {
  it('refuses an unknown option naming withInputValidation and the option', () => {
    const expected = new TypeError('withInputValidation: unknown option maxDeph')
    expect(() => resolveInputValidationOptions({ maxDeph: 3 } as never)).toThrow(expected)
    expect(() =>
      withInputValidation(transport, fixtureRegistry(), { maxDeph: 3 } as never),
    ).toThrow(expected)
  })

  it('refuses a surface of null naming surface, as it refuses any other non-iterable', () => {
    const expected = new TypeError('surface must be an iterable of tool names (a Set or an array)')
    expect(() => resolveInputValidationOptions({ surface: null as never })).toThrow(expected)
    expect(() => resolveInputValidationOptions({ surface: 7 as never })).toThrow(expected)
    expect(() =>
      withInputValidation(transport, fixtureRegistry(), { surface: null as never }),
    ).toThrow(expected)
  })
})
