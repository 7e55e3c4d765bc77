import { AdmissionError } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
// The codes register when the package's code table loads.
import '../src/codes.js'
import { bodyParserType, toBodyParserError, toHttpError } from '../src/http-error.js'

// What an Express error handler written for express.json() reads off a refusal: body-parser's
// `type` per code, `status`/`statusCode`, `expose`, and the headers Express's final handler
// copies onto the response (`Connection: close`, `Retry-After` only on a 503).

const TYPES = {
  ERR_BODY_TOO_LARGE: 'entity.too.large',
  ERR_BODY_INFLATION_RATIO: 'entity.too.large',
  ERR_JSON_TOO_LARGE: 'entity.too.large',
  ERR_BODY_INVALID_LENGTH: 'request.size.invalid',
  ERR_BODY_INCOMPLETE: 'request.size.invalid',
  ERR_BODY_VERIFY_FAILED: 'entity.verify.failed',
  ERR_BODY_MEDIA_TYPE: 'charset.unsupported',
  ERR_BODY_ENCODING: 'encoding.unsupported',
  ERR_BODY_ABORTED: 'request.aborted',
  ERR_BODY_TIMEOUT: 'request.timeout',
  ERR_ADMISSION_BUSY: 'request.busy',
  ERR_ADMISSION_PRINCIPAL_BUSY: 'request.busy',
  ERR_JSON_SYNTAX: 'entity.parse.failed',
  ERR_JSON_TOO_DEEP: 'entity.parse.failed',
  ERR_JSON_NOT_OBJECT_OR_ARRAY: 'entity.parse.failed',
} as const

describe('toHttpError', () => {
  it("gives each code body-parser's type, and Connection: close with Retry-After only on a 503", () => {
    for (const [code, type] of Object.entries(TYPES)) {
      expect(bodyParserType(code as never), code).toBe(type)
      const error = toHttpError(new AdmissionError(code as never), 4)
      expect(error.type, code).toBe(type)
      expect(error.status, code).toBe(error.statusCode)
      expect(error.expose, code).toBe(error.status < 500)
      const busy = code === 'ERR_ADMISSION_BUSY' || code === 'ERR_ADMISSION_PRINCIPAL_BUSY'
      expect(error.headers, code).toEqual(
        busy ? { Connection: 'close', 'Retry-After': '4' } : { Connection: 'close' },
      )
    }
    expect(toHttpError(new AdmissionError('ERR_BODY_ABORTED')).status).toBe(400)
    expect(toHttpError(new AdmissionError('ERR_ADMISSION_BUSY')).headers['Retry-After']).toBe('1')
  })
})

describe('toBodyParserError', () => {
  it("uses body-parser's fixed messages, keeps the message writable, and answers a parse refusal 400", () => {
    const messages = {
      ERR_BODY_TOO_LARGE: 'request entity too large',
      ERR_BODY_INCOMPLETE: 'request size did not match content length',
      ERR_BODY_ABORTED: 'request aborted',
      ERR_BODY_ENCODING: 'content encoding unsupported',
      ERR_BODY_MEDIA_TYPE: 'unsupported charset',
    } as const
    for (const [code, message] of Object.entries(messages)) {
      const error = toBodyParserError(new AdmissionError(code as never))
      expect(error.message, code).toBe(message)
      error.message = 'rewritten by the app'
      expect(error.message, code).toBe('rewritten by the app')
    }
    const parse = toBodyParserError(new AdmissionError('ERR_JSON_TOO_DEEP', { limit: 64 }))
    expect(parse).toMatchObject({
      status: 400,
      statusCode: 400,
      type: 'entity.parse.failed',
      expose: true,
      code: 'ERR_JSON_TOO_DEEP',
      limit: 64,
    })
  })
})
