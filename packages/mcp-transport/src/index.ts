export { MCP_TRANSPORT_CODES, type McpTransportCode } from './codes.js'
export { McpBodyAlreadyReadError } from './consumed-body.js'
export {
  type AgreementRefusal,
  checkHeaderAgreement,
} from './header-agreement.js'
export type { AdmittedMcpBody } from './http-body.js'
export {
  createMcpHttpAdmission,
  type McpHttpAdmission,
  type McpHttpCall,
  type McpHttpTarget,
  type McpHttpWhere,
} from './http-control.js'
export { closeEarlyAnswers, type HandlesHttpRequest } from './http-handover.js'
export { MODERN_METHOD_NOT_ALLOWED_CODE } from './http-modern-steps.js'
export {
  MCP_BODY_OPTIONS,
  MCP_HTTP_BODY_BYTES,
  MCP_HTTP_BODY_BYTES_CEILING,
  MCP_HTTP_OPTIONS,
  type McpBodyOptions,
  type McpHttpOptions,
  type McpHttpPolicy,
  mcpBodyAdmission,
} from './http-options.js'
export { PROTOCOL_VERSION_REFUSED } from './http-protocol-version.js'
export { refuseJsonRpcUnread } from './http-refusal.js'
export { MCP_PROTOCOL_VERSIONS } from './http-versions.js'
export { LineIdScanner, MAX_RECOVERED_ID_CHARS } from './line-id.js'
export { type McpHead, readMcpHead } from './mcp-head.js'
export { decodeMcpHeaderValue } from './mcp-header-value.js'
export { type McpParamHeader, paramHeadersOf } from './mcp-param-headers.js'
export type {
  JsonRpcMessage,
  JsonRpcRequestLike,
  McpTransport,
  MessageExtra,
  RequestIdLike,
  TransportSendOptionsLike,
} from './mcp-types.js'
export {
  BATCH_CODE,
  HEADER_MISMATCH_CODE,
  type HeaderMismatchKind,
  MCP_MODERN_ERRORS,
  METHOD_NOT_FOUND_ERROR,
  METHOD_NOT_SERVED_CODE,
  MODERN_BATCH_ERROR,
  QUOTA_CODE,
  QUOTA_ERROR,
  UNKNOWN_NAME_ERROR,
  UNKNOWN_PROMPT_CODE,
  UNKNOWN_PROMPT_ERROR,
  UNKNOWN_RESOURCE_CODE,
  UNKNOWN_RESOURCE_ERROR,
  UNKNOWN_TOOL_CODE,
} from './modern-refusal.js'
export {
  DEFAULT_PROTOCOL_ERAS,
  type HeaderVersionVerdict,
  hasVersionShape,
  isEchoableProtocolVersion,
  isModernProtocolVersion,
  MAX_ECHOED_VERSION_BYTES,
  MCP_ALL_PROTOCOL_VERSIONS,
  MCP_MODERN_PROTOCOL_VERSIONS,
  type McpProtocolEras,
  type McpProtocolErasOptions,
  mcpProtocolEras,
  PROTOCOL_VERSION_META_KEY,
  UNRECOGNIZED_PROTOCOL_VERSION,
} from './protocol-eras.js'
export {
  createResultBudget,
  RESULT_BUDGET_OPTIONS,
  type ResolvedResultBudgetOptions,
  ResultBudget,
  type ResultBudgetOptions,
  ResultBudgetTransport,
  resolveResultBudgetOptions,
  resultBudget,
} from './result-budget.js'
export type { ResultBudgetCall } from './result-budget-call.js'
export {
  type McpHeadAuditEvent,
  type McpHeadDecision,
  type McpHeadRefusal,
  type McpQuota,
  type McpQuotaGrant,
  type McpRouteHead,
  type McpRouteHeadOptions,
  type McpRouteTool,
  mcpRouteHead,
  ROUTE_HEAD_OPTIONS,
} from './route-head.js'
export { MAX_SURFACE_NAME_LENGTH } from './route-names.js'
export { releaseFinishedJsonResponses, SDK_SHAPE_WARNING_CODE } from './sdk-json-retention.js'
export {
  isInitializeBody,
  SessionPool,
  type SessionRefusal,
  type SessionSlot,
  type SessionUse,
  type SessionUseKind,
} from './session-pool.js'
export type { SessionLocation } from './session-pool-ids.js'
export { mintSessionId, sessionIdTag } from './session-pool-ids.js'
export {
  type ResolvedSessionPoolOptions,
  resolveSessionPoolOptions,
  SESSION_POOL_DEFAULTS,
  SESSION_POOL_OPTIONS,
  type SessionPoolOptions,
} from './session-pool-options.js'
export { BoundedStdioServerTransport } from './stdio.js'
export {
  BOUNDED_STDIO_DEFAULTS,
  BOUNDED_STDIO_OPTIONS,
  type BoundedStdioOptions,
  type ResolvedBoundedStdioOptions,
  resolveBoundedStdioOptions,
} from './stdio-options.js'
export { INVALID_MESSAGE_CODE, StdioRefusalError, stdioRefusalEvent } from './stdio-refusal.js'
export { mcpExpressHandler, mcpHttpHandler } from './streamable-http.js'
export {
  isJsonRpcRequest,
  type JsonRpcErrorObject,
  TransportDecorator,
} from './transport-decorator.js'
export {
  type WebHandlerCallOptions,
  type WebHandover,
  type WebHandoverCall,
  type WebHandoverOptions,
  type WebMcpHandler,
  webHandover,
} from './web-handover.js'
