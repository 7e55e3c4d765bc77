export {
  decorateTransport,
  type InboundContext,
  isJsonRpcRequest,
  type JsonRpcErrorObject,
  TransportDecorator,
  type TransportHooks,
} from './decorator.js'
export {
  DEFAULT_MCP_HTTP_OPTIONS,
  isLoopbackHost,
  type McpHttpOptions,
  type ResolvedMcpHttpOptions,
  resolveMcpHttpOptions,
} from './http-options.js'
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
export { BoundedStdioServerTransport } from './stdio.js'
export {
  type BoundedStdioOptions,
  DEFAULT_STDIO_OPTIONS,
  type ResolvedStdioOptions,
  resolveStdioOptions,
} from './stdio-options.js'
export { INVALID_MESSAGE_CODE, SDK_OVERFLOW_MESSAGE, StdioRefusalError } from './stdio-refusal.js'
export {
  checkHostAndOrigin,
  type HandlesHttpRequest,
  type McpHttpTarget,
  mcpExpressHandler,
  mcpHttpHandler,
  renderJsonRpcRefusal,
} from './streamable-http.js'
