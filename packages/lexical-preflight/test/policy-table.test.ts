import { describe, expect, it } from 'vitest'
import { PREFLIGHT_POLICIES } from '../src/index.js'

// PREFLIGHT_POLICIES is exported for hosts that take the policies without the limits (they
// spread its rows into their own table, or resolve policies alone with it). Its refusals must
// name the configurable thing the caller wrote to, as resolvePreflightOptions' do.
describe('PREFLIGHT_POLICIES', () => {
  it('refuses a limit given to the policies alone, naming preflight and the option', () => {
    expect(() => PREFLIGHT_POLICIES.resolve({ maxNodes: 10 } as never)).toThrow(
      new TypeError('preflight: unknown option maxNodes'),
    )
    expect(() => PREFLIGHT_POLICIES.resolve({ policies: {} } as never)).toThrow(
      new TypeError('preflight: unknown option policies'),
    )
  })

  it('resolves the policies alone to their defaults, every limit left out', () => {
    const policies = PREFLIGHT_POLICIES.resolve({ duplicateKeys: 'refuse' })
    expect(policies).toEqual({
      duplicateKeys: 'refuse',
      protoKeys: 'allow',
      maxStringBytes: Number.POSITIVE_INFINITY,
      maxNumberLength: Number.POSITIVE_INFINITY,
      bom: 'refuse',
    })
    expect(Object.isFrozen(policies)).toBe(true)
  })
})
