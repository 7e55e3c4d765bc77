export { MCP_TRANSPORT_CODES, type McpTransportCode } from './codes.js'
export { type AdmittedMcpBody, admitMcpBody } from './http-body.js'
export { type HandlesHttpRequest, handleMcpRequest } from './http-handover.js'
export { guardHostAndOrigin } from './http-host-origin.js'
export {
  MCP_BODY_OPTIONS,
  MCP_HTTP_BODY_BYTES,
  MCP_HTTP_BODY_BYTES_CEILING,
  MCP_HTTP_DEFAULTS,
  MCP_HTTP_OPTIONS,
  MCP_PROTOCOL_VERSIONS,
  type McpBodyOptions,
  type McpHttpOptions,
  mcpBodyAdmission,
  type ResolvedMcpHttpOptions,
  resolveMcpHttpOptions,
} from './http-options.js'
export { guardProtocolVersion, PROTOCOL_VERSION_REFUSED } from './http-protocol-version.js'
export { refuseJsonRpcUnread } from './http-refusal.js'
export type {
  JsonRpcMessage,
  JsonRpcRequestLike,
  McpTransport,
  MessageExtra,
  RequestIdLike,
  TransportSendOptionsLike,
} from './mcp-types.js'
export {
  RESULT_BUDGET_DEFAULTS,
  type ResolvedResultBudgetOptions,
  type ResultBudgetOptions,
  ResultBudgetTransport,
  resolveResultBudgetOptions,
  resultBudget,
} from './result-budget.js'
export { releaseFinishedJsonResponses, SDK_SHAPE_WARNING_CODE } from './sdk-json-retention.js'
export {
  isInitializeBody,
  type ResolvedSessionPoolOptions,
  resolveSessionPoolOptions,
  SESSION_POOL_DEFAULTS,
  SessionPool,
  type SessionPoolOptions,
  type SessionRefusal,
  type SessionSlot,
  type SessionUse,
} from './session-pool.js'
export { BoundedStdioServerTransport } from './stdio.js'
export {
  BOUNDED_STDIO_DEFAULTS,
  type BoundedStdioOptions,
  type ResolvedBoundedStdioOptions,
  resolveBoundedStdioOptions,
} from './stdio-options.js'
export { INVALID_MESSAGE_CODE, StdioRefusalError } from './stdio-refusal.js'
export { type McpHttpTarget, mcpExpressHandler, mcpHttpHandler } from './streamable-http.js'
export {
  isJsonRpcRequest,
  type JsonRpcErrorObject,
  TransportDecorator,
} from './transport-decorator.js'
