// lexical-preflight's own refusal codes: pinned row by row (codes are added, never renamed), each
// naming an option of this package or none, and registered under this package.
import { refusalCodeSpec } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { PREFLIGHT_CODES, PREFLIGHT_DEFAULTS, type PreflightCode } from '../src/index.js'

const OPTIONS: Record<PreflightCode, string | undefined> = {
  ERR_JSON_INVALID_UTF8: undefined,
  ERR_JSON_SYNTAX: undefined,
  ERR_JSON_DUPLICATE_KEY: 'duplicateKeys',
  ERR_JSON_PROTO_KEY: 'protoKeys',
  ERR_JSON_STRING_TOO_LONG: 'maxStringBytes',
  ERR_JSON_NUMBER_TOO_LONG: 'maxNumberLength',
  ERR_JSON_BOM: 'bom',
}
const CODES = Object.keys(OPTIONS) as PreflightCode[]

describe('PREFLIGHT_CODES', () => {
  it('holds every released code, in order, each answered 422 Unprocessable Content', () => {
    expect(Object.keys(PREFLIGHT_CODES)).toEqual(CODES)
    for (const code of CODES) {
      expect(PREFLIGHT_CODES[code]).toMatchObject({ status: 422, title: 'Unprocessable Content' })
    }
  })

  it('names for each code an option of PreflightOptions, or none', () => {
    for (const code of CODES) {
      const option = PREFLIGHT_CODES[code].option
      expect([code, option]).toEqual([code, OPTIONS[code]])
      if (option !== undefined) expect(Object.keys(PREFLIGHT_DEFAULTS)).toContain(option)
    }
  })

  it('is frozen and registered under @tollgate/lexical-preflight', () => {
    expect(Object.isFrozen(PREFLIGHT_CODES)).toBe(true)
    for (const code of CODES) {
      expect(refusalCodeSpec(code)).toMatchObject({
        owner: '@tollgate/lexical-preflight',
        ...PREFLIGHT_CODES[code],
      })
    }
  })

  it('has a distinct message for each code', () => {
    const messages = CODES.map((code) => PREFLIGHT_CODES[code].message)
    expect(new Set(messages).size).toBe(CODES.length)
  })
})
