// Options of the continuation service, declared once: the input type, the frozen defaults, the
// validation and the README's options table all come from `CONTINUATIONS_OPTIONS`.

import {
  defineOptions,
  integerOption,
  type OptionsOf,
  option,
  type ResolvedOf,
} from '@tollgate/json-budget'
import type { AuditSink } from './audit.js'
import { createMemoryStore } from './memory-store.js'
import { CLOCK_ROW, type ContinuationStore } from './store.js'

/**
 * A validator for an object taken by the methods it has, so a class instance or a
 * Redis-backed store qualifies as well as a plain object.
 */
export function methodsOption(methods: readonly string[]): (value: unknown, name: string) => void {
  return (value, name) => {
    for (const method of methods) {
      if (typeof (value as Record<string, unknown> | null)?.[method] !== 'function') {
        throw new TypeError(`${name}.${method} must be a function`)
      }
    }
  }
}

/**
 * The options of `createContinuations()`, declared once. `store` left unset is a new
 * `createMemoryStore()` with its defaults, one per service.
 */
export const CONTINUATIONS_OPTIONS = defineOptions('continuations', {
  store: option<ContinuationStore | undefined>({
    default: undefined,
    check: methodsOption(['get', 'set', 'delete']),
    shown: 'a new `createMemoryStore()`',
    doc: 'where entries live: an object with `get`, `set` and `delete`',
  }),
  audit: option<AuditSink | undefined>({
    default: undefined,
    check: methodsOption(['record']),
    doc: 'receives every mint, serve and refusal with its precise reason (an object with `record`)',
  }),
  thresholdBytes: option({
    default: 64 * 1024,
    check: integerOption(),
    doc: 'a result of more UTF-8 bytes than this is heavy (`isHeavy()`); exactly 64 KiB is not',
  }),
  ttlMs: option({
    default: 10 * 60 * 1000,
    check: integerOption(),
    doc: 'lifetime of a continuation, in ms (10 minutes)',
  }),
  maxPayloadBytes: option({
    default: 64 * 1024 * 1024,
    check: integerOption(),
    doc: 'largest payload `mint()` accepts, in UTF-8 bytes',
  }),
  now: CLOCK_ROW,
})

/** Options of `createContinuations()` (see {@link CONTINUATIONS_OPTIONS}); every field optional. */
export type ContinuationsOptions = OptionsOf<typeof CONTINUATIONS_OPTIONS.rows>

/** What the continuation service holds: every option set, frozen, `store` always a store. */
export interface ResolvedContinuationsOptions
  extends Omit<ResolvedOf<typeof CONTINUATIONS_OPTIONS.rows>, 'store'> {
  readonly store: ContinuationStore
}

/**
 * Validates once, fills the defaults (a new memory store when `store` is unset) and freezes.
 * @throws TypeError naming the option: an unknown option, a limit that is not a positive safe
 *   integer, a store without `get`/`set`/`delete`, an audit sink without `record`, a clock that
 *   is not a function.
 */
export function resolveContinuationsOptions(options: unknown): ResolvedContinuationsOptions {
  const resolved = CONTINUATIONS_OPTIONS.resolve(options)
  if (resolved.store !== undefined) return resolved as ResolvedContinuationsOptions
  return Object.freeze({ ...resolved, store: createMemoryStore() })
}
