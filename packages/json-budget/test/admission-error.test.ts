import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import {
  ADMISSION_CODE_LIST,
  ADMISSION_CODES,
  AdmissionError,
  isAdmissionError,
  statusForCode,
} from '../src/index.js'

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
    const idle = new AdmissionError('ERR_BODY_TIMEOUT', { limit: 10, option: 'idleTimeoutMs' })
    expect(idle.option).toBe('idleTimeoutMs')
    expect(new AdmissionError('ERR_BODY_TIMEOUT', { limit: 10 }).option).toBe('timeoutMs')
    expect(new AdmissionError('ERR_JSON_SYNTAX').option).toBeUndefined()
  })

  it('builds every message from numbers and option names only, under 160 characters', () => {
    for (const code of ADMISSION_CODE_LIST) {
      const error = new AdmissionError(code, { limit: 2 ** 52, observed: 2 ** 53 })
      expect(error.message.length).toBeLessThan(160)
      expect(error.status).toBe(statusForCode(code))
    }
  })

  it('answers each code with the status of the DESIGN.md table', () => {
    expect(ADMISSION_CODES.ERR_BODY_TOO_LARGE.status).toBe(413)
    expect(ADMISSION_CODES.ERR_BODY_INVALID_LENGTH.status).toBe(400)
    expect(ADMISSION_CODES.ERR_BODY_MEDIA_TYPE.status).toBe(415)
    expect(ADMISSION_CODES.ERR_BODY_ENCODING.status).toBe(415)
    expect(ADMISSION_CODES.ERR_BODY_TIMEOUT.status).toBe(408)
    expect(ADMISSION_CODES.ERR_BODY_ABORTED.status).toBeUndefined()
    expect(ADMISSION_CODES.ERR_ADMISSION_BUSY.status).toBe(503)
    expect(ADMISSION_CODES.ERR_JSON_INVALID_UTF8.status).toBe(422)
    expect(ADMISSION_CODES.ERR_JSON_SYNTAX.status).toBe(422)
    expect(ADMISSION_CODES.ERR_JSON_TOO_DEEP.status).toBe(422)
    expect(ADMISSION_CODES.ERR_JSON_TOO_MANY_NODES.status).toBe(422)
    expect(ADMISSION_CODES.ERR_JSON_TOO_LARGE.status).toBe(413)
    expect(ADMISSION_CODES.ERR_JSON_UNSUPPORTED_VALUE.status).toBe(500)
    for (const code of [
      'ERR_JSON_DUPLICATE_KEY',
      'ERR_JSON_PROTO_KEY',
      'ERR_JSON_STRING_TOO_LONG',
      'ERR_JSON_NUMBER_TOO_LONG',
      'ERR_JSON_BOM',
    ] as const) {
      expect(ADMISSION_CODES[code].status).toBe(422)
    }
  })
})

describe('isAdmissionError', () => {
  it('recognizes an error thrown by the CommonJS build of the package', () => {
    const require = createRequire(import.meta.url)
    const cjs = require('../dist/index.cjs') as typeof import('../src/index.js')
    const fromCjs = new cjs.AdmissionError('ERR_JSON_SYNTAX', { offset: 3 })
    expect(fromCjs instanceof AdmissionError).toBe(false)
    expect(isAdmissionError(fromCjs)).toBe(true)
    expect(cjs.isAdmissionError(new AdmissionError('ERR_JSON_SYNTAX'))).toBe(true)
  })

  it('rejects look-alikes without the brand or with an unknown code', () => {
    expect(isAdmissionError(new Error('x'))).toBe(false)
    expect(isAdmissionError({ code: 'ERR_JSON_SYNTAX' })).toBe(false)
    expect(isAdmissionError(null)).toBe(false)
    const forged = new AdmissionError('ERR_JSON_SYNTAX')
    Object.defineProperty(forged, 'code', { value: 'ERR_NOPE' })
    expect(isAdmissionError(forged)).toBe(false)
  })
})
