import { describe, expect, it } from 'vitest'
import {
  ADMISSION_HOST_OPTIONS,
  admission,
  BODY_ADMISSION_DEFAULTS,
  type BodyAdmissionOptions,
  bodyAdmission,
  createInFlightBudget,
  defaultInFlightBudget,
  json,
  REST_BODY_BYTES_CEILING,
  resolveJsonOptions,
} from '../src/index.js'

describe('bodyAdmission', () => {
  it('fills every default and freezes the result', () => {
    const o = bodyAdmission().policy
    expect(o).toMatchObject({ ...BODY_ADMISSION_DEFAULTS, budget: defaultInFlightBudget })
    expect(o.maxBytes).toBe(64 * 1024 * 1024)
    expect(Object.isFrozen(o)).toBe(true)
    expect(Object.isFrozen(o.types)).toBe(true)
  })

  it("resolves to the defaults the README's options table lists", () => {
    // Written out, not read from HTTP_ADMISSION_DEFAULTS: a changed default must fail here.
    expect(bodyAdmission().policy).toMatchObject({
      maxBytes: 67_108_864,
      maxNodes: 100_000,
      maxDepth: 64,
      duplicateKeys: 'refuse',
      protoKeys: 'refuse',
      bom: 'refuse',
      strict: true,
      types: ['application/json', '*/*+json'],
      otherTypes: 'refuse',
      passMethods: ['GET', 'HEAD', 'DELETE', 'OPTIONS'],
      inflate: true,
      maxInflationRatio: 100,
      timeoutMs: 30_000,
      idleTimeoutMs: 10_000,
      minBytesPerSecond: 240,
      minRateGraceMs: 5_000,
      maxBodiesPerPrincipal: 8,
      principalShare: 0.25,
      retryAfterSeconds: 1,
      keepRaw: false,
    })
  })

  it('refuses a maxBytes or limit of 64 MiB + 1 (67108865, the ceiling written out) with a TypeError', () => {
    expect(() => bodyAdmission({ maxBytes: 67_108_865 }).policy).toThrow(TypeError)
    expect(() => bodyAdmission({ limit: 67_108_865 }).policy).toThrow(TypeError)
    expect(bodyAdmission({ limit: 67_108_864 }).policy.maxBytes).toBe(67_108_864)
  })

  it('admits maxBytes at its 64 MiB ceiling and refuses one byte more with a TypeError', () => {
    expect(bodyAdmission({ maxBytes: REST_BODY_BYTES_CEILING }).policy.maxBytes).toBe(
      64 * 1024 * 1024,
    )
    expect(() => bodyAdmission({ maxBytes: REST_BODY_BYTES_CEILING + 1 }).policy).toThrow(TypeError)
  })

  it.each([
    [{ maxBytes: 0 }],
    [{ maxBytes: -1 }],
    [{ maxBytes: 1.5 }],
    [{ maxNodes: Number.NaN }],
    [{ maxDepth: -1 }],
    [{ timeoutMs: 0 }],
    [{ idleTimeoutMs: '10' }],
    [{ maxInflationRatio: 0 }],
    [{ types: ['json'] }],
    [{ passMethods: ['G E T'] }],
    [{ otherTypes: 'skip' }],
    [{ inflate: 'yes' }],
    [{ budget: {} }],
    [{ duplicateKeys: 'maybe' }],
    [{ maxStringBytes: -1 }],
    [{ bom: 'keep' }],
    [{ policies: { bom: 'strip' } }],
    [{ maxbytes: 10 }],
  ])('throws a TypeError at construction for %j', (options) => {
    expect(() => bodyAdmission(options as never).policy).toThrow(TypeError)
  })

  it('lowers limits per route and takes an isolated budget', () => {
    const budget = createInFlightBudget(1024)
    const o = bodyAdmission({
      maxBytes: 10,
      maxDepth: 0,
      budget,
      passMethods: ['get'],
      types: ['Application/JSON'],
    }).policy
    expect(o).toMatchObject({
      maxBytes: 10,
      maxDepth: 0,
      budget,
      passMethods: ['GET'],
      types: ['application/json'],
    })
  })
})

describe('ADMISSION_HOST_OPTIONS', () => {
  it.each([
    [{ refusals: 'throw' }],
    [{ renderRefusal: 'problem' }],
    [{ principal: 'ip' }],
    [{ accept: true }],
    [{ verify: {} }],
    [{ maxBytes: 10 }],
  ])('makes admission() throw a TypeError at construction for %j', (options) => {
    expect(() => admission(bodyAdmission(), options as never)).toThrow(TypeError)
  })

  it.each([['next'], ['respond']])(
    "refuses the mode's former name onRefusal: '%s', naming refusals",
    (mode) => {
      expect(() => admission(bodyAdmission(), { onRefusal: mode } as never)).toThrow(/refusals/)
    },
  )

  it("resolves to the middleware's defaults", () => {
    expect(ADMISSION_HOST_OPTIONS.resolve(undefined)).toEqual({
      refusals: 'respond',
      renderRefusal: undefined,
      verify: undefined,
      accept: undefined,
      principal: undefined,
    })
  })
})

