import {
  AdmissionError,
  type AdmissionErrorDetails,
  defineRefusalCodes,
  JSON_BUDGET_CODES,
  type JsonBudgetCode,
  type RefusalCodeSpec,
} from '@tollgate/json-budget'

/**
 * The refusal codes lexical-preflight raises: UTF-8, the JSON grammar and the key, string,
 * number and BOM policies. Each code is stable once released: codes are added, never renamed
 * or reused. `option` names the option of this package a caller changes to admit more.
 */
export const PREFLIGHT_CODES = defineRefusalCodes('@tollgate/lexical-preflight', {
  ERR_JSON_INVALID_UTF8: {
    status: 422,
    title: 'Unprocessable Content',
    option: undefined,
    message: 'bytes are not well-formed UTF-8',
  },
  ERR_JSON_SYNTAX: {
    status: 422,
    title: 'Unprocessable Content',
    option: undefined,
    message: 'not a single JSON text (RFC 8259)',
  },
  ERR_JSON_DUPLICATE_KEY: {
    status: 422,
    title: 'Unprocessable Content',
    option: 'duplicateKeys',
    message: 'object repeats a key',
  },
  ERR_JSON_PROTO_KEY: {
    status: 422,
    title: 'Unprocessable Content',
    option: 'protoKeys',
    message: 'object holds a prototype-polluting key',
  },
  ERR_JSON_STRING_TOO_LONG: {
    status: 422,
    title: 'Unprocessable Content',
    option: 'maxStringBytes',
    message: 'string exceeds the length limit',
  },
  ERR_JSON_NUMBER_TOO_LONG: {
    status: 422,
    title: 'Unprocessable Content',
    option: 'maxNumberLength',
    message: 'number exceeds the length limit',
  },
  ERR_JSON_BOM: {
    status: 422,
    title: 'Unprocessable Content',
    option: 'bom',
    message: 'byte order mark is not accepted',
  },
})

/** One of the codes in {@link PREFLIGHT_CODES}. */
export type PreflightCode = keyof typeof PREFLIGHT_CODES

/** Builds the refusal for one of this package's own codes (registered by the table above). */
// The graph-limit codes (depth, nodes, bytes) are json-budget's, shared by every package.
export function admissionError(
  code: PreflightCode | JsonBudgetCode,
  details?: AdmissionErrorDetails,
): AdmissionError {
  return new AdmissionError(
    code,
    details,
    (PREFLIGHT_CODES as Record<string, RefusalCodeSpec>)[code] ??
      (JSON_BUDGET_CODES as Record<string, RefusalCodeSpec>)[code],
  )
}
