import type { AdmissionCode, AdmissionError } from '@tollgate/json-budget'
import { isBusyCode, refusalStatus } from './problem.js'

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
  ERR_BODY_INCOMPLETE: 'request.size.invalid',
  ERR_BODY_VERIFY_FAILED: 'entity.verify.failed',
  ERR_BODY_MEDIA_TYPE: 'charset.unsupported',
  ERR_BODY_ENCODING: 'encoding.unsupported',
  ERR_BODY_ABORTED: 'request.aborted',
  ERR_BODY_TIMEOUT: 'request.timeout',
  ERR_ADMISSION_BUSY: 'request.busy',
  ERR_ADMISSION_PRINCIPAL_BUSY: 'request.busy',
}

/**
 * body-parser's `type` for `code` (`entity.parse.failed` for every grammar, structure, strict
 * and UTF-8 refusal).
 */
export function bodyParserType(code: AdmissionCode): string {
  return TYPES[code] ?? 'entity.parse.failed'
}

/** Adds `status`, `statusCode`, `type`, `expose` and `headers` to `error` and returns it. */
export function toHttpError(error: AdmissionError, retryAfterSeconds = 1): HttpAdmissionError {
  return dress(error, refusalStatus(error), retryAfterSeconds)
}

// body-parser's messages where they are fixed text; the ones that quote a header value or the
// body (`unsupported charset "X"`, V8's parse errors) keep tollgate's bounded message instead.
const BODY_PARSER_MESSAGES: Readonly<Record<string, string>> = Object.freeze({
  'entity.too.large': 'request entity too large',
  'request.size.invalid': 'request size did not match content length',
  'request.aborted': 'request aborted',
  'encoding.unsupported': 'content encoding unsupported',
  'charset.unsupported': 'unsupported charset',
})

/**
 * An {@link AdmissionError} dressed as `express.json()` would have raised it, for `json()`:
 * {@link toHttpError}'s properties with body-parser's statuses (400 for every parse, structure
 * and strict refusal where `admission()` answers 422; 400 for a client abort) and its fixed
 * messages. `code` and `limit` stay, so a handler can still tell the refusals apart. Never
 * carries `body`: a refusal does not hold the caller's bytes.
 */
export function toBodyParserError(
  error: AdmissionError,
  retryAfterSeconds = 1,
): HttpAdmissionError {
  const type = bodyParserType(error.code)
  const status = type === 'entity.parse.failed' ? 400 : refusalStatus(error)
  const message = BODY_PARSER_MESSAGES[type]
  if (message !== undefined) {
    Object.defineProperty(error, 'message', { value: message, writable: true, configurable: true })
  }
  return dress(error, status, retryAfterSeconds)
}

function dress(
  error: AdmissionError,
  status: number,
  retryAfterSeconds: number,
): HttpAdmissionError {
  const headers: Record<string, string> = { Connection: 'close' }
  if (isBusyCode(error.code)) headers['Retry-After'] = String(retryAfterSeconds)
  return Object.assign(error, {
    status,
    statusCode: status,
    type: bodyParserType(error.code),
    expose: status < 500,
    headers: Object.freeze(headers),
  }) as HttpAdmissionError
}
