// The `@tollgate/mcp-transport/decorator` entry: the decorator base and the structural transport
// types, without the HTTP stack (http-admission, the preflight) the root entry loads, so a
// package that only writes a decorator (mcp-validation) loads nothing else.

export type {
  JsonRpcMessage,
  JsonRpcRequestLike,
  McpTransport,
  MessageExtra,
  RequestIdLike,
  TransportSendOptionsLike,
} from './mcp-types.js'
export {
  isJsonRpcRequest,
  type JsonRpcErrorObject,
  TransportDecorator,
} from './transport-decorator.js'
