// The session-era (2025) sessions the HTTP front issues on `initialize`. Two limits: the
// sessions this process holds (memory), and the sessions one principal holds. With a fleet
// (`--redis-url`) the per-principal count is a lease on the shared store (`leases`), held while
// the session lives and renewed by its holder, so N gateways give a caller one quota, not N; a
// gateway killed with SIGKILL stops renewing and its sessions' leases expire within the lease.
// A session lives in the process that opened it: each id carries this process's instance tag,
// so a request that a load balancer sends to another instance is refused there as minted
// elsewhere (404 `ERR_SESSION_ELSEWHERE`: the balancer needs affinity by `Mcp-Session-Id`),
// which an operator can tell apart from an expired session (404 `ERR_SESSION_UNKNOWN`).
// Anonymous callers (each keyed by its address) together hold at most `maxAnonymousSessions` of
// this process's slots, each at most a quarter of that, so many addresses without a credential
// cannot fill the process and turn every credential away with `ERR_SESSION_LIMIT`.

import { randomBytes } from 'node:crypto'
import { type ConcurrencyLimit, isLimitRefusal, type LimitLease } from '@tollgate/fleet-limits'
import { defineOptions, integerOption, type OptionsOf, option } from '@tollgate/json-budget'
import { mintSessionId, sessionIdTag } from '@tollgate/mcp-transport'
import type { CallerSession } from './call-context.js'

/** The options of {@link httpSessions}, declared once (defaults, checks, docs). */
export const HTTP_SESSIONS_OPTIONS = defineOptions('httpSessions', {
  maxSessions: option({
    default: 10_000,
    check: integerOption(),
    doc: 'sessions this process holds, every principal together: `ERR_SESSION_LIMIT` (503)',
  }),
  maxSessionsPerPrincipal: option({
    default: 1000,
    check: integerOption(),
    doc: 'sessions one principal holds (across the fleet with `leases`): `ERR_SESSION_QUOTA` (429)',
  }),
  maxAnonymousSessions: option({
    default: 2500,
    check: integerOption(),
    doc: 'sessions every anonymous caller together holds in this process, each at most a quarter of it (and `maxSessionsPerPrincipal`): `ERR_SESSION_QUOTA` (429)',
  }),
  idleMs: option({
    default: 30 * 60_000,
    check: integerOption(),
    shown: '1,800,000 (30 minutes)',
    doc: 'a session unused for this long is closed and its slot (and lease) freed',
  }),
  instanceTag: option<string | undefined>({
    default: undefined,
    check: (value, name) => {
      if (typeof value !== 'string' || !/^[0-9a-f]{12}$/.test(value))
        throw new TypeError(`${name} must be 12 lowercase hex digits`)
    },
    shown: 'drawn at random',
    doc: "the tag (not a secret) in every id this process mints; another instance's tag is `ERR_SESSION_ELSEWHERE`",
  }),
  leases: option<ConcurrencyLimit | undefined>({
    default: undefined,
    check: (value, name) => {
      if (typeof (value as { acquire?: unknown } | null)?.acquire !== 'function')
        throw new TypeError(`${name} must be a concurrency limit (createConcurrencyLimit())`)
    },
    shown: 'none (counted in this process)',
    doc: "the fleet's count of sessions per principal, on the shared store; its limit should be `maxSessionsPerPrincipal`",
  }),
})

/** Options of {@link httpSessions} (see {@link HTTP_SESSIONS_OPTIONS}); every field optional. */
export type HttpSessionsOptions = OptionsOf<typeof HTTP_SESSIONS_OPTIONS.rows>

/** Why {@link HttpSessions.open} refused: answer `status` with `Retry-After`. */
export interface SessionRefusal {
  readonly ok: false
  /** `ERR_SESSION_LIMIT` (503): this process is full; `ERR_SESSION_QUOTA` (429): the principal's. */
  readonly code: 'ERR_SESSION_LIMIT' | 'ERR_SESSION_QUOTA'
  readonly status: 429 | 503
  readonly limit: number
  readonly retryAfterSeconds: number
}

/** Where a session id points, for one principal: see {@link HttpSessions.locate}. */
export type SessionWhere = 'open' | 'unknown' | 'elsewhere'

/** The session-era sessions of one HTTP front: built once, held by the front. */
export interface HttpSessions {
  /** The resolved policy (frozen). */
  readonly policy: Readonly<{
    maxSessions: number
    maxSessionsPerPrincipal: number
    maxAnonymousSessions: number
    idleMs: number
    instanceTag: string
    leases: ConcurrencyLimit | undefined
  }>
  /**
   * Where session `id` is for principal `key`: `'open'` (and marks it used), `'elsewhere'`
   * (another instance's tag), or `'unknown'` (none, expired, closed, or another principal's:
   * an id of someone else's session says nothing about it).
   */
  locate(id: string | undefined, key: string): SessionWhere
  /**
   * Opens a session for principal `key` (one store round trip with `leases`): its id, or why not.
   * An `anonymous` principal is also counted in the anonymous pool (`maxAnonymousSessions`).
   */
  open(
    key: string,
    anonymous?: boolean,
  ): Promise<{ readonly ok: true; readonly id: string } | SessionRefusal>
  /** Closes session `id` and frees its slot and lease; whether it was held. */
  delete(id: string): boolean
  /** The caller state of session `id`. */
  state(id: string): CallerSession | undefined
  /** How many sessions this process holds now. */
  size(): number
  /** Closes every session (their leases are given back): on stop. */
  closeAll(): Promise<void>
}

