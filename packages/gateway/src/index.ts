export { type ChildUpstreamOptions, childUpstream } from './child-upstream.js'
export {
  GATEWAY_CLI_OPTIONS,
  type GatewayCliOptions,
  GatewayUsageError,
  gatewayHelp,
  isLoopback,
  parseGatewayArgs,
} from './cli-options.js'
export { dispatchMessage, META_PROTOCOL_VERSION } from './dispatch.js'
export { type GatewayControls, type RunningGateway, startGateway } from './gateway.js'
export {
  GATEWAY_CODES,
  type GatewayCode,
  type GatewayRpcError,
  gatewayRpcError,
} from './gateway-errors.js'
export { type HttpFront, type HttpFrontOptions, serveHttp } from './http-front.js'
export { type GatewayLog, gatewayLog } from './log.js'
export {
  type CallContext,
  type CallGuard,
  type GatewayResponse,
  MessagePipeline,
  SESSION_ERA_VERSIONS,
  STATELESS_VERSION,
  type ToolRefusalLike,
} from './pipeline.js'
export {
  type RpcErrorObject,
  type RpcNotification,
  type RpcReply,
  RpcSession,
} from './rpc-session.js'
export { type StdioFrontOptions, serveStdio } from './stdio-front.js'
export {
  type CatalogGuard,
  type CatalogPins,
  type CatalogTool,
  ToolCatalog,
} from './tool-catalog.js'
export {
  readHandshake,
  type Upstream,
  type UpstreamEvent,
  type UpstreamHandshake,
} from './upstream.js'
