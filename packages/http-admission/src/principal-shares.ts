import type { IncomingMessage } from 'node:http'
import type { InFlightBudget } from './budget.js'
import { admissionError } from './codes.js'

// One ledger per budget: every admission drawing on the same budget (whatever its route's
// options) sees the same per-principal counts, so a principal cannot dodge its share by
// spreading bodies over routes. A key is held only while it has bodies in flight, so the map
// never holds more entries than there are bodies being read.
// Shared by every loaded copy of the package (ESM and CJS), like the default budget itself.
const LEDGERS_KEY = Symbol.for('tollgate.http-admission.principalLedgers')
const shared = globalThis as {
  [LEDGERS_KEY]?: WeakMap<InFlightBudget, Map<string, PrincipalEntry>>
}
const LEDGERS = (shared[LEDGERS_KEY] ??= new WeakMap<InFlightBudget, Map<string, PrincipalEntry>>())

interface PrincipalEntry {
  bodies: number
  bytes: number
}

/** The per-principal limits of one admission, as a body admission's policy holds them. */
export interface PrincipalLimits {
  /** Most bodies of one principal read at the same time, or `false` for no cap. */
  readonly maxBodiesPerPrincipal: number | false
  /** Largest fraction (0 < share ≤ 1) of the budget's `maxBytes` one principal may hold, or `false`. */
  readonly principalShare: number | false
}

/**
 * One body's place in its principal's share of an {@link InFlightBudget}: counted as a
 * concurrent body from {@link openPrincipalShare} until {@link PrincipalShare.close}, and
 * holding the bytes it was last {@link PrincipalShare.commit}ted to.
 */
export interface PrincipalShare {
  /**
   * Throws `ERR_ADMISSION_PRINCIPAL_BUSY` (limit: the share in bytes, option `principalShare`)
   * when holding `total` bytes for this body would pass the principal's share.
   */
  check(total: number): void
  /** Records that this body now holds `total` bytes (after {@link check} and the budget agreed). */
  commit(total: number): void
  /** Gives back the body and its bytes; idempotent. */
  close(): void
}

/**
 * Counts a new body for `key` on `budget`, or throws `ERR_ADMISSION_PRINCIPAL_BUSY` (limit:
 * `maxBodiesPerPrincipal`, option `maxBodiesPerPrincipal`) when the principal already has that
 * many bodies in flight.
 */
export function openPrincipalShare(
  budget: InFlightBudget,
  key: string,
  limits: PrincipalLimits,
): PrincipalShare {
  let ledger = LEDGERS.get(budget)
  if (ledger === undefined) {
    ledger = new Map()
    LEDGERS.set(budget, ledger)
  }
  const existing = ledger.get(key)
  const max = limits.maxBodiesPerPrincipal
  if (max !== false && existing !== undefined && existing.bodies >= max) {
    throw admissionError('ERR_ADMISSION_PRINCIPAL_BUSY', {
      limit: max,
      option: 'maxBodiesPerPrincipal',
    })
  }
  const entry = existing ?? { bodies: 0, bytes: 0 }
  entry.bodies++
  ledger.set(key, entry)
  const map = ledger
  const shareBytes =
    limits.principalShare === false
      ? Number.POSITIVE_INFINITY
      : Math.floor(budget.maxBytes * limits.principalShare)
  let held = 0
  let open = true
  return {
    check(total) {
      if (total <= held) return
      if (entry.bytes - held + total > shareBytes) {
        throw admissionError('ERR_ADMISSION_PRINCIPAL_BUSY', {
          limit: shareBytes,
          option: 'principalShare',
        })
      }
    },
    commit(total) {
      if (total <= held) return
      entry.bytes += total - held
      held = total
    },
    close() {
      if (!open) return
      open = false
      entry.bytes -= held
      entry.bodies--
      if (entry.bodies === 0) map.delete(key)
    },
  }
}

/**
 * Bodies and bytes `key` holds on `budget` right now, as the per-principal shares count them
 * (`bodies` against `maxBodiesPerPrincipal`, `bytes` against `principalShare`): for metrics,
 * and for a test that waits until a set of requests is being admitted. A key with nothing in
 * flight reads `{ bodies: 0, bytes: 0 }`.
 */
export function principalUsage(
  budget: InFlightBudget,
  key: string,
): { readonly bodies: number; readonly bytes: number } {
  const entry = LEDGERS.get(budget)?.get(key)
  return { bodies: entry?.bodies ?? 0, bytes: entry?.bytes ?? 0 }
}

/**
 * Gives the key a request's body is counted under for per-principal shares: a credential or
 * tenant id, a client address, whatever the app trusts to tell callers apart. `undefined`
 * leaves the request outside any share (only the global budget applies). The node adapters
 * and the middleware pass the `IncomingMessage`, the web adapter the `Request`. Never put the
 * key in a response: it is only counted.
 */
export type PrincipalOf = (request: IncomingMessage | Request) => string | undefined

/**
 * The key `principal` gives `request`, checked: a string (of at most 1,024 characters, so a
 * key taken from a header cannot grow the ledger) or `undefined`.
 * @throws TypeError when the app's function returns anything else (a bug in the app).
 */
export function principalKeyOf(
  principal: PrincipalOf | undefined,
  request: IncomingMessage | Request,
): string | undefined {
  if (principal === undefined) return undefined
  const key = principal(request)
  if (key === undefined) return undefined
  if (typeof key !== 'string' || key.length > 1024) {
    throw new TypeError('principal must return a string of at most 1024 characters, or undefined')
  }
  return key
}
