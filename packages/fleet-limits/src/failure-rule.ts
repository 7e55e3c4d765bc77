// What a limit does while its store cannot answer. Never "unlimited": either refuse (503,
// `ERR_LIMIT_UNAVAILABLE`) or decide on a memory store of this process at the limit divided by
// the number of instances, so the fleet together stays near the shared figure. The outage is
// reported once when it starts and once when it ends, not per call; while it lasts the shared
// store is asked again at most once a second (a hung Redis would otherwise cost every call its
// command timeout), and the first answer ends the outage: recovery needs no restart.

import { memoryLimitStore } from './memory-store.js'
import type { LimitStore } from './store.js'

/**
 * The failure rule of one limit: `'closed'` refuses with `ERR_LIMIT_UNAVAILABLE` (503) while
 * the store is unavailable; `{ local: { instances: N } }` decides in this process's memory at
 * `max(1, floor(limit ÷ N))` until the store answers again.
 */
export type OnUnavailable = 'closed' | { readonly local: { readonly instances: number } }

/** Reported by `onOutage`: the limit's name, and whether its store's outage started or ended. */
export interface OutageEvent {
  readonly name: string
  readonly state: 'started' | 'ended'
}

/** How long an outage lets calls skip the shared store before it is asked again, in ms. */
export const OUTAGE_PROBE_MS = 1000

/** Checks an {@link OnUnavailable} value. @throws TypeError naming the option. */
export function checkOnUnavailable(value: unknown, name: string): void {
  if (value === 'closed') return
  const instances = (value as { local?: { instances?: unknown } } | null)?.local?.instances
  if (
    typeof value !== 'object' ||
    value === null ||
    Object.keys(value).length !== 1 ||
    !Number.isSafeInteger(instances) ||
    (instances as number) < 1 ||
    (instances as number) > 10_000
  ) {
    throw new TypeError(
      `${name} must be 'closed' or { local: { instances: N } } with 1 ≤ N ≤ 10000`,
    )
  }
}

/** Copies and freezes an {@link OnUnavailable} value that passed its check. */
export function freezeOnUnavailable(value: OnUnavailable): OnUnavailable {
  return value === 'closed' ? value : Object.freeze({ local: Object.freeze({ ...value.local }) })
}

/** `max(1, floor(limit ÷ instances))`: a limit's local share while the shared store is down. */
export function localShare(limit: number, instances: number): number {
  return Math.max(1, Math.floor(limit / instances))
}

/** Which store answered a decision, or that none could (`closed`). */
export type Route =
  | { readonly via: 'shared' | 'local'; readonly store: LimitStore }
  | { readonly via: 'closed' }

/**
 * The failure rule of one limit at run time: runs a decision on the shared store and, when it
 * is unavailable, on the fallback the rule names. Internal to the limits.
 */
export interface FailureGuard {
  decide<T>(
    run: (store: LimitStore, local: boolean) => Promise<T>,
  ): Promise<{ route: Route; value?: T }>
}

/** Builds the run-time guard of one limit (see {@link FailureGuard}). */
export function failureGuard(
  shared: LimitStore,
  rule: OnUnavailable,
  name: string,
  onOutage: (event: OutageEvent) => void,
): FailureGuard {
  const local = rule === 'closed' ? undefined : memoryLimitStore()
  let down = false
  let probeAt = 0
  const report = (state: OutageEvent['state']) => {
    try {
      onOutage(Object.freeze({ name, state }))
    } catch {
      // a reporting callback never breaks a decision
    }
  }
  const fallback = (): Route =>
    local === undefined ? { via: 'closed' } : { via: 'local', store: local }
  return {
    async decide(run) {
      if (down && Date.now() < probeAt) {
        const route = fallback()
        return route.via === 'local' ? { route, value: await run(route.store, true) } : { route }
      }
      try {
        const value = await run(shared, false)
        if (down) {
          down = false
          report('ended')
        }
        return { route: { via: 'shared', store: shared }, value }
      } catch {
        probeAt = Date.now() + OUTAGE_PROBE_MS
        if (!down) {
          down = true
          report('started')
        }
        const route = fallback()
        return route.via === 'local' ? { route, value: await run(route.store, true) } : { route }
      }
    },
  }
}
