import { describe, expect, it } from 'vitest'
import { admission, type BodyAdmissionOptions, bodyAdmission } from '../src/index.js'

// A bad option is refused at construction with a TypeError that names what the caller wrote:
// the function it went to and the option. Each case is a value that only one guard refuses
// with its own message; without that guard the value either passes or fails later with a
// message that names neither (`m.toUpperCase is not a function`).

describe('admission', () => {
  it("refuses a body control's option given to the host, naming admission and the option", () => {
    expect(() => admission(bodyAdmission(), { maxBytes: 10 } as never)).toThrow(
      /^admission: unknown option maxBytes$/,
    )
  })

  it("refuses a verify that is not a function with body-parser's wording", () => {
    expect(() => admission(bodyAdmission(), { verify: {} } as never)).toThrow(
      /^option verify must be function$/,
    )
  })
})

describe('bodyAdmission', () => {
  it("refuses a host's option given to the body control, naming bodyAdmission and the option", () => {
    expect(() => bodyAdmission({ refusals: 'next' } as BodyAdmissionOptions)).toThrow(
      /^bodyAdmission: unknown option refusals$/,
    )
  })

  it.each([
    ['types', { types: ['application/json', 7] }],
    ['types', { types: [['application/json']] }],
    ['type', { type: [['+json']] }],
    ['type', { type: ['json', 7] }],
    ['passMethods', { passMethods: [['GET']] }],
  ])('refuses a list that holds something other than a string, naming %s', (name, options) => {
    expect(() => bodyAdmission(options as BodyAdmissionOptions)).toThrow(
      new RegExp(`^${name} must hold `),
    )
  })

  it.each([
    ['poolMemberShare', { poolMemberShare: 0 }, /^poolMemberShare must be a number in \(0, 1\]$/],
    ['fleetBodies', { fleetBodies: null }, /^fleetBodies must have acquire\(key, pool\)/],
  ])('refuses a bad %s with a TypeError naming it', (_name, options, message) => {
    expect(() => bodyAdmission(options as unknown as BodyAdmissionOptions)).toThrow(message)
  })
})
