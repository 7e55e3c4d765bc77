// The options every shared limit takes, declared once and spread into each limit's table.

import { functionOption, option } from '@tollgate/json-budget'
import {
  checkOnUnavailable,
  freezeOnUnavailable,
  type OnUnavailable,
  type OutageEvent,
} from './failure-rule.js'
import type { LimitStore } from './store.js'

const NAME = /^[A-Za-z0-9_.-]{1,64}$/
/** Longest key or pool a limit takes, in UTF-16 code units. */
export const MAX_KEY_LENGTH = 1024

function storeOption(value: unknown, name: string): void {
  for (const method of ['acquire', 'renew', 'release', 'take'] as const) {
    if (typeof (value as Record<string, unknown> | null)?.[method] !== 'function') {
      throw new TypeError(`${name} must be a limit store (memoryLimitStore() or redisLimitStore())`)
    }
  }
}

function nameOption(value: unknown, name: string): void {
  if (typeof value !== 'string' || !NAME.test(value)) {
    throw new TypeError(`${name} must be 1–64 of A-Z a-z 0-9 _ . -`)
  }
}

function shareOption(value: unknown, name: string): void {
  if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
    throw new TypeError(`${name} must be a number with 0 < share ≤ 1`)
  }
}

/** The rows every limit shares; `onUnavailable` is per limit, as its default differs. */
export const COMMON_LIMIT_ROWS = {
  store: option<LimitStore | undefined>({
    default: undefined,
    check: storeOption,
    shown: 'required',
    doc: 'where leases and buckets live: `memoryLimitStore()` (one process) or `redisLimitStore({ client })` (a fleet)',
  }),
  name: option<string | undefined>({
    default: undefined,
    check: nameOption,
    shown: 'required',
    doc: "the limit's name (1–64 of `A-Z a-z 0-9 _ . -`): limits on one store are kept apart by it; instances that share a limit use the same name",
  }),
  poolMemberShare: option({
    default: 0.25,
    check: shareOption,
    doc: 'fraction of the limit one member of a pool holds (at least 1): the pool as a whole is held to the limit, each member to this share of it',
  }),
  onOutage: option<(event: OutageEvent) => void>({
    default: () => {},
    check: functionOption,
    shown: 'ignore',
    doc: 'called with `{ name, state }` once when the store becomes unavailable (`started`) and once when it answers again (`ended`); never per call',
  }),
}

/** The `onUnavailable` row with `fallback` as its default. */
export function onUnavailableRow(fallback: OnUnavailable, shown: string, why: string) {
  return option<OnUnavailable>({
    default: fallback,
    check: checkOnUnavailable,
    normalize: freezeOnUnavailable,
    shown,
    doc: `while the store is unavailable: \`'closed'\` refuses (503 \`ERR_LIMIT_UNAVAILABLE\`); \`{ local: { instances: N } }\` decides in this process at \`max(1, floor(limit ÷ N))\`. ${why}`,
  })
}

/** Checks a per-call key or pool. @throws TypeError naming it (never echoing it). */
export function checkKey(value: unknown, what: 'key' | 'pool'): asserts value is string {
  if (typeof value !== 'string' || value.length > MAX_KEY_LENGTH) {
    throw new TypeError(`${what} must be a string of at most ${MAX_KEY_LENGTH} characters`)
  }
}

/** `max(1, floor(figure × share))`: a pool member's part of a pool's figure. */
export function memberShare(figure: number, share: number): number {
  return Math.max(1, Math.floor(figure * share))
}
