import { describe, expect, it } from 'vitest'
import { parseContentLength } from '../src/content-length.js'
import { ADMISSION_HOST_OPTIONS, type BodyAdmissionOptions, bodyAdmission } from '../src/index.js'

// Each construction-time guard on its own: a value that only that guard refuses, so removing
// the guard lets the bad option through (the combined tests in test/options.test.ts pass values
// that several guards refuse at once).

describe('bodyAdmission guards', () => {
  it.each([
    [{ budget: null }],
    [{ budget: 'budget' }],
    [{ budget: { tryAcquire: () => true } }],
    [{ budget: { release: () => {} } }],
    [{ types: ['application/json', 'json'] }],
    [{ type: 'bogus' }],
    [{ type: '+json;charset=utf-8' }],
    [{ types: ['bad type/json'] }],
    [{ types: ['application/json bad'] }],
    [{ passMethods: ['GET', 'NOT A METHOD'] }],
  ])('throws a TypeError naming the option for %j', (options) => {
    const name = Object.keys(options)[0] as string
    expect(() => bodyAdmission(options as BodyAdmissionOptions).policy).toThrow(TypeError)
    expect(() => bodyAdmission(options as BodyAdmissionOptions).policy).toThrow(name)
  })

  it('takes 0 for maxDepth, retryAfterSeconds and minRateGraceMs, and media types of every pattern form', () => {
    const o = bodyAdmission({
      maxDepth: 0,
      retryAfterSeconds: 0,
      minRateGraceMs: 0,
      types: ['application/json', 'text/*', '*/*+json', '*/*', 'application/vnd.a.b+json'],
    }).policy
    expect(o).toMatchObject({ maxDepth: 0, retryAfterSeconds: 0, minRateGraceMs: 0 })
    expect(o.types).toEqual([
      'application/json',
      'text/*',
      '*/*+json',
      '*/*',
      'application/vnd.a.b+json',
    ])
  })

  it('takes every documented value of otherTypes and refusals', () => {
    for (const otherTypes of ['refuse', 'pass'] as const) {
      expect(bodyAdmission({ otherTypes }).policy.otherTypes).toBe(otherTypes)
    }
    for (const refusals of ['respond', 'next'] as const) {
      expect(ADMISSION_HOST_OPTIONS.resolve({ refusals }).refusals).toBe(refusals)
    }
  })

  it("takes type as one string: 'json', '+json' or a media type", () => {
    expect(bodyAdmission({ type: 'json' }).policy.types).toEqual(['application/json'])
    expect(bodyAdmission({ type: '+json' }).policy.types).toEqual(['*/*+json'])
    expect(bodyAdmission({ type: 'text/plain' }).policy.types).toEqual(['text/plain'])
  })
})

describe('parseContentLength', () => {
  it('refuses a length past Number.MAX_SAFE_INTEGER with ERR_BODY_INVALID_LENGTH, not as a large body', () => {
    expect(parseContentLength(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER)
    expect(() => parseContentLength('9007199254740992')).toThrow(
      expect.objectContaining({ code: 'ERR_BODY_INVALID_LENGTH' }),
    )
  })
})
