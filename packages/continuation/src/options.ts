// Options of the continuation service, validated once at construction.

import {
  checkOptions,
  createResolvedBrand,
  functionOption,
  integerOption,
  type OptionValidators,
} from '@tollgate/json-budget'
import type { AuditSink } from './audit.js'
import { createMemoryStore } from './memory-store.js'
import type { ContinuationStore } from './store.js'

/** Options of `createContinuations()`. */
export interface ContinuationsOptions {
  /** Where entries live: an object with `get`, `set` and `delete`. Default: a new `createMemoryStore()` with its defaults. */
  readonly store?: ContinuationStore
  /** Receives every mint, serve and refusal with its precise reason: an object with `record`. Default: none. */
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

/** {@link ContinuationsOptions} after {@link resolveContinuationsOptions}: every field set, frozen. */
export interface ResolvedContinuationsOptions {
  readonly store: ContinuationStore
  readonly audit: AuditSink | undefined
  readonly thresholdBytes: number
  readonly ttlMs: number
  readonly maxPayloadBytes: number
  readonly now: () => number
}

/** The defaults of `createContinuations()` that are values (frozen). */
export const CONTINUATIONS_DEFAULTS = Object.freeze({
  thresholdBytes: 64 * 1024,
  ttlMs: 10 * 60 * 1000,
  maxPayloadBytes: 64 * 1024 * 1024,
})

// An object is taken as a store or a sink by the methods it has, so a class instance or a
// Redis-backed store qualifies as well as a plain object.
function methodsOption(methods: readonly string[]): (value: unknown, name: string) => void {
  return (value, name) => {
    for (const method of methods) {
      if (typeof (value as Record<string, unknown> | null)?.[method] !== 'function') {
        throw new TypeError(`${name}.${method} must be a function`)
      }
    }
  }
}

const VALIDATORS: OptionValidators<ContinuationsOptions> = {
  store: methodsOption(['get', 'set', 'delete']),
  audit: methodsOption(['record']),
  thresholdBytes: integerOption(),
  ttlMs: integerOption(),
  maxPayloadBytes: integerOption(),
  now: functionOption,
}

const brand = createResolvedBrand<ResolvedContinuationsOptions>()

/**
 * Validates once, fills defaults and freezes. An object this function returned is returned as
 * it is. Throws a `TypeError` naming the option on an unknown option, a limit that is not a
 * positive safe integer, a store without `get`/`set`/`delete`, an audit sink without `record`,
 * or a non-function clock. Without `store`, each call creates a new memory store.
 */
export function resolveContinuationsOptions(
  options: ContinuationsOptions | ResolvedContinuationsOptions = {},
): ResolvedContinuationsOptions {
  if (brand.has(options)) return options
  checkOptions(options, VALIDATORS, 'continuations')
  const d = CONTINUATIONS_DEFAULTS
  return brand.mark(
    Object.freeze({
      store: options.store ?? createMemoryStore(),
      audit: options.audit,
      thresholdBytes: options.thresholdBytes ?? d.thresholdBytes,
      ttlMs: options.ttlMs ?? d.ttlMs,
      maxPayloadBytes: options.maxPayloadBytes ?? d.maxPayloadBytes,
      now: options.now ?? Date.now,
    }),
  )
}
