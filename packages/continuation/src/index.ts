export type { AuditSink, ContinuationAuditEvent, PinoLikeLogger } from './audit.js'
export { pinoAuditSink } from './audit.js'
export type {
  Continuations,
  MintEntry,
  MintFailure,
  MintResult,
  RedeemContext,
  RedeemResult,
} from './continuations.js'
export { createContinuations } from './continuations.js'
export type { MemoryStoreOptions, ResolvedMemoryStoreOptions } from './memory-store.js'
export { createMemoryStore, MEMORY_STORE_OPTIONS } from './memory-store.js'
export {
  composeToolName,
  isNameSegment,
  isToolName,
  MAX_SEGMENT_LENGTH,
  MAX_SEGMENTS,
} from './names.js'
export type { ContinuationsOptions, ResolvedContinuationsOptions } from './options.js'
export { CONTINUATIONS_OPTIONS } from './options.js'
export type { ContinuationRefusalReason, MintFailureCode } from './outcome.js'
export { CONTINUATION_REFUSAL_REASONS, CONTINUATION_REFUSED } from './outcome.js'
export type { NamePattern } from './patterns.js'
export { compilePattern } from './patterns.js'
export type { Tier, ToolDescriptor, ToolRegistry } from './registry.js'
export { createToolRegistry, TIERS, tierRank } from './registry.js'
export type { ResolvedTarget, ScopedRequest, ScopedResolution } from './resolve.js'
export { isResolvedTarget, resolveScoped, TOOL_NOT_FOUND } from './resolve.js'
export type {
  Permissions,
  RouteView,
  RouteViewOptions,
  SurfaceDimension,
} from './route-view.js'
export {
  authorizeOnRoute,
  createRouteView,
  holdsAll,
  isRouteView,
  ROUTE_VIEW_OPTIONS,
} from './route-view.js'
export type { SealedKind } from './sealed-envelope.js'
export type {
  OpenContext,
  OpenResult,
  SealedHandleRevocation,
  SealedHandles,
  SealedHandlesOptions,
  SealInput,
  SealResult,
} from './sealed-handles.js'
export { SEALED_HANDLES_OPTIONS, sealedHandles } from './sealed-handles.js'
export type { SealingKey } from './sealed-keys.js'
export { MAX_SEALING_KEYS, MIN_SECRET_BYTES } from './sealed-keys.js'
export type { HandleCall, OpenedRequest } from './sealed-messages.js'
export {
  openRequestHandles,
  SEALED_HANDLE_ERROR,
  sealResponseHandles,
  TASK_METHODS,
} from './sealed-messages.js'
export type { SealedHandleRefusalReason, SealFailureCode } from './sealed-outcome.js'
export { SEALED_HANDLE_REFUSAL_REASONS, SEALED_HANDLE_REFUSED } from './sealed-outcome.js'
export type { ContinuationStore, ContinuationStoreErrorCode } from './store.js'
export { ContinuationStoreError, isContinuationStoreError } from './store.js'
export { createToken, hashToken, isTokenShape, TOKEN_LENGTH } from './token.js'
