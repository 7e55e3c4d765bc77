// Options of the continuation service, validated once at construction.

import type { AuditSink } from './audit.js'
import { createMemoryStore } from './memory-store.js'
import { assertPositiveInteger, type ContinuationStore } from './store.js'

/** Options of `createContinuations()`. */
export interface ContinuationsOptions {
  /** Where entries live. Default: a new `createMemoryStore()` with its defaults. */
  readonly store?: ContinuationStore
  /** Receives every mint, serve and refusal with its precise reason. Default: none. */
  readonly audit?: AuditSink
  /**
   * A result larger than this many UTF-8 bytes is heavy (`isHeavy()`), and only heavy results
   * are worth a token. Default: 65,536 (64 KiB); exactly 64 KiB is not heavy.
   */
  readonly thresholdBytes?: number
  /** Lifetime of a continuation, in milliseconds. Default: 600,000 (10 minutes). */
  readonly ttlMs?: number
  /** Largest payload `mint()` accepts, in UTF-8 bytes. Default: 67,108,864 (64 MiB). */
  readonly maxPayloadBytes?: number
  /** Clock in milliseconds since the epoch, for tests. Default: `Date.now`. */
  readonly now?: () => number
}

/** The defaults of `createContinuations()` (frozen). */
export const CONTINUATION_DEFAULTS = Object.freeze({
  thresholdBytes: 64 * 1024,
  ttlMs: 10 * 60 * 1000,
  maxPayloadBytes: 64 * 1024 * 1024,
})

/** Resolved, frozen options. */
export interface ResolvedContinuationsOptions {
  readonly store: ContinuationStore
  readonly audit: AuditSink | undefined
  readonly thresholdBytes: number
  readonly ttlMs: number
  readonly maxPayloadBytes: number
  readonly now: () => number
}

/**
 * Fills defaults, validates and freezes. Throws a `TypeError` on a limit that is not a positive
 * safe integer, a store without `get`/`set`/`delete`, an audit sink without `record`, or a
 * non-function clock.
 */
export function resolveContinuationsOptions(
  options: ContinuationsOptions = {},
): ResolvedContinuationsOptions {
  if (options === null || typeof options !== 'object')
    throw new TypeError('options must be an object')
  const store = options.store ?? createMemoryStore()
  for (const method of ['get', 'set', 'delete'] as const) {
    if (typeof store?.[method] !== 'function')
      throw new TypeError(`store.${method} must be a function`)
  }
  const audit = options.audit
  if (audit !== undefined && typeof audit?.record !== 'function') {
    throw new TypeError('audit.record must be a function')
  }
  const now = options.now ?? Date.now
  if (typeof now !== 'function') throw new TypeError('now must be a function')
  return Object.freeze({
    store,
    audit,
    thresholdBytes: assertPositiveInteger(
      'thresholdBytes',
      options.thresholdBytes ?? CONTINUATION_DEFAULTS.thresholdBytes,
    ),
    ttlMs: assertPositiveInteger('ttlMs', options.ttlMs ?? CONTINUATION_DEFAULTS.ttlMs),
    maxPayloadBytes: assertPositiveInteger(
      'maxPayloadBytes',
      options.maxPayloadBytes ?? CONTINUATION_DEFAULTS.maxPayloadBytes,
    ),
    now,
  })
}
