import {
  AdmissionError,
  type AdmissionErrorDetails,
  defineRefusalCodes,
  JSON_BUDGET_CODES,
  type JsonBudgetCode,
  type RefusalCodeSpec,
} from '@tollgate/json-budget'
import { PREFLIGHT_CODES, type PreflightCode } from '@tollgate/lexical-preflight'

/**
 * The refusal codes mcp-transport raises: Host and Origin, the protocol version (the code the
 * body step returns when it answered an unsupported `MCP-Protocol-Version`), and the stdio
 * line. Each code is
 * stable once released: codes are added, never renamed or reused. `option` names the option
 * of this package a caller changes to admit more.
 */
export const MCP_TRANSPORT_CODES = defineRefusalCodes('@tollgate/mcp-transport', {
  ERR_HOST_NOT_ALLOWED: {
    status: 403,
    title: 'Forbidden',
    option: 'allowedHosts',
    message: 'Host header is not allowed',
  },
  ERR_ORIGIN_NOT_ALLOWED: {
    status: 403,
    title: 'Forbidden',
    option: 'allowedOrigins',
    message: 'Origin header is not allowed',
  },
  ERR_MCP_PROTOCOL_VERSION: {
    status: 400,
    title: 'Bad Request',
    option: 'supportedProtocolVersions',
    message: 'unsupported MCP-Protocol-Version',
  },
  ERR_LINE_TOO_LARGE: {
    status: 413,
    title: 'Payload Too Large',
    option: 'maxLineBytes',
    message: 'line exceeds the byte limit',
  },
})

/** One of the codes in {@link MCP_TRANSPORT_CODES}. */
export type McpTransportCode = keyof typeof MCP_TRANSPORT_CODES

/** Builds the refusal for one of this package's own codes (registered by the table above). */
// The JSON codes this package raises besides its own are owned by the package that defines them.
export function admissionError(
  code: McpTransportCode | PreflightCode | JsonBudgetCode,
  details?: AdmissionErrorDetails,
): AdmissionError {
  return new AdmissionError(
    code,
    details,
    (MCP_TRANSPORT_CODES as Record<string, RefusalCodeSpec>)[code] ??
      (PREFLIGHT_CODES as Record<string, RefusalCodeSpec>)[code] ??
      (JSON_BUDGET_CODES as Record<string, RefusalCodeSpec>)[code],
  )
}
