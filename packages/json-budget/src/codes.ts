/**
 * The shared refusal vocabulary. Each code is stable once released: codes are added, never
 * renamed or reused. `status` is the HTTP status an adapter answers with (`undefined` where
 * there is nobody left to answer, as after a client abort); `option` names the setting a
 * caller raises to admit more.
 */
export const ADMISSION_CODES = {
  ERR_BODY_TOO_LARGE: { status: 413, title: 'Payload Too Large', option: 'maxBytes' },
  ERR_BODY_INVALID_LENGTH: { status: 400, title: 'Bad Request', option: 'Content-Length' },
  ERR_BODY_MEDIA_TYPE: { status: 415, title: 'Unsupported Media Type', option: 'types' },
  ERR_BODY_ENCODING: { status: 415, title: 'Unsupported Media Type', option: 'encodings' },
  ERR_BODY_INFLATION_RATIO: {
    status: 413,
    title: 'Payload Too Large',
    option: 'maxInflationRatio',
  },
  ERR_BODY_TIMEOUT: { status: 408, title: 'Request Timeout', option: 'timeoutMs' },
  ERR_BODY_ABORTED: { status: undefined, title: 'Client Closed Request', option: undefined },
  ERR_ADMISSION_BUSY: { status: 503, title: 'Service Unavailable', option: 'maxInFlightBytes' },
  ERR_HOST_NOT_ALLOWED: { status: 403, title: 'Forbidden', option: 'allowedHosts' },
  ERR_ORIGIN_NOT_ALLOWED: { status: 403, title: 'Forbidden', option: 'allowedOrigins' },
  ERR_LINE_TOO_LARGE: { status: 413, title: 'Payload Too Large', option: 'maxLineBytes' },
  ERR_JSON_INVALID_UTF8: { status: 422, title: 'Unprocessable Content', option: undefined },
  ERR_JSON_SYNTAX: { status: 422, title: 'Unprocessable Content', option: undefined },
  ERR_JSON_TOO_DEEP: { status: 422, title: 'Unprocessable Content', option: 'maxDepth' },
  ERR_JSON_TOO_MANY_NODES: { status: 422, title: 'Unprocessable Content', option: 'maxNodes' },
  ERR_JSON_TOO_LARGE: { status: 413, title: 'Payload Too Large', option: 'maxBytes' },
  ERR_JSON_UNSUPPORTED_VALUE: { status: 500, title: 'Internal Server Error', option: undefined },
  ERR_JSON_DUPLICATE_KEY: { status: 422, title: 'Unprocessable Content', option: 'duplicateKeys' },
  ERR_JSON_PROTO_KEY: { status: 422, title: 'Unprocessable Content', option: 'protoKeys' },
  ERR_JSON_STRING_TOO_LONG: {
    status: 422,
    title: 'Unprocessable Content',
    option: 'maxStringBytes',
  },
  ERR_JSON_NUMBER_TOO_LONG: {
    status: 422,
    title: 'Unprocessable Content',
    option: 'maxNumberLength',
  },
  ERR_JSON_BOM: { status: 422, title: 'Unprocessable Content', option: 'bom' },
  ERR_BODY_INCOMPLETE: { status: 400, title: 'Bad Request', option: undefined },
  ERR_JSON_NOT_OBJECT_OR_ARRAY: {
    status: 422,
    title: 'Unprocessable Content',
    option: 'strict',
  },
  ERR_BODY_VERIFY_FAILED: { status: 403, title: 'Forbidden', option: 'verify' },
  ERR_ADMISSION_PRINCIPAL_BUSY: {
    status: 503,
    title: 'Service Unavailable',
    option: 'principalShare',
  },
} as const satisfies Record<
  string,
  { status: number | undefined; title: string; option: string | undefined }
>

/** One of the stable refusal codes in {@link ADMISSION_CODES}. */
export type AdmissionCode = keyof typeof ADMISSION_CODES

/** Every code, in table order. */
export const ADMISSION_CODE_LIST: readonly AdmissionCode[] = Object.freeze(
  Object.keys(ADMISSION_CODES) as AdmissionCode[],
)

/** The HTTP status an adapter answers `code` with, or `undefined` when there is no one to answer. */
export function statusForCode(code: AdmissionCode): number | undefined {
  return ADMISSION_CODES[code].status
}
