// Each code's `option` is the hint a refusal's message gives ("raise maxBytes to admit more"):
// it must name an option a caller of this package can actually set.
import { AdmissionError } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import {
  ADMISSION_HOST_OPTIONS,
  BODY_ADMISSION_DEFAULTS,
  BODY_ADMISSION_OPTIONS,
  HTTP_ADMISSION_CODES,
} from '../src/index.js'

// The option names: the options tables of the body control and of the middleware, from which
// their types are derived.
const OPTION_NAMES = new Set<string>([
  ...BODY_ADMISSION_OPTIONS.names,
  ...ADMISSION_HOST_OPTIONS.names,
])

describe('HTTP_ADMISSION_CODES', () => {
  it('names, for every code, an option of bodyAdmission() or admission(), or none', () => {
    for (const [code, spec] of Object.entries(HTTP_ADMISSION_CODES)) {
      if (spec.option === undefined) continue
      expect(OPTION_NAMES.has(spec.option), `${code} names ${spec.option}`).toBe(true)
    }
    // Every default is an option too, so the names above are not a stale list.
    for (const name of Object.keys(BODY_ADMISSION_DEFAULTS))
      expect(OPTION_NAMES.has(name), name).toBe(true)
  })

  it('gives no option to raise for a Content-Length or Content-Encoding refusal', () => {
    for (const code of [
      'ERR_BODY_INVALID_LENGTH',
      'ERR_BODY_ENCODING',
      'ERR_BODY_INCOMPLETE',
    ] as const) {
      const message = new AdmissionError(code, { limit: 5 }).message
      expect(message, code).not.toMatch(/encodings|Content-Length to admit/)
    }
    expect(new AdmissionError('ERR_BODY_INVALID_LENGTH', { limit: 5 }).option).toBeUndefined()
    expect(new AdmissionError('ERR_BODY_ENCODING', { limit: 5 }).option).toBe('inflate')
    expect(new AdmissionError('ERR_ADMISSION_BUSY', { limit: 5 }).message).toContain(
      'raise budget to admit more',
    )
  })
})
