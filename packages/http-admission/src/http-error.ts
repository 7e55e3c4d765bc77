import type { AdmissionCode, AdmissionError } from '@tollgate/json-budget'
import { refusalStatus } from './problem.js'

/**
 * An {@link AdmissionError} dressed as body-parser dresses its errors, so an Express error
 * handler written for `express.json()` handles it unchanged: `status` and `statusCode` (400 for
 * a client abort), body-parser's `type` string where one exists, `expose` (true below 500),
 * and `headers` (`Connection: close`, plus `Retry-After` on a 503), which Express's final
 * handler copies onto the response.
 */
export type HttpAdmissionError = AdmissionError & {
  readonly status: number
  readonly statusCode: number
  readonly type: string
  readonly expose: boolean
  readonly headers: Readonly<Record<string, string>>
}

const TYPES: Partial<Record<AdmissionCode, string>> = {
  ERR_BODY_TOO_LARGE: 'entity.too.large',
  ERR_BODY_INFLATION_RATIO: 'entity.too.large',
  ERR_JSON_TOO_LARGE: 'entity.too.large',
  ERR_BODY_INVALID_LENGTH: 'request.size.invalid',
  ERR_BODY_MEDIA_TYPE: 'charset.unsupported',
  ERR_BODY_ENCODING: 'encoding.unsupported',
  ERR_BODY_ABORTED: 'request.aborted',
  ERR_BODY_TIMEOUT: 'request.timeout',
  ERR_ADMISSION_BUSY: 'request.busy',
}

/** body-parser's `type` for `code` (`entity.parse.failed` for every grammar, structure and UTF-8 refusal). */
export function bodyParserType(code: AdmissionCode): string {
  return TYPES[code] ?? 'entity.parse.failed'
}

/** Adds `status`, `statusCode`, `type`, `expose` and `headers` to `error` and returns it. */
export function toHttpError(error: AdmissionError, retryAfterSeconds = 1): HttpAdmissionError {
  const status = refusalStatus(error)
  const headers: Record<string, string> = { Connection: 'close' }
  if (error.code === 'ERR_ADMISSION_BUSY') headers['Retry-After'] = String(retryAfterSeconds)
  return Object.assign(error, {
    status,
    statusCode: status,
    type: bodyParserType(error.code),
    expose: status < 500,
    headers: Object.freeze(headers),
  }) as HttpAdmissionError
}
