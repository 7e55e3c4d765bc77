import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import {
  AdmissionError,
  defineRefusalCodes,
  isAdmissionError,
  JSON_BUDGET_CODES,
  type JsonBudgetCode,
  refusalCodeSpec,
} from '../src/index.js'

// The CommonJS build beside this ESM source: a second loaded copy of the package, as when a
// dependency `require`s it. Needs the package built (turbo builds before test).
const cjs = createRequire(import.meta.url)('../dist/index.cjs') as typeof import('../src/index.js')

describe('AdmissionError', () => {
  it('carries code, status, limit, observed, path and offset', () => {
    const error = new AdmissionError('ERR_JSON_TOO_DEEP', {
      limit: 64,
      observed: 65,
      path: '/a',
      offset: 12,
    })
    expect(error.toJSON()).toEqual({
      code: 'ERR_JSON_TOO_DEEP',
      status: 422,
      message: error.message,
      limit: 64,
      observed: 65,
      path: '/a',
      offset: 12,
    })
    expect(error.message).toContain('maxDepth')
    expect(error.option).toBe('maxDepth')
  })

  it('names the option the thrower gives, so two refusals of one code stay distinguishable', () => {
    const result = new AdmissionError('ERR_JSON_TOO_LARGE', {
      limit: 10,
      option: 'toolResultBytes',
    })
    expect(result.option).toBe('toolResultBytes')
    expect(new AdmissionError('ERR_JSON_TOO_LARGE', { limit: 10 }).option).toBe('maxBytes')
    expect(new AdmissionError('ERR_JSON_UNSUPPORTED_VALUE').option).toBeUndefined()
  })

  it('builds every message from numbers and option names only, under 160 characters', () => {
    for (const code of Object.keys(JSON_BUDGET_CODES) as JsonBudgetCode[]) {
      const error = new AdmissionError(code, { limit: 2 ** 52, observed: 2 ** 53 })
      expect(error.message.length).toBeLessThan(160)
      expect(error.status).toBe(JSON_BUDGET_CODES[code].status)
    }
  })

  it('throws a TypeError for a code no loaded package registered, without repeating it', () => {
    const code = 'ERR_NEVER_REGISTERED_<script>'
    expect(refusalCodeSpec(code)).toBeUndefined()
    let thrown: unknown
    try {
      new AdmissionError(code as 'ERR_X')
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(TypeError)
    expect((thrown as Error).message).toBe(
      'AdmissionError: the code is not registered by any loaded package',
    )
    expect((thrown as Error).message).not.toContain('NEVER')
    expect((thrown as Error).message).not.toContain('<script>')
    // A spec passed beside the code does not make an unregistered code an AdmissionError.
    expect(
      () => new AdmissionError('ERR_NEVER_REGISTERED', {}, JSON_BUDGET_CODES.ERR_JSON_TOO_DEEP),
    ).toThrow(TypeError)
  })
})

describe('AdmissionError message and plain form', () => {
  // The README shows the message a code table gives ("... (limit 8); raise maxWidgets to admit
  // more"), so its three forms are pinned here.
  it('is the code message, then the limit, then the option to raise, as far as each is known', () => {
    expect(new AdmissionError('ERR_JSON_TOO_DEEP', { limit: 64 }).message).toBe(
      'JSON nesting exceeds the depth limit (limit 64); raise maxDepth to admit more',
    )
    expect(new AdmissionError('ERR_JSON_TOO_DEEP').message).toBe(
      'JSON nesting exceeds the depth limit',
    )
    expect(new AdmissionError('ERR_JSON_UNSUPPORTED_VALUE', { limit: 3 }).message).toBe(
      'value is not plain JSON (limit 3)',
    )
    expect(
      new AdmissionError('ERR_JSON_TOO_LARGE', { limit: 9, option: 'toolResultBytes' }).message,
    ).toBe(
      'compact JSON encoding exceeds the byte limit (limit 9); raise toolResultBytes to admit more',
    )
  })

  it('leaves every unset detail out of the plain form, and the status of a code that has none', () => {
    const error = new AdmissionError('ERR_JSON_UNSUPPORTED_VALUE')
    expect(error.name).toBe('AdmissionError')
    expect(error.toJSON()).toStrictEqual({
      code: 'ERR_JSON_UNSUPPORTED_VALUE',
      status: 500,
      message: 'value is not plain JSON',
    })
    defineRefusalCodes('@tollgate/admission-error-test', {
      ERR_TEST_NO_STATUS: {
        status: undefined,
        title: 'Client Closed Request',
        option: undefined,
        message: 'the client went away',
      },
    })
    expect(new AdmissionError('ERR_TEST_NO_STATUS').toJSON()).toStrictEqual({
      code: 'ERR_TEST_NO_STATUS',
      message: 'the client went away',
    })
  })

  it("takes status, message and option from the spec the thrower passes over the registered one's", () => {
    const error = new AdmissionError(
      'ERR_JSON_TOO_DEEP',
      { limit: 2 },
      { status: 400, title: 'Bad Request', option: 'maxLevels', message: 'too many levels' },
    )
    expect(error.toJSON()).toStrictEqual({
      code: 'ERR_JSON_TOO_DEEP',
      status: 400,
      message: 'too many levels (limit 2); raise maxLevels to admit more',
      limit: 2,
    })
    expect(error.option).toBe('maxLevels')
  })
})

describe('isAdmissionError', () => {
  it('recognizes an error thrown by the CommonJS build of the package', () => {
    const fromCjs = new cjs.AdmissionError('ERR_JSON_TOO_DEEP', { limit: 3 })
    expect(fromCjs instanceof AdmissionError).toBe(false)
    expect(isAdmissionError(fromCjs)).toBe(true)
    expect(cjs.isAdmissionError(new AdmissionError('ERR_JSON_TOO_DEEP'))).toBe(true)
  })

  it('rejects look-alikes without the brand or with an unknown code', () => {
    expect(isAdmissionError(new Error('x'))).toBe(false)
    expect(isAdmissionError({ code: 'ERR_JSON_TOO_DEEP' })).toBe(false)
    expect(isAdmissionError(null)).toBe(false)
    expect(isAdmissionError(undefined)).toBe(false)
    expect(isAdmissionError('ERR_JSON_TOO_DEEP')).toBe(false)
    const brand = Symbol.for('tollgate.AdmissionError')
    // The brand and a registered code are what is checked: an object from another copy passes,
    // a function or a non-string code does not.
    expect(isAdmissionError({ [brand]: true, code: 'ERR_JSON_TOO_DEEP' })).toBe(true)
    expect(isAdmissionError({ [brand]: 'yes', code: 'ERR_JSON_TOO_DEEP' })).toBe(false)
    expect(isAdmissionError({ [brand]: true, code: 3 })).toBe(false)
    expect(
      isAdmissionError(Object.assign(() => {}, { [brand]: true, code: 'ERR_JSON_TOO_DEEP' })),
    ).toBe(false)
    const forged = new AdmissionError('ERR_JSON_TOO_DEEP')
    Object.defineProperty(forged, 'code', { value: 'ERR_NOPE' })
    expect(isAdmissionError(forged)).toBe(false)
  })
})
