// The process-wide default budget (README, options: `budget`, default `defaultInFlightBudget`,
// 256 MiB): its size is what decides when concurrent bodies start to be answered 503.
import { describe, expect, it } from 'vitest'
import { bodyAdmission, defaultInFlightBudget } from '../src/index.js'

describe('defaultInFlightBudget', () => {
  it('holds 256 MiB and is the budget of every admission whose options name none', () => {
    expect(defaultInFlightBudget.maxBytes).toBe(256 * 1024 * 1024)
    expect(bodyAdmission({}).policy.budget).toBe(defaultInFlightBudget)
  })
})
