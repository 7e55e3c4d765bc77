import type { IncomingMessage } from 'node:http'
import type { AdmissionError } from '@tollgate/json-budget'
import type { InFlightBudget } from './budget.js'
import { admissionError } from './codes.js'

// One ledger per budget: every admission drawing on the same budget (whatever its route's
// options) sees the same per-principal counts, so a principal cannot dodge its share by
// spreading bodies over routes. A key is held only while it has bodies in flight, so the map
// never holds more entries than there are bodies being read. Pools are counted in a ledger of
// their own, so a pool's name never meets a principal's key.
// Shared by every loaded copy of the package (ESM and CJS), like the default budget itself.
const LEDGERS_KEY = Symbol.for('tollgate.http-admission.principalLedgers')
const POOLS_KEY = Symbol.for('tollgate.http-admission.poolLedgers')
type Ledgers = WeakMap<InFlightBudget, Map<string, PrincipalEntry>>
const shared = globalThis as { [LEDGERS_KEY]?: Ledgers; [POOLS_KEY]?: Ledgers }
const LEDGERS = (shared[LEDGERS_KEY] ??= new WeakMap<InFlightBudget, Map<string, PrincipalEntry>>())
const POOLS = (shared[POOLS_KEY] ??= new WeakMap<InFlightBudget, Map<string, PrincipalEntry>>())

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
  /** Fraction (0 < share ≤ 1) of its pool's limits one principal in a pool holds. Default: 0.25. */
  readonly poolMemberShare?: number
}

/**
 * One body's place in its principal's share of an {@link InFlightBudget}: counted as a
 * concurrent body from {@link openPrincipalShare} until {@link PrincipalShare.close}, and
 * holding the bytes it was last {@link PrincipalShare.commit}ted to.
 */
export interface PrincipalShare {
  /**
   * Throws `ERR_ADMISSION_PRINCIPAL_BUSY` (limit: the share in bytes, option `principalShare`,
   * or `poolMemberShare` for a principal in a pool) when holding `total` bytes for this body
   * would pass the principal's share, or its pool's.
   */
  check(total: number): void
  /** Records that this body now holds `total` bytes (after {@link check} and the budget agreed). */
  commit(total: number): void
  /** Gives back the body and its bytes; idempotent. */
  close(): void
}

interface Counted {
  readonly entry: PrincipalEntry
  readonly maxBytes: number
  readonly option: 'principalShare' | 'poolMemberShare'
  give(): void
}

function ledgerOf(ledgers: Ledgers, budget: InFlightBudget): Map<string, PrincipalEntry> {
  let ledger = ledgers.get(budget)
  if (ledger === undefined) {
    ledger = new Map()
    ledgers.set(budget, ledger)
  }
  return ledger
}

/** Counts one more body for `key` in `ledger`, or throws when it already holds `maxBodies`. */
function countBody(
  ledger: Map<string, PrincipalEntry>,
  key: string,
  maxBodies: number | false,
  option: 'maxBodiesPerPrincipal' | 'poolMemberShare',
): { entry: PrincipalEntry; give(): void } {
  const existing = ledger.get(key)
  if (maxBodies !== false && existing !== undefined && existing.bodies >= maxBodies) {
    throw admissionError('ERR_ADMISSION_PRINCIPAL_BUSY', { limit: maxBodies, option })
  }
  const entry = existing ?? { bodies: 0, bytes: 0 }
  entry.bodies++
  ledger.set(key, entry)
  return {
    entry,
    give() {
      entry.bodies--
      if (entry.bodies === 0) ledger.delete(key)
    },
  }
}

/**
 * Counts a new body for `key` on `budget`, or throws `ERR_ADMISSION_PRINCIPAL_BUSY` (limit:
 * `maxBodiesPerPrincipal`, option `maxBodiesPerPrincipal`) when the principal already has that
 * many bodies in flight. With a `pool` (every anonymous caller, each keyed by its address), the
 * pool as a whole is held to `maxBodiesPerPrincipal` and `principalShare`, and `key` to
 * `poolMemberShare` of each (at least one body; option `poolMemberShare`), so the pool never
 * takes more than one principal's share and one member never the whole pool.
 */
