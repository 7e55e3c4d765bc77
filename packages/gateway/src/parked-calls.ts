// The calls parked in this gateway instance while their 2026-07-28 caller answers the
// upstream's requests (see `BridgedCall`). A parked call holds an upstream request open, so
// the table is bounded in all and per principal (one caller cannot hold every slot of the
// upstream by never answering), and each parked call is cancelled upstream once its caller has
// let `ttlMs` pass without retrying.
import { randomBytes } from 'node:crypto'
import { defineOptions, integerOption, type OptionsOf, option } from '@tollgate/json-budget'
import type { BridgedCall } from './bridged-call.js'

/** The options of {@link parkedCalls}, declared once. */
export const PARKED_CALL_OPTIONS = defineOptions('parkedCalls', {
  maxCalls: option({
    default: 16,
    check: integerOption(true),
    ceiling: 100_000,
    doc: 'most calls parked at once, in all; `0` turns the bridge off (a 2025-era upstream asking a 2026-07-28 caller gets `-32601`, as a stateless client answers)',
  }),
  maxPerPrincipal: option({
    default: 4,
    check: integerOption(),
    ceiling: 100_000,
    doc: 'most calls parked at once for one principal; one more is refused `ERR_RELAY_LIMIT` and cancelled upstream',
  }),
  ttlMs: option({
    default: 60_000,
    check: integerOption(),
    ceiling: 86_400_000,
    shown: '60000 (1 minute)',
    doc: 'how long a parked call waits for its caller’s retry, in milliseconds; then it is cancelled upstream and its `requestState` is refused `ERR_REQUEST_STATE_CALL_GONE`',
  }),
})

/** Options of {@link parkedCalls} (see {@link PARKED_CALL_OPTIONS}). */
export type ParkedCallOptions = OptionsOf<typeof PARKED_CALL_OPTIONS.rows>

/** The result of {@link ParkedCalls.park}. */
export type Parked =
  | { readonly ok: true; readonly id: string }
  | { readonly ok: false; readonly code: 'ERR_RELAY_LIMIT'; readonly limit: number }

/** The parked-calls table. Create with {@link parkedCalls}. */
export interface ParkedCalls {
  /** The resolved options (frozen). */
  readonly options: Readonly<{ maxCalls: number; maxPerPrincipal: number; ttlMs: number }>
  /** Calls parked now. */
  readonly size: number
  /**
   * Parks `call` for `principal` under a new random id; past `ttlMs` it leaves the table, is
   * cancelled, and `expired` is called. Refused `ERR_RELAY_LIMIT` (with the limit hit) when
   * `maxCalls` calls, or `maxPerPrincipal` of this principal's, are parked.
   */
  park(principal: string, call: BridgedCall, expired?: () => void): Parked
  /** The call parked under `id` for `principal`, left in the table; `undefined` when none is. */
  peek(id: string, principal: string): BridgedCall | undefined
  /** Takes the call parked under `id` for `principal` out of the table (its TTL stops). */
  take(id: string, principal: string): BridgedCall | undefined
  /** Cancels every parked call (the gateway is stopping). */
  clear(): void
}

interface Entry {
  readonly call: BridgedCall
  readonly principal: string
  readonly timer: NodeJS.Timeout
}

/**
 * Builds the parked-calls table.
 * @throws TypeError at construction on an unknown option or a value that is not a safe
 *   integer in range (`maxCalls` may be 0; the others are positive).
 */
export function parkedCalls(options: ParkedCallOptions = {}): ParkedCalls {
  const resolved = PARKED_CALL_OPTIONS.resolve(options)
  const entries = new Map<string, Entry>()
  const perPrincipal = new Map<string, number>()

  const remove = (id: string): Entry | undefined => {
    const entry = entries.get(id)
    if (entry === undefined) return undefined
    entries.delete(id)
    clearTimeout(entry.timer)
    const left = (perPrincipal.get(entry.principal) ?? 1) - 1
    if (left === 0) perPrincipal.delete(entry.principal)
    else perPrincipal.set(entry.principal, left)
    return entry
  }

  return Object.freeze({
    options: resolved,
    get size() {
      return entries.size
    },
    park(principal: string, call: BridgedCall, expired?: () => void): Parked {
      if (entries.size >= resolved.maxCalls) {
        return { ok: false, code: 'ERR_RELAY_LIMIT', limit: resolved.maxCalls }
      }
      const held = perPrincipal.get(principal) ?? 0
      if (held >= resolved.maxPerPrincipal) {
        return { ok: false, code: 'ERR_RELAY_LIMIT', limit: resolved.maxPerPrincipal }
      }
      const id = randomBytes(16).toString('base64url')
      const timer = setTimeout(() => {
        if (remove(id) === undefined) return
        call.cancel()
        expired?.()
      }, resolved.ttlMs)
      timer.unref()
      entries.set(id, { call, principal, timer })
      perPrincipal.set(principal, held + 1)
      return { ok: true, id }
    },
    peek(id: string, principal: string): BridgedCall | undefined {
      const entry = entries.get(id)
      return entry?.principal === principal ? entry.call : undefined
    },
    take(id: string, principal: string): BridgedCall | undefined {
      if (entries.get(id)?.principal !== principal) return undefined
      return remove(id)?.call
    },
    clear(): void {
      for (const id of [...entries.keys()]) remove(id)?.call.cancel()
    },
  })
}