interface SessionEntry {
  seen: number
  readonly key: string
  readonly anonymous: boolean
  readonly state: CallerSession
  readonly lease: LimitLease | undefined
}

/** The sessions sweep runs this often, so an idle session's lease is not renewed for long. */
const SWEEP_MS = 60_000

/**
 * Builds the sessions of one front (options validated now).
 * @throws TypeError naming the option on a bad value.
 */
export function httpSessions(options?: HttpSessionsOptions): HttpSessions {
  const o = HTTP_SESSIONS_OPTIONS.resolve(options)
  const policy = Object.freeze({
    ...o,
    instanceTag: o.instanceTag ?? randomBytes(6).toString('hex'),
  })
  const { maxSessions, maxSessionsPerPrincipal: perPrincipal, idleMs, instanceTag, leases } = policy
  const anonymousPool = policy.maxAnonymousSessions
  // One anonymous address holds a quarter of the pool at most, so four or more share it.
  const anonymousMember = Math.min(perPrincipal, Math.max(1, Math.floor(anonymousPool / 4)))
  const sessions = new Map<string, SessionEntry>()
  const held = new Map<string, number>()
  let anonymousHeld = 0

  const close = (id: string, entry: SessionEntry): void => {
    sessions.delete(id)
    if (entry.anonymous) anonymousHeld -= 1
    const n = (held.get(entry.key) ?? 1) - 1
    if (n <= 0) held.delete(entry.key)
    else held.set(entry.key, n)
    void entry.lease?.release()
  }
  const sweep = (): void => {
    const now = Date.now()
    for (const [id, entry] of sessions) if (now - entry.seen > idleMs) close(id, entry)
  }
  // Idle sessions give their leases back within a sweep, not at the next request.
  const timer = setInterval(sweep, Math.min(SWEEP_MS, idleMs))
  timer.unref()
  const refusal = (code: SessionRefusal['code'], limit: number): SessionRefusal =>
    Object.freeze({
      ok: false,
      code,
      status: code === 'ERR_SESSION_LIMIT' ? 503 : 429,
      limit,
      retryAfterSeconds: 60,
    })

  return Object.freeze({
    policy,
    locate(id: string | undefined, key: string): SessionWhere {
      if (id === undefined) return 'unknown'
      const entry = sessions.get(id)
      if (entry === undefined) {
        const tag = sessionIdTag(id)
        return tag !== undefined && tag !== instanceTag ? 'elsewhere' : 'unknown'
      }
      if (entry.key !== key) return 'unknown'
      if (Date.now() - entry.seen > idleMs) {
        close(id, entry)
        return 'unknown'
      }
      entry.seen = Date.now()
      return 'open'
    },
    async open(key: string, anonymous = false) {
      if (sessions.size >= maxSessions || (anonymous && anonymousHeld >= anonymousPool)) sweep()
      if (sessions.size >= maxSessions) return refusal('ERR_SESSION_LIMIT', maxSessions)
      if (anonymous) {
        if (anonymousHeld >= anonymousPool) return refusal('ERR_SESSION_QUOTA', anonymousPool)
        if ((held.get(key) ?? 0) >= anonymousMember)
          return refusal('ERR_SESSION_QUOTA', anonymousMember)
      }
      let lease: LimitLease | undefined
      if (leases === undefined) {
        if ((held.get(key) ?? 0) >= perPrincipal) return refusal('ERR_SESSION_QUOTA', perPrincipal)
      } else {
        const got = await leases.acquire(key)
        // While the store is away the lease is decided on this instance's share (its rule).
        if (isLimitRefusal(got))
          return refusal(
            got.code === 'ERR_LIMIT_CONCURRENT' ? 'ERR_SESSION_QUOTA' : 'ERR_SESSION_LIMIT',
            got.limit,
          )
        lease = got
        // Other opens may have filled the process (or the pool) while this one waited for the store.
        if (sessions.size >= maxSessions) {
          void lease.release()
          return refusal('ERR_SESSION_LIMIT', maxSessions)
        }
        if (
          anonymous &&
          (anonymousHeld >= anonymousPool || (held.get(key) ?? 0) >= anonymousMember)
        ) {
          void lease.release()
          return refusal(
            'ERR_SESSION_QUOTA',
            anonymousHeld >= anonymousPool ? anonymousPool : anonymousMember,
          )
        }
      }
      const id = mintSessionId(instanceTag)
      sessions.set(id, { seen: Date.now(), key, anonymous, state: { logLevel: undefined }, lease })
      held.set(key, (held.get(key) ?? 0) + 1)
      if (anonymous) anonymousHeld += 1
      return Object.freeze({ ok: true as const, id })
    },
    delete(id: string): boolean {
      const entry = sessions.get(id)
      if (entry === undefined) return false
      close(id, entry)
      return true
    },
    state(id: string): CallerSession | undefined {
      return sessions.get(id)?.state
    },
    size: () => sessions.size,
    async closeAll(): Promise<void> {
      clearInterval(timer)
      const releases = [...sessions.values()].map((e) => e.lease?.release())
      sessions.clear()
      held.clear()
      anonymousHeld = 0
      await Promise.all(releases)
    },
  })
}
