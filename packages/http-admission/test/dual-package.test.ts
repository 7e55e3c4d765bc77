// One process, two loaded copies of the package (the ESM source here, the CommonJS build beside
// it, as when a dependency `require`s it): the process-wide budget and the per-principal counts
// must be one, not one per copy. Needs the package built (turbo builds before test).
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { defaultInFlightBudget, principalUsage } from '../src/index.js'
import { openPrincipalShare } from '../src/principal-shares.js'

const cjs = createRequire(import.meta.url)('../dist/index.cjs') as typeof import('../src/index.js')
const LIMITS = { maxBodiesPerPrincipal: 8, principalShare: 0.25 } as const

describe('defaultInFlightBudget', () => {
  it('is one object for the ESM and the CommonJS copy of the package', () => {
    expect(cjs.defaultInFlightBudget).toBe(defaultInFlightBudget)
    expect(defaultInFlightBudget.tryAcquire(1024)).toBe(true)
    try {
      expect(cjs.defaultInFlightBudget.inFlight).toBe(defaultInFlightBudget.inFlight)
    } finally {
      defaultInFlightBudget.release(1024)
    }
  })
})

describe('openPrincipalShare', () => {
  it('counts a principal once across the ESM and the CommonJS copy', () => {
    const key = `dual-${Math.random()}`
    const share = openPrincipalShare(defaultInFlightBudget, key, LIMITS)
    try {
      share.commit(4096)
      expect(cjs.principalUsage(defaultInFlightBudget, key)).toEqual({ bodies: 1, bytes: 4096 })
    } finally {
      share.close()
    }
    expect(principalUsage(cjs.defaultInFlightBudget, key)).toEqual({ bodies: 0, bytes: 0 })
  })
})
