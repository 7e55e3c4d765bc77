export {
  decorateTransport,
  type InboundContext,
  isJsonRpcRequest,
  type JsonRpcErrorObject,
  TransportDecorator,
  type TransportHooks,
} from './decorator.js'
export { BoundedLineReader, type LineEvent } from './line-reader.js'
export {
  DEFAULT_RESULT_BUDGET_OPTIONS,
  type ResolvedResultBudgetOptions,
  type ResultBudgetOptions,
  ResultBudgetTransport,
  resolveResultBudgetOptions,
  resultBudget,
  toolErrorResult,
} from './result-budget.js'
export { BoundedStdioServerTransport, JSON_RPC_ERRORS, jsonRpcErrorFor } from './stdio.js'
export {
  type BoundedStdioOptions,
  DEFAULT_STDIO_OPTIONS,
  type ResolvedStdioOptions,
  resolveStdioOptions,
} from './stdio-options.js'
