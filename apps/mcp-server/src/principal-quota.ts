/** Options of {@link principalQuota}; each `undefined` takes the default. */
export interface PrincipalQuotaOptions {
  /** Most requests one quota key has in flight at once. Default: 8. */
  readonly maxConcurrent?: number | undefined
  /**
   * Requests one quota key may start per minute, refilled continuously; a key that has been
   * quiet may spend a whole minute's worth at once. Default: 600.
   */
  readonly requestsPerMinute?: number | undefined
  /**
   * Most quota keys tracked at once, in each of two tables: keys in a pool (every anonymous
   * caller) and keys outside one (credentials), so callers in a pool can never fill the table
   * a credential needs. A key with nothing in flight and a full allowance is forgotten first;
   * when every tracked key of its table is busy, a new key is refused. Default: 10,000.
   */
  readonly maxKeys?: number | undefined
}

/** The defaults of {@link PrincipalQuotaOptions}. */
export const PRINCIPAL_QUOTA_DEFAULTS = Object.freeze({
  maxConcurrent: 8,
  requestsPerMinute: 600,
  maxKeys: 10_000,
})

/** Why {@link PrincipalQuota.acquire} refused: a stable code, the limit, the status to answer. */
export interface QuotaRefusal {
  /** `ERR_QUOTA_UNAVAILABLE`: the shared store (`--redis-url`) is down and the rule is to refuse. */
  readonly code:
    | 'ERR_QUOTA_CONCURRENT'
    | 'ERR_QUOTA_RATE'
    | 'ERR_QUOTA_KEYS'
    | 'ERR_QUOTA_UNAVAILABLE'
  readonly limit: number
  /** 429 for the key's own limits, 503 when the table of keys is full or the store is down. */
  readonly status: 429 | 503
  /** Seconds until a retry can succeed, at least 1. */
  readonly retryAfterSeconds: number
}

/** A held request slot: release it once, when the response is finished. */
export interface QuotaLease {
  release(): void
}

/** What {@link PrincipalQuota.acquire} answers: a held slot, or why not. */
export type QuotaAnswer =
  | { readonly ok: true; readonly lease: QuotaLease }
  | { readonly ok: false; readonly error: QuotaRefusal }

/**
 * Per-principal request quotas of the stateless (2026-07-28) path, which has no session to
 * count: requests in flight and a rate, each per quota key (a credential, or one anonymous
 * caller). One key at its limits leaves every other key's untouched.
 */
export interface PrincipalQuota {
  readonly maxConcurrent: number
  readonly requestsPerMinute: number
  readonly maxKeys: number
  /**
   * Takes a slot for `key` (before the body is read), or says why not. `pool` names the pool
   * the key belongs to (`'anonymous'`): pooled keys are tracked apart from the others. The
   * in-memory quota answers at once; the shared one (`sharedLimits`) after one store round trip.
   */
  acquire(key: string, now?: number, pool?: string): QuotaAnswer | Promise<QuotaAnswer>
}

/** The in-memory {@link PrincipalQuota} of one process: it answers at once. */
export interface LocalPrincipalQuota extends PrincipalQuota {
  acquire(key: string, now?: number, pool?: string): QuotaAnswer
}

interface Entry {
  tokens: number
  at: number
  active: number
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`${name} must be a positive safe integer`)
  }
  return value
}

/**
 * Builds a {@link PrincipalQuota} from its options, validated here (bad values fail at
 * start-up). The rate is a token bucket of `requestsPerMinute` refilled continuously.
 * @throws TypeError on a limit that is not a positive safe integer.
 */
export function principalQuota(options: PrincipalQuotaOptions = {}): LocalPrincipalQuota {
  const d = PRINCIPAL_QUOTA_DEFAULTS
  const maxConcurrent = positiveInteger('maxConcurrent', options.maxConcurrent, d.maxConcurrent)
  const requestsPerMinute = positiveInteger(
    'requestsPerMinute',
    options.requestsPerMinute,
    d.requestsPerMinute,
  )
  const maxKeys = positiveInteger('maxKeys', options.maxKeys, d.maxKeys)
  const perMs = requestsPerMinute / 60_000
  // Pooled keys (anonymous callers) and the others (credentials) in two tables, each capped.
  const pooled = new Map<string, Entry>()
  const own = new Map<string, Entry>()

  const refill = (e: Entry, now: number) => {
    e.tokens = Math.min(requestsPerMinute, e.tokens + Math.max(0, now - e.at) * perMs)
    e.at = now
  }
  // Forgets the keys that hold nothing: no request in flight and a full allowance, so
  // forgetting them changes no decision.
  const sweep = (entries: Map<string, Entry>, now: number) => {
    for (const [key, e] of entries) {
      refill(e, now)
      if (e.active === 0 && e.tokens >= requestsPerMinute) entries.delete(key)
    }
  }
  const refuse = (code: QuotaRefusal['code'], limit: number, status: 429 | 503, wait: number) =>
    ({
      ok: false,
      error: Object.freeze({
        code,
        limit,
        status,
        retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)),
      }),
    }) as const

  return Object.freeze({
    maxConcurrent,
    requestsPerMinute,
    maxKeys,
    acquire(key: string, now = Date.now(), pool?: string) {
      const entries = pool === undefined ? own : pooled
      // One pool per table: a pooled key is keyed with its pool's name.
      const id = pool === undefined ? key : `${pool}\u0000${key}`
      let e = entries.get(id)
      if (e === undefined) {
        if (entries.size >= maxKeys) sweep(entries, now)
        if (entries.size >= maxKeys) return refuse('ERR_QUOTA_KEYS', maxKeys, 503, 1000)
        e = { tokens: requestsPerMinute, at: now, active: 0 }
        entries.set(id, e)
      }
      refill(e, now)
      if (e.active >= maxConcurrent) return refuse('ERR_QUOTA_CONCURRENT', maxConcurrent, 429, 1000)
      if (e.tokens < 1)
        return refuse('ERR_QUOTA_RATE', requestsPerMinute, 429, (1 - e.tokens) / perMs)
      e.tokens -= 1
      e.active += 1
      const entry = e
      let released = false
      return {
        ok: true,
        lease: {
          release: () => {
            if (released) return
            released = true
            entry.active -= 1
          },
        },
      } as const
    },
  })
}
