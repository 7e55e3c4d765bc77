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
 * Every refusal code mcp-transport raises or reports: Host and Origin, the protocol version
 * (the code the body step returns when it answered an unsupported `MCP-Protocol-Version`), the
 * stdio line and message, the 2026-07-28 steps (method, route surface, header agreement,
 * quota, batch), a body another parser read first, and the session pool. Each code is stable
 * once released: codes are added, never renamed or reused. `option` names the option of this
 * package's controls (`createMcpHttpAdmission`, `mcpRouteHead`, `SessionPool`, the stdio
 * transport) a caller or operator changes to admit more, where one applies.
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
  ERR_JSONRPC_INVALID_MESSAGE: {
    status: 400,
    title: 'Bad Request',
    option: undefined,
    message: 'not a JSON-RPC 2.0 message',
  },
  ERR_MCP_METHOD_NOT_ALLOWED: {
    status: 405,
    title: 'Method Not Allowed',
    option: undefined,
    message: 'the 2026-07-28 revision takes POST only',
  },
  ERR_MCP_METHOD_NOT_SERVED: {
    status: 404,
    title: 'Not Found',
    option: 'methods',
    message: 'method not served on this route',
  },
  ERR_MCP_UNKNOWN_TOOL: {
    status: 400,
    title: 'Bad Request',
    option: 'tools',
    message: 'unknown tool',
  },
  ERR_MCP_UNKNOWN_PROMPT: {
    status: 400,
    title: 'Bad Request',
    option: 'prompts',
    message: 'unknown prompt',
  },
  ERR_MCP_UNKNOWN_RESOURCE: {
    status: 400,
    title: 'Bad Request',
    option: 'resources',
    message: 'unknown resource',
  },
  ERR_MCP_HEADER_MISMATCH: {
    status: 400,
    title: 'Bad Request',
    option: undefined,
    message: 'a mirrored header disagrees with the body',
  },
  ERR_MCP_QUOTA: {
    status: 429,
    title: 'Too Many Requests',
    option: 'quota',
    message: 'quota exceeded',
  },
  ERR_MCP_BATCH: {
    status: 400,
    title: 'Bad Request',
    option: undefined,
    message: 'a batch is not served on the 2026-07-28 revision',
  },
  ERR_MCP_BODY_ALREADY_READ: {
    status: 500,
    title: 'Internal Server Error',
    option: undefined,
    message: 'another body parser read the request body first',
  },
  ERR_SESSION_LIMIT: {
    status: 503,
    title: 'Service Unavailable',
    option: 'maxSessions',
    message: 'every session slot is taken',
  },
  ERR_SESSION_QUOTA: {
    status: 429,
    title: 'Too Many Requests',
    option: 'maxSessionsPerKey',
    message: 'the session quota of this caller is reached',
  },
  ERR_SESSION_ELSEWHERE: {
    status: 404,
    title: 'Not Found',
    option: undefined,
    message: 'the session is held by another instance',
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
