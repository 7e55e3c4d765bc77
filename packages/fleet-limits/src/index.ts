export {
  isLimitRefusal,
  type LimitRefusal,
  type LimitRefusalCode,
  limitRefusal,
  SHARED_LIMIT_CODES,
} from './codes.js'
export {
  CONCURRENCY_LIMIT_OPTIONS,
  type ConcurrencyLimit,
  type ConcurrencyLimitOptions,
  type ConcurrencyLimitPolicy,
  createConcurrencyLimit,
  type LimitLease,
} from './concurrency.js'
export { type OnUnavailable, OUTAGE_PROBE_MS, type OutageEvent } from './failure-rule.js'
export { limitKey } from './key.js'
export { MAX_KEY_LENGTH } from './limit-options.js'
export { memoryLimitStore } from './memory-store.js'
export {
  createRateLimit,
  type LimitGrant,
  RATE_LIMIT_OPTIONS,
  type RateLimit,
  type RateLimitOptions,
  type RateLimitPolicy,
} from './rate.js'
export {
  type BucketSpec,
  type LeaseAnswer,
  type LeaseRef,
  type LeaseRequest,
  type LimitScope,
  type LimitStore,
  LimitStoreUnavailableError,
  type TakeAnswer,
  type TakeRequest,
} from './store.js'
