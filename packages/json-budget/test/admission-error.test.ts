import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import {
  AdmissionError,
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
    expect((thrown as Error).message).not.toContain('NEVER')
    expect((thrown as Error).message).not.toContain('<script>')
    // A spec passed beside the code does not make an unregistered code an AdmissionError.
    expect(
      () => new AdmissionError('ERR_NEVER_REGISTERED', {}, JSON_BUDGET_CODES.ERR_JSON_TOO_DEEP),
    ).toThrow(TypeError)
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
    const forged = new AdmissionError('ERR_JSON_TOO_DEEP')
    Object.defineProperty(forged, 'code', { value: 'ERR_NOPE' })
    expect(isAdmissionError(forged)).toBe(false)
  })
})
