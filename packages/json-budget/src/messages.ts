import type { AdmissionCode } from './codes.js'

// What each refusal says. A message is built only from the code, the numbers and the option
// name, never from the input, so it cannot echo a caller's bytes and its length is bounded.
const WHAT: Record<AdmissionCode, string> = {
  ERR_BODY_TOO_LARGE: 'request body exceeds the byte limit',
  ERR_BODY_INVALID_LENGTH:
    'Content-Length is malformed, negative or repeated, or the body ran past it',
  ERR_BODY_MEDIA_TYPE: 'content type or charset is not accepted here',
  ERR_BODY_ENCODING: 'Content-Encoding is not accepted here',
  ERR_BODY_INFLATION_RATIO: 'decoded body grows past the inflation ratio limit',
  ERR_BODY_TIMEOUT: 'request body did not arrive within the time limit',
  ERR_BODY_ABORTED: 'client closed the request before the body ended',
  ERR_ADMISSION_BUSY: 'in-flight body budget is spent; retry later',
  ERR_HOST_NOT_ALLOWED: 'Host header is not allowed',
  ERR_ORIGIN_NOT_ALLOWED: 'Origin header is not allowed',
  ERR_LINE_TOO_LARGE: 'line exceeds the byte limit',
  ERR_JSON_INVALID_UTF8: 'bytes are not well-formed UTF-8',
  ERR_JSON_SYNTAX: 'not a single JSON text (RFC 8259)',
  ERR_JSON_TOO_DEEP: 'JSON nesting exceeds the depth limit',
  ERR_JSON_TOO_MANY_NODES: 'JSON value has more nodes than the limit',
  ERR_JSON_TOO_LARGE: 'compact JSON encoding exceeds the byte limit',
  ERR_JSON_UNSUPPORTED_VALUE: 'value is not plain JSON',
  ERR_JSON_DUPLICATE_KEY: 'object repeats a key',
  ERR_JSON_PROTO_KEY: 'object holds a prototype-polluting key',
  ERR_JSON_STRING_TOO_LONG: 'string exceeds the length limit',
  ERR_JSON_NUMBER_TOO_LONG: 'number exceeds the length limit',
  ERR_JSON_BOM: 'byte order mark is not accepted',
  ERR_BODY_INCOMPLETE: 'request body ended before its declared Content-Length',
  ERR_JSON_NOT_OBJECT_OR_ARRAY: 'top-level JSON value is not an object or array',
  ERR_BODY_VERIFY_FAILED: 'request body was refused by the verify hook',
  ERR_ADMISSION_PRINCIPAL_BUSY:
    "this caller's share of the in-flight body budget is spent; retry later",
}

/** Builds the bounded, non-echoing message for a refusal. */
export function formatMessage(
  code: AdmissionCode,
  limit: number | undefined,
  option: string | undefined,
): string {
  let message = WHAT[code]
  if (limit !== undefined) message += ` (limit ${limit})`
  if (option !== undefined && limit !== undefined) message += `; raise ${option} to admit more`
  return message
}
