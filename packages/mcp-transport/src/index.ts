export { MCP_TRANSPORT_CODES, type McpTransportCode } from './codes.js'
export {
  decorateTransport,
  type InboundContext,
  isJsonRpcRequest,
  type JsonRpcErrorObject,
  TransportDecorator,
  type TransportHooks,
} from './decorator.js'
export { type AdmittedMcpBody, admitMcpBody } from './http-body.js'
export { type HandlesHttpRequest, handleMcpRequest } from './http-handover.js'
export { checkHostAndOrigin, guardHostAndOrigin } from './http-host-origin.js'
export {
  assertResolvedMcpHttpOptions,
  DEFAULT_MCP_HTTP_OPTIONS,
  isLoopbackHost,
  MCP_PROTOCOL_VERSIONS,
  type McpHttpOptions,
  type ResolvedMcpHttpOptions,
  resolveMcpHttpOptions,
} from './http-options.js'
export {
  guardProtocolVersion,
  isSupportedProtocolVersion,
  PROTOCOL_VERSION_REFUSED,
} from './http-protocol-version.js'
export { refuseJsonRpcUnread, refuseMcpRequest, renderJsonRpcRefusal } from './http-refusal.js'
export { JSON_RPC_ERRORS, jsonRpcErrorFor } from './json-rpc.js'
export { isJsonRpcMessage } from './json-rpc-message.js'
export { BoundedLineReader, type LineEvent } from './line-reader.js'
export type {
  JsonRpcMessage,
  JsonRpcRequestLike,
  McpTransport,
  MessageExtra,
  RequestIdLike,
  TransportSendOptionsLike,
} from './mcp-types.js'
export {
  DEFAULT_RESULT_BUDGET_OPTIONS,
  type ResolvedResultBudgetOptions,
  type ResultBudgetOptions,
  ResultBudgetTransport,
  resolveResultBudgetOptions,
  resultBudget,
  toolErrorResult,
} from './result-budget.js'
export { releaseFinishedJsonResponses, SDK_SHAPE_WARNING_CODE } from './sdk-json-retention.js'
export {
  DEFAULT_SESSION_POOL_OPTIONS,
  isInitializeBody,
  SessionPool,
  type SessionPoolOptions,
  type SessionRefusal,
  type SessionSlot,
  type SessionUse,
} from './session-pool.js'
export { BoundedStdioServerTransport } from './stdio.js'
export {
  type BoundedStdioOptions,
  DEFAULT_STDIO_OPTIONS,
  type ResolvedStdioOptions,
  resolveStdioOptions,
} from './stdio-options.js'
export { INVALID_MESSAGE_CODE, SDK_OVERFLOW_MESSAGE, StdioRefusalError } from './stdio-refusal.js'
export { type McpHttpTarget, mcpExpressHandler, mcpHttpHandler } from './streamable-http.js'
