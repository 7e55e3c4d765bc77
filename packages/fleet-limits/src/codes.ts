import { defineRefusalCodes } from '@tollgate/json-budget'

// The three answers a shared limit refuses with. They are registered with json-budget's
// vocabulary so `refusalCodeSpec(code)` gives any host the status and option to render.

/** The refusal codes of `@tollgate/fleet-limits`, with their HTTP status and option. */
export const SHARED_LIMIT_CODES = defineRefusalCodes('@tollgate/fleet-limits', {
  ERR_LIMIT_CONCURRENT: {
    status: 429,
    title: 'Too Many Requests',
    option: 'limit',
    message: 'too many concurrent requests for this caller',
  },
  ERR_LIMIT_RATE: {
    status: 429,
    title: 'Too Many Requests',
    option: 'perMinute',
    message: 'request rate exceeded for this caller',
  },
  ERR_LIMIT_UNAVAILABLE: {
    status: 503,
    title: 'Service Unavailable',
    option: 'onUnavailable',
    message: 'the shared limit store is unavailable',
  },
})

/** A code a shared limit refuses with. */
export type LimitRefusalCode = keyof typeof SHARED_LIMIT_CODES

/**
 * A refusal: small, stable, and the same size whatever the key was (it never holds the key,
 * the pool or the name of the limit). `limit` is the figure that was applied (a pool member's
 * share, or the reduced local limit during an outage); `option` names the option to raise.
 */
export interface LimitRefusal {
  readonly ok: false
  readonly code: LimitRefusalCode
  /** The limit applied: leases held at once, or tokens per minute. */
  readonly limit: number
  /** 429 for the caller's own limit, 503 when the store is unavailable and the rule is `'closed'`. */
  readonly status: 429 | 503
  /** Whole seconds before a retry can succeed, at least 1; for a `Retry-After` header. */
  readonly retryAfterSeconds: number
  /** The option that would admit more: `limit`, `poolMemberShare`, `perMinute`, `burst`, `onUnavailable`. */
  readonly option: string
}

/** Builds a frozen {@link LimitRefusal}; `retryAfterSeconds` is rounded up and at least 1. */
export function limitRefusal(
  code: LimitRefusalCode,
  limit: number,
  option: string,
  retryAfterSeconds = 1,
): LimitRefusal {
  const seconds = Number.isFinite(retryAfterSeconds) ? Math.ceil(retryAfterSeconds) : 60
  return Object.freeze({
    ok: false,
    code,
    limit,
    status: code === 'ERR_LIMIT_UNAVAILABLE' ? 503 : 429,
    retryAfterSeconds: Math.max(1, seconds),
    option,
  })
}

/** True for a {@link LimitRefusal} (by shape, so it holds across loaded copies of the package). */
export function isLimitRefusal(value: unknown): value is LimitRefusal {
  const v = value as Partial<LimitRefusal> | null
  return (
    typeof v === 'object' &&
    v !== null &&
    v.ok === false &&
    typeof v.code === 'string' &&
    Object.hasOwn(SHARED_LIMIT_CODES, v.code)
  )
}
