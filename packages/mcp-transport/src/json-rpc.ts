import type { AdmissionError } from '@tollgate/json-budget'
import type { JsonRpcErrorObject } from './transport-decorator.js'

/** JSON-RPC 2.0 error codes the transport answers with. */
export const JSON_RPC_ERRORS = Object.freeze({
  /** Invalid JSON (here: refused by the preflight for UTF-8, grammar, nodes or depth). */
  parseError: -32700,
  /** Valid JSON that is not a JSON-RPC message the SDK accepts. */
  invalidRequest: -32600,
  /** Implementation-defined server error (here: a line past the byte cap). */
  serverError: -32000,
})

/**
 * Builds the JSON-RPC error object for a refusal: a fixed message and `data` holding only the
 * code and the numbers, never the caller's bytes.
 */
export function jsonRpcErrorFor(code: number, error: AdmissionError): JsonRpcErrorObject {
  const data: Record<string, unknown> = { code: error.code }
  if (error.limit !== undefined) data.limit = error.limit
  if (error.offset !== undefined) data.offset = error.offset
  const message =
    code === JSON_RPC_ERRORS.parseError
      ? 'Parse error'
      : code === JSON_RPC_ERRORS.invalidRequest
        ? 'Invalid Request'
        : error.message
  return { code, message, data }
}
