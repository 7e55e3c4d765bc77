import { AdmissionError, type AdmissionErrorDetails } from './errors.js'
import { defineRefusalCodes } from './refusal-codes.js'

/**
 * The codes json-budget raises: the graph limits every package shares (`maxNodes`,
 * `maxDepth`, `maxBytes` of {@link JsonLimitsOptions}) and the non-JSON value. Each code is
 * stable once released: codes are added, never renamed or reused.
 */
export const JSON_BUDGET_CODES = defineRefusalCodes('@tollgate/json-budget', {
  ERR_JSON_TOO_DEEP: {
    status: 422,
    title: 'Unprocessable Content',
    option: 'maxDepth',
    message: 'JSON nesting exceeds the depth limit',
  },
  ERR_JSON_TOO_MANY_NODES: {
    status: 422,
    title: 'Unprocessable Content',
    option: 'maxNodes',
    message: 'JSON value has more nodes than the limit',
  },
  ERR_JSON_TOO_LARGE: {
    status: 413,
    title: 'Payload Too Large',
    option: 'maxBytes',
    message: 'compact JSON encoding exceeds the byte limit',
  },
  ERR_JSON_UNSUPPORTED_VALUE: {
    status: 500,
    title: 'Internal Server Error',
    option: undefined,
    message: 'value is not plain JSON',
  },
})

/** One of the codes in {@link JSON_BUDGET_CODES}. */
export type JsonBudgetCode = keyof typeof JSON_BUDGET_CODES

/** Builds the refusal for one of json-budget's own codes. */
export function admissionError(
  code: JsonBudgetCode,
  details?: AdmissionErrorDetails,
): AdmissionError {
  return new AdmissionError(code, details, JSON_BUDGET_CODES[code])
}
