import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { firstPolicyHit, policiesTarget } from '../src/targets/policies.js'

// Helper test: the independent reference the preflight-policies target holds the scanner to.
describe('firstPolicyHit', () => {
  it('finds a key repeated in one object after unescaping, and not across objects', () => {
    expect(firstPolicyHit('{"a":1,"\\u0061":2}', 'duplicateKeys')).toBe(true)
    expect(firstPolicyHit('{"a":{"a":1},"b":[{"a":1},{"a":2}]}', 'duplicateKeys')).toBe(false)
    expect(firstPolicyHit('{"a":{"b":1,"c":2},"a":3}', 'duplicateKeys')).toBe(true)
  })

  it('finds __proto__ anywhere and prototype only directly inside a constructor value', () => {
    expect(firstPolicyHit('[{"__pro\\u0074o__":1}]', 'protoKeys')).toBe(true)
    expect(firstPolicyHit('{"constructor":{"prototype":{}}}', 'protoKeys')).toBe(true)
    expect(firstPolicyHit('{"constructor":[{"prototype":{}}]}', 'protoKeys')).toBe(false)
    expect(firstPolicyHit('{"constructor":1,"x":{"prototype":1}}', 'protoKeys')).toBe(false)
    expect(firstPolicyHit('{"prototype":1,"proto":"__proto__"}', 'protoKeys')).toBe(false)
  })
})

describe('policiesTarget', () => {
  it('generates documents on both sides of each policy, so the differential is not vacuous', () => {
    const samples = fc.sample(policiesTarget.arbitrary, { numRuns: 500, seed: 3 })
    for (const policy of ['duplicateKeys', 'protoKeys'] as const) {
      const hits = samples.filter((s) =>
        firstPolicyHit(Buffer.from(s.bytes).toString(), policy),
      ).length
      expect(hits, policy).toBeGreaterThan(50)
      expect(hits, policy).toBeLessThan(450)
    }
  })
})