export function openPrincipalShare(
  budget: InFlightBudget,
  key: string,
  limits: PrincipalLimits,
  pool?: string,
): PrincipalShare {
  const maxBodies = limits.maxBodiesPerPrincipal
  const shareBytes =
    limits.principalShare === false
      ? Number.POSITIVE_INFINITY
      : Math.floor(budget.maxBytes * limits.principalShare)
  const counted: Counted[] = []
  try {
    if (pool === undefined) {
      const own = countBody(ledgerOf(LEDGERS, budget), key, maxBodies, 'maxBodiesPerPrincipal')
      counted.push({ ...own, maxBytes: shareBytes, option: 'principalShare' })
    } else {
      const member = limits.poolMemberShare ?? 0.25
      const memberBodies = maxBodies === false ? false : Math.max(1, Math.floor(maxBodies * member))
      const own = countBody(ledgerOf(LEDGERS, budget), key, memberBodies, 'poolMemberShare')
      counted.push({ ...own, maxBytes: Math.floor(shareBytes * member), option: 'poolMemberShare' })
      const whole = countBody(ledgerOf(POOLS, budget), pool, maxBodies, 'maxBodiesPerPrincipal')
      counted.push({ ...whole, maxBytes: shareBytes, option: 'principalShare' })
    }
  } catch (error) {
    for (const c of counted) c.give()
    throw error
  }
  let held = 0
  let open = true
  return {
    check(total) {
      if (total <= held) return
      for (const c of counted) {
        if (c.entry.bytes - held + total > c.maxBytes) {
          throw admissionError('ERR_ADMISSION_PRINCIPAL_BUSY', {
            limit: c.maxBytes,
            option: c.option,
          })
        }
      }
    },
    commit(total) {
      if (total <= held) return
      for (const c of counted) c.entry.bytes += total - held
      held = total
    },
    close() {
      if (!open) return
      open = false
      for (const c of counted) {
        c.entry.bytes -= held
        c.give()
      }
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

/**
 * A fleet-wide count of concurrent bodies per principal, held across every instance that
 * shares it: a `createConcurrencyLimit()` of `@tollgate/fleet-limits` on a Redis store fits
 * (declared here, structurally, so this package depends on no limit store). `acquire` is asked
 * before a body byte is read, with the call's `principal` and `pool`; the lease is released
 * when the body ends or fails.
 */
export interface FleetBodies {
  acquire(key: string, pool?: string): Promise<FleetBodyAnswer>
}

/** What {@link FleetBodies.acquire} answers: a lease to release, or a refusal with its limit. */
export type FleetBodyAnswer =
  | { readonly ok: true; release(): unknown }
  | { readonly ok: false; readonly code: string; readonly limit: number }

/**
 * Takes a fleet-wide place for one body of `key` (in `pool`), or answers the refusal to send:
 * `ERR_ADMISSION_PRINCIPAL_BUSY` (503, the fleet's `limit`, option `fleetBodies`) when the
 * principal (or its pool) holds its bodies across the fleet, `ERR_ADMISSION_BUSY` (503, option
 * `fleetBodies`) when the fleet's store cannot answer and its rule is to refuse. A fleet object
 * that rejects counts as unavailable: the caller still gets a 503, never an unlimited pass.
 */
export async function holdFleetBody(
  fleet: FleetBodies,
  key: string,
  pool: string | undefined,
): Promise<{ readonly release: () => void } | AdmissionError> {
  let answer: FleetBodyAnswer
  try {
    answer = await fleet.acquire(key, pool)
  } catch {
    return admissionError('ERR_ADMISSION_BUSY', { limit: 0, option: 'fleetBodies' })
  }
  if (answer.ok) {
    let released = false
    return {
      release() {
        if (released) return
        released = true
        try {
          Promise.resolve(answer.release()).catch(() => {})
        } catch {
          // a lease that cannot be released expires in its store
        }
      },
    }
  }
  const limit = Number.isSafeInteger(answer.limit) && answer.limit >= 0 ? answer.limit : 0
  // Any refusal other than the caller's own count (the store down, under 'closed') is the
  // fleet being busy, not this principal.
  const code =
    answer.code === 'ERR_LIMIT_CONCURRENT' ? 'ERR_ADMISSION_PRINCIPAL_BUSY' : 'ERR_ADMISSION_BUSY'
  return admissionError(code, { limit, option: 'fleetBodies' })
}
