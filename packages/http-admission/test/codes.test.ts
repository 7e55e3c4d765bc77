// Each code's `option` is the hint a refusal's message gives ("raise maxBytes to admit more"):
// it must name an option a caller of this package can actually set.
import { AdmissionError } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { HTTP_ADMISSION_CODES, HTTP_ADMISSION_DEFAULTS } from '../src/index.js'
import { HTTP_ADMISSION_VALIDATORS } from '../src/resolve-options.js'

// The option names: the validator table is typed against HttpAdmissionOptions (a key without a
// validator does not compile), so its keys are the interface's keys.
const OPTION_NAMES = new Set(Object.keys(HTTP_ADMISSION_VALIDATORS))

describe('HTTP_ADMISSION_CODES', () => {
  it('names, for every code, an option of HttpAdmissionOptions or none', () => {
    for (const [code, spec] of Object.entries(HTTP_ADMISSION_CODES)) {
      if (spec.option === undefined) continue
      expect(OPTION_NAMES.has(spec.option), `${code} names ${spec.option}`).toBe(true)
    }
    // Every default is an option too, so the names above are not a stale list.
    for (const name of Object.keys(HTTP_ADMISSION_DEFAULTS))
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
