import {
  AdmissionError,
  type AdmissionErrorDetails,
  defineRefusalCodes,
  type RefusalCodeSpec,
} from '@tollgate/json-budget'
import { PREFLIGHT_CODES, type PreflightCode } from '@tollgate/lexical-preflight'
import type { BodyAdmissionOptions } from './body-options.js'
import type { AdmissionHostOptions } from './middleware-options.js'

// Names an option of this package, so a hint naming an option that does not exist (or was
// renamed) fails to compile.
function option<K extends keyof (BodyAdmissionOptions & AdmissionHostOptions) & string>(
  name: K,
): K {
  return name
}

/**
 * The refusal codes http-admission raises: the body, its framing, its encoding, the budgets
 * and the drop-in's top-level check. Each code is stable once released: codes are added,
 * never renamed or reused. `option` names the option of this package a caller changes to
 * admit more.
 */
export const HTTP_ADMISSION_CODES = defineRefusalCodes('@tollgate/http-admission', {
  ERR_BODY_TOO_LARGE: {
    status: 413,
    title: 'Payload Too Large',
    option: option('maxBytes'),
    message: 'request body exceeds the byte limit',
  },
  ERR_BODY_INVALID_LENGTH: {
    status: 400,
    title: 'Bad Request',
    // A header, not an option: nothing a server sets admits a malformed or repeated length.
    option: undefined,
    message: 'Content-Length is malformed, negative or repeated, or the body ran past it',
  },
  ERR_BODY_MEDIA_TYPE: {
    status: 415,
    title: 'Unsupported Media Type',
    option: option('types'),
    message: 'content type or charset is not accepted here',
  },
  ERR_BODY_ENCODING: {
    status: 415,
    title: 'Unsupported Media Type',
    // An unknown or stacked encoding is refused whatever the options; `inflate: false` refuses all.
    option: option('inflate'),
    message: 'Content-Encoding is not accepted here',
  },
  ERR_BODY_INFLATION_RATIO: {
    status: 413,
    title: 'Payload Too Large',
    option: option('maxInflationRatio'),
    message: 'decoded body grows past the inflation ratio limit',
  },
  ERR_BODY_TIMEOUT: {
    status: 408,
    title: 'Request Timeout',
    option: option('timeoutMs'),
    message: 'request body did not arrive within the time limit',
  },
  ERR_BODY_ABORTED: {
    status: undefined,
    title: 'Client Closed Request',
    option: undefined,
    message: 'client closed the request before the body ended',
  },
  ERR_BODY_INCOMPLETE: {
    status: 400,
    title: 'Bad Request',
    option: undefined,
    message: 'request body ended before its declared Content-Length',
  },
  ERR_BODY_VERIFY_FAILED: {
    status: 403,
    title: 'Forbidden',
    option: option('verify'),
    message: 'request body was refused by the verify hook',
  },
  ERR_ADMISSION_BUSY: {
    status: 503,
    title: 'Service Unavailable',
    // The limit is the budget's `maxBytes`: pass a larger `createInFlightBudget(bytes)`.
    option: option('budget'),
    message: 'in-flight body budget is spent; retry later',
  },
  ERR_ADMISSION_PRINCIPAL_BUSY: {
    status: 503,
    title: 'Service Unavailable',
    option: option('principalShare'),
    message: "this caller's share of the in-flight body budget is spent; retry later",
  },
  ERR_JSON_NOT_OBJECT_OR_ARRAY: {
    status: 422,
    title: 'Unprocessable Content',
    option: option('strict'),
    message: 'top-level JSON value is not an object or array',
  },
})

/** One of the codes in {@link HTTP_ADMISSION_CODES}. */
export type HttpAdmissionCode = keyof typeof HTTP_ADMISSION_CODES

/** Builds the refusal for one of this package's own codes (registered by the table above). */
// The JSON codes this package raises besides its own are owned by the package that defines them.
export function admissionError(
  code: HttpAdmissionCode | PreflightCode,
  details?: AdmissionErrorDetails,
): AdmissionError {
  return new AdmissionError(
    code,
    details,
    (HTTP_ADMISSION_CODES as Record<string, RefusalCodeSpec>)[code] ??
      (PREFLIGHT_CODES as Record<string, RefusalCodeSpec>)[code],
  )
}
