export { type Access, access, type Principal, peerPrefix } from './access.js'
export { isLoopback } from './address-checks.js'
export {
  AUDIT_OPTIONS,
  type Audit,
  type AuditOptions,
  type AuditValue,
  auditLog,
} from './audit.js'
export {
  BridgedCall,
  type BridgedRun,
  type BridgeRound,
  MAX_INPUT_REQUESTS,
} from './bridged-call.js'
export { type ChildUpstreamOptions, childUpstream } from './child-upstream.js'
export {
  GATEWAY_CLI_OPTIONS,
  type GatewayCliOptionKind,
  type GatewayCliOptionSpec,
} from './cli-option-table.js'
export { type GatewayCliOptions, parseGatewayArgs } from './cli-options.js'
export { GatewayUsageError, gatewayHelp } from './cli-usage.js'
export {
  defaultGatewayConfig,
  type GatewayConfig,
  GatewayConfigError,
  type GatewayConfigIssue,
  type GatewayCredential,
  type GatewayLimits,
  type GatewayRequestStateOptions,
  type GatewayRoute,
  type GatewayToolOptions,
  hashBearerToken,
  loadGatewayConfig,
  parseGatewayConfig,
} from './config.js'
export { dispatchMessage, META_PROTOCOL_VERSION, requestVersion } from './dispatch.js'
export {
  type GatewayControls,
  gatewayControls,
  type RunningGateway,
  startGateway,
} from './gateway.js'
export {
  GATEWAY_CODES,
  type GatewayCode,
  type GatewayRpcError,
  gatewayRpcError,
} from './gateway-errors.js'
export { type HttpFront, type HttpFrontOptions, serveHttp } from './http-front.js'
export {
  HTTP_SESSIONS_OPTIONS,
  type HttpSessions,
  type HttpSessionsOptions,
  httpSessions,
  type SessionRefusal,
  type SessionWhere,
} from './http-sessions.js'
export { type HttpUpstreamOptions, httpUpstream } from './http-upstream.js'
export { type BridgeOutcome, type BridgeReport, InputBridge } from './input-bridge.js'
export { admitInputResponse, INPUT_REQUEST_METHODS } from './input-responses.js'
export {
  LIMITER_DEFAULTS,
  LIMITER_OPTIONS,
  type Limiter,
  type LimiterLease,
  type LimiterOptions,
  type LimiterRefusal,
  limiter,
} from './limiter.js'
export { type GatewayLog, gatewayLog } from './log.js'
export {
  GATEWAY_METRICS_OPTIONS,
  type GatewayMetrics,
  type GatewayMetricsOptions,
  gatewayMetrics,
} from './metrics.js'
export {
  PARKED_CALL_OPTIONS,
  type Parked,
  type ParkedCallOptions,
  type ParkedCalls,
  parkedCalls,
} from './parked-calls.js'
export {
  canonicalJson,
  type DriftReason,
  judgeAgainst,
  type LocalPinStore,
  PINS_FILE_ERROR,
  PINS_STORE_ERROR,
  type PinJudgment,
  type PinStore,
  PinsFileError,
  pinDigests,
  pinStore,
  toolDigest,
} from './pins.js'
export {
  approvePins,
  type PinsApproveArgs,
  parsePinsApproveArgs,
} from './pins-command.js'
export {
  GATEWAY_PINS_KEY_PREFIX,
  type RedisPinStoreOptions,
  redisPinStore,
  redisPinsName,
} from './pins-redis.js'
export {
  type CallContext,
  type CallerSession,
  type GatewayResponse,
  LOG_LEVELS,
  type LogLevel,
  MessagePipeline,
  SESSION_ERA_VERSIONS,
  STATELESS_VERSION,
} from './pipeline.js'
export {
  type OpenedState,
  REQUEST_STATE_METHODS,
  type RequestStateCall,
  type RequestStateRefusalCode,
  type RequestStateSeal,
  requestStateSeal,
  type SealedState,
} from './request-state.js'
export {
  MAX_HANDLE_BYTES_CEILING,
  REQUEST_STATE_OPTIONS,
  type RequestStateOptions,
} from './request-state-options.js'
export {
  type RpcErrorObject,
  type RpcNotification,
  type RpcReply,
  RpcSession,
} from './rpc-session.js'
export {
  generatedSealingKeys,
  readSealingKeys,
  type SealingKeyEntry,
  type SealingKeySet,
} from './sealing-keys.js'
export {
  capabilityRefusal,
  SERVER_REQUEST_RELAY_DEFAULTS,
  ServerRequestRelay,
  type ServerRequestRelayOptions,
} from './server-requests.js'
export { type StdioFrontOptions, serveStdio } from './stdio-front.js'
export { type CacheHints, readUpstreamTools, ToolCatalog } from './tool-catalog.js'
export {
  type QuarantinedTool,
  type QuarantineReason,
  type ToolGuard,
  type ToolGuardLoad,
  type ToolGuardOptions,
  type ToolRefusal,
  toolGuard,
  type UpstreamTool,
} from './tool-guard.js'
export {
  DEFAULT_ALLOWED_EXTRA_KEYS,
  TOOL_GUARD_DEFAULTS,
  TOOL_GUARD_OPTIONS,
} from './tool-guard-options.js'
export { MAX_REFUSAL_TEXT, UNKNOWN_TOOL_TEXT } from './tool-refusal.js'
export {
  GATEWAY_CLIENT_CAPABILITIES,
  META_SERVER_INFO,
  readHandshake,
  type ServerRequest,
  type Upstream,
  type UpstreamCall,
  type UpstreamEvent,
  type UpstreamHandshake,
} from './upstream.js'
export { upstreamIdentity } from './upstream-identity.js'