describe('createInFlightBudget', () => {
  it('reserves up to maxBytes, refuses one byte more and clamps releases at zero', () => {
    const budget = createInFlightBudget(10)
    expect(budget.tryAcquire(10)).toBe(true)
    expect(budget.tryAcquire(1)).toBe(false)
    expect(budget.inFlight).toBe(10)
    budget.release(20)
    expect(budget.inFlight).toBe(0)
    expect(() => createInFlightBudget(0)).toThrow(TypeError)
  })

  it('reserves nothing for zero or negative amounts and releases nothing for them', () => {
    const budget = createInFlightBudget(10)
    expect(budget.tryAcquire(0)).toBe(true)
    expect(budget.tryAcquire(-5)).toBe(true)
    expect(budget.inFlight).toBe(0)
    expect(budget.tryAcquire(4)).toBe(true)
    budget.release(-5)
    budget.release(0)
    expect(budget.inFlight).toBe(4)
    expect(budget.tryAcquire(6)).toBe(true)
    expect(budget.tryAcquire(1)).toBe(false)
    budget.release(3)
    expect(budget.inFlight).toBe(7)
    expect(budget.maxBytes).toBe(10)
  })
})

describe('bodyAdmission (fair admission)', () => {
  it('validates minBytesPerSecond, minRateGraceMs, principal, maxBodiesPerPrincipal, principalShare and poolMemberShare', () => {
    for (const bad of [
      { minBytesPerSecond: 0 },
      { minBytesPerSecond: 1.5 },
      { minRateGraceMs: -1 },
      { maxBodiesPerPrincipal: 0 },
      { principalShare: 0 },
      { principalShare: 1.5 },
      { principalShare: true },
      { poolMemberShare: 0 },
      { poolMemberShare: 1.01 },
      { poolMemberShare: Number.NaN },
      { poolMemberShare: '0.5' },
      { poolMemberShare: false },
    ]) {
      expect(() => bodyAdmission(bad as BodyAdmissionOptions).policy, JSON.stringify(bad)).toThrow(
        TypeError,
      )
    }
    const off = bodyAdmission({
      minBytesPerSecond: false,
      minRateGraceMs: 0,
      maxBodiesPerPrincipal: false,
      principalShare: false,
    }).policy
    expect(off).toMatchObject({
      minBytesPerSecond: false,
      minRateGraceMs: 0,
      maxBodiesPerPrincipal: false,
      principalShare: false,
    })
    expect(bodyAdmission({ principalShare: 1 }).policy.principalShare).toBe(1)
    expect(bodyAdmission({ poolMemberShare: 1 }).policy.poolMemberShare).toBe(1)
  })
})

describe('bodyAdmission (one scheme)', () => {
  it.each([
    [{ maxBytes: 0 }, 'maxBytes'],
    [{ limit: 'lots' }, 'limit'],
    [{ duplicateKeys: 'maybe' }, 'duplicateKeys'],
    [{ maxNumberLength: 0 }, 'maxNumberLength'],
    [{ bom: 'keep' }, 'bom'],
    [{ budget: {} }, 'budget'],
    [{ principalShare: 2 }, 'principalShare'],
    [{ maxbytes: 10 }, 'maxbytes'],
    [{ policies: { bom: 'strip' } }, 'policies'],
  ])('names the wrong option of %j in the TypeError of admission() and json()', (options, name) => {
    const admit = (options: never) => admission(bodyAdmission(options))
    for (const construct of [admit, json]) {
      expect(() => construct(options as never)).toThrow(TypeError)
      expect(() => construct(options as never)).toThrow(name)
    }
  })

  it('builds a frozen control once, and refuses a policy or a control handed back as options', () => {
    const body = bodyAdmission({ maxBytes: 10 })
    expect(Object.isFrozen(body) && Object.isFrozen(body.policy)).toBe(true)
    expect(() => bodyAdmission(body.policy as never)).toThrow(TypeError)
    expect(() => bodyAdmission({ ...body.policy } as never)).toThrow(TypeError)
    expect(() => admission(body.policy as never)).toThrow(TypeError)
    const dropIn = resolveJsonOptions({ limit: '1kb' })
    expect(dropIn.body.policy).toMatchObject({ maxBytes: 1024, otherTypes: 'pass' })
    expect(dropIn.host).toMatchObject({ refusals: 'next' })
    expect(() => resolveJsonOptions(dropIn as never)).toThrow(TypeError)
  })

  it("reads json()'s empty or false type and null limit as body-parser does: the defaults", () => {
    for (const options of [{ type: '' }, { type: false }, { limit: null }]) {
      expect(
        resolveJsonOptions(options as never).body.policy,
        JSON.stringify(options),
      ).toMatchObject({
        maxBytes: 102_400,
        types: ['application/json'],
      })
    }
  })

  it('takes the preflight policies as top-level options and hands them to the preflight', () => {
    const policies = {
      duplicateKeys: 'allow',
      protoKeys: 'allow',
      maxStringBytes: 5,
      maxNumberLength: 3,
      bom: 'strip',
    } as const
    const o = bodyAdmission({ ...policies, maxNodes: 7, maxDepth: 2, maxBytes: 99 }).policy
    expect(o).toMatchObject(policies)
    expect(o.preflight).toMatchObject({ ...policies, maxNodes: 7, maxDepth: 2, maxBytes: 99 })
    expect(bodyAdmission().policy.preflight).toMatchObject({
      duplicateKeys: 'refuse',
      protoKeys: 'refuse',
      maxStringBytes: Number.POSITIVE_INFINITY,
      bom: 'refuse',
    })
  })
})
