// Streamable HTTP session bookkeeping for servers that keep sessions (the SDK keeps each
// session's state in-process and leaves counting them to the app). The attacks it ends:
//   - one principal opening sessions until the server has none left for anyone: a per-key quota,
//     and for keys in a pool (every anonymous caller, keyed by address) a quota of the pool
//     together and a member's share of it, so one address never locks the pool out;
//   - sessions that are never closed filling the slots forever: idle expiry, a cap on how long
//     an open stream alone keeps a session alive, and an absolute lifetime;
//   - a cap checked when headers arrive but counted after the body, so concurrent initializes
//     with held-back bodies all pass the check (cap 5, 40 opened): a slot is reserved before
//     the body is read and released if the initialize does not open a session;
//   - a refused request keeping someone else's session alive: `peek` reads a session without
//     touching its clocks, `use` (which stops the idle clock) only once the caller is known.

import { refusalPrincipal } from '@tollgate/http-admission'
import {
  type RefusalHook,
  type RefusalWhere,
  refusalEvent,
  reportRefusal,
} from '@tollgate/json-budget'
import {
  mintSessionId,
  newInstanceTag,
  type SessionLocation,
  sessionIdTag,
} from './session-pool-ids.js'
import {
  type ResolvedSessionPoolOptions,
  resolveSessionPoolOptions,
  type SessionPoolOptions,
} from './session-pool-options.js'

/** Why {@link SessionPool.reserve} refused: the status to answer with and the limit reached. */
export interface SessionRefusal {
  /** `ERR_SESSION_LIMIT`: every slot is taken. `ERR_SESSION_QUOTA`: this key (or its pool) holds its quota. */
  readonly code: 'ERR_SESSION_LIMIT' | 'ERR_SESSION_QUOTA'
  /** 503 for the server-wide limit, 429 for the key's quota (answer with `Retry-After`). */
  readonly status: 503 | 429
  readonly limit: number
}

/** A reserved slot: {@link SessionSlot.commit} it once the session exists, or release it. */
export interface SessionSlot<T> {
  readonly key: string
  /**
   * Binds the slot to the session `id` with its `value`; `close` is called (once) if the session
   * expires (idle, stream-idle or at its lifetime). A slot commits once; after a release it throws.
   */
  commit(id: string, value: T, close: () => unknown): void
  /**
   * Ends the opening request: frees the slot if it was not committed, or, once committed, starts
   * the session's idle clock. Idempotent: call it in a `finally` around the opening request.
   */
  release(): void
}

/** A session in use for one request: call `done()` when the response has closed. */
export interface SessionUse<T> {
  readonly value: T
  readonly key: string
  done(): void
}

/** What a request is to a session's clocks: a request stops the idle clock, a stream only for `streamIdleMs`. */
export type SessionUseKind = 'request' | 'stream'

interface Entry<T> {
  readonly key: string
  readonly pool: string | undefined
  readonly value: T
  readonly close: () => unknown
  inFlight: number
  streams: number
  timer: ReturnType<typeof setTimeout> | undefined
  lifetime: ReturnType<typeof setTimeout> | undefined
}

/**
 * Counts a server's Streamable HTTP sessions: at most `maxSessions` in all and
 * `maxSessionsPerKey` per key (a pool of keys: that many together, each key `poolMemberShare`
 * of it), a slot reserved before an `initialize` body is read (so concurrent initializes never
 * exceed either limit), sessions idle for `idleMs` (or kept only by a stream for `streamIdleMs`)
 * closed, and every session closed `maxLifetimeMs` after it opened, its slot freed.
 * Framework-free: the app calls {@link reserve} when a POST without a session id arrives,
 * {@link peek} then {@link use} for a request naming a session, and {@link delete} from the
 * transport's `onclose`.
 */
export class SessionPool<T> {
  /** Most sessions open or reserved at once. */
  readonly maxSessions: number
  /** Most sessions one key (or one pool together) holds at once. */
  readonly maxSessionsPerKey: number
  /** Most sessions one key inside a pool holds: `poolMemberShare` of `maxSessionsPerKey`, at least 1. */
  readonly maxSessionsPerPoolMember: number
  /** Idle lifetime in milliseconds, or `false`. */
  readonly idleMs: number | false
  /** How long a stream alone keeps a session alive, in milliseconds, or `false`. */
  readonly streamIdleMs: number | false
  /** Absolute lifetime in milliseconds, or `false`. */
  readonly maxLifetimeMs: number | false
  /** The tag in every id {@link mintId} returns (12 hex digits; not a secret). */
  readonly instanceTag: string
  readonly #sessions = new Map<string, Entry<T>>()
  readonly #perKey = new Map<string, number>()
  readonly #perPool = new Map<string, number>()
  #slots = 0
  readonly #onRefusal: RefusalHook | undefined

  /** @throws TypeError on an unknown option or a limit that is not a positive safe integer. */
  constructor(options: SessionPoolOptions | ResolvedSessionPoolOptions = {}) {
    const resolved = resolveSessionPoolOptions(options)
    this.maxSessions = resolved.maxSessions
    this.maxSessionsPerKey = resolved.maxSessionsPerKey
    this.maxSessionsPerPoolMember = Math.max(
      1,
      Math.floor(resolved.maxSessionsPerKey * resolved.poolMemberShare),
    )
    this.idleMs = resolved.idleMs
    this.streamIdleMs = resolved.streamIdleMs
    this.maxLifetimeMs = resolved.maxLifetimeMs
    this.instanceTag = resolved.instanceTag ?? newInstanceTag()
    this.#onRefusal = resolved.onRefusal
  }

  /**
   * Reports a refused reservation to the `onRefusal` hook (caught: it never decides), with the
   * key as `refusalPrincipal` reports it (a pool member by a keyed hash, never its address).
   */
  #report(error: SessionRefusal, option: string, where: RefusalWhere): void {
    if (this.#onRefusal === undefined) return
    reportRefusal(this.#onRefusal, refusalEvent({ ...error, option }, 'mcp-session-pool', where))
  }

  /** A new session id carrying this pool's {@link instanceTag} (pass it as the SDK's `sessionIdGenerator`). */
  mintId(): string {
    return mintSessionId(this.instanceTag)
  }

  /**
   * Where session `id` is: `'open'` here, `'gone'` (minted here, or an id of another shape, and
   * not open: closed or expired), or `'elsewhere'` (another instance's tag: the request reached
   * an instance that never held the session, so the load balancer lacks affinity by
   * `Mcp-Session-Id`, or this instance restarted). Touches nothing.
   */
  locate(id: string): SessionLocation {
    if (this.#sessions.has(id)) return 'open'
    const tag = sessionIdTag(id)
    return tag === undefined || tag === this.instanceTag ? 'gone' : 'elsewhere'
  }

  /** Slots taken: open sessions and reservations not yet committed or released. */
  get size(): number {
    return this.#slots
  }

  /** Slots `key` holds (sessions and reservations). */
  countOf(key: string): number {
    return this.#perKey.get(key) ?? 0
  }

  /** Slots the keys of `pool` hold together. */
  countOfPool(pool: string): number {
    return this.#perPool.get(pool) ?? 0
  }

  /**
   * Reserves a slot for `key` (a member of `pool`, when given: every anonymous caller, say)
   * before an `initialize` body is read, or says which limit is reached. The slot counts at
   * once, against every limit. A refusal's event names `route` (the route's name, as the host
   * configured it) and the key's reportable form.
   */
  reserve(
    key: string,
    pool?: string,
    route?: string,
  ): { ok: true; slot: SessionSlot<T> } | { ok: false; error: SessionRefusal } {
    const where = (): RefusalWhere => ({ route, principal: refusalPrincipal(key, pool) })
    if (this.#slots >= this.maxSessions) {
      const error = { code: 'ERR_SESSION_LIMIT', status: 503, limit: this.maxSessions } as const
      this.#report(error, 'maxSessions', where())
      return { ok: false, error }
    }
    const own = pool === undefined ? this.maxSessionsPerKey : this.maxSessionsPerPoolMember
    const quota = (limit: number, option: string) => {
      const error = { code: 'ERR_SESSION_QUOTA', status: 429, limit } as const
      this.#report(error, option, where())
      return { ok: false, error } as const
    }
    if (this.countOf(key) >= own) {
      return quota(own, pool === undefined ? 'maxSessionsPerKey' : 'poolMemberShare')
    }
    if (pool !== undefined && this.countOfPool(pool) >= this.maxSessionsPerKey) {
      return quota(this.maxSessionsPerKey, 'maxSessionsPerKey')
    }
    this.#take(key, pool)
    let state: 'reserved' | 'committed' | 'released' = 'reserved'
    let opened: { id: string; entry: Entry<T> } | undefined
    const slot: SessionSlot<T> = {
      key,
      commit: (id, value, close) => {
        if (state !== 'reserved') throw new Error(`session slot already ${state}`)
        if (this.#sessions.has(id)) throw new Error('session id already in the pool')
        state = 'committed'
        // The opening request is still in flight: the idle clock starts at release().
        const entry: Entry<T> = {
          key,
          pool,
          value,
          close,
          inFlight: 1,
          streams: 0,
          timer: undefined,
          lifetime: undefined,
        }
        this.#sessions.set(id, entry)
        if (this.maxLifetimeMs !== false) {
          entry.lifetime = setTimeout(() => this.#expire(id, entry), this.maxLifetimeMs)
          entry.lifetime.unref?.()
        }
        opened = { id, entry }
      },
      release: () => {
        if (state === 'reserved') {
          state = 'released'
          this.#give(key, pool)
        } else if (state === 'committed' && opened !== undefined) {
          const { id, entry } = opened
          opened = undefined
          entry.inFlight--
          if (this.#sessions.get(id) === entry) this.#arm(id, entry)
        }
      },
    }
    return { ok: true, slot }
  }

  /**
   * The session `id`'s value and key, touching nothing: match them against the caller before
   * {@link use}, so a request that is refused (another principal's session, another route)
   * restarts no session's idle clock. `undefined` for an unknown (closed, expired) id.
   */
  peek(id: string): { readonly value: T; readonly key: string } | undefined {
    const entry = this.#sessions.get(id)
    return entry === undefined ? undefined : { value: entry.value, key: entry.key }
  }

  /**
   * The session `id` for one request, its idle clock stopped until `done()` (a `'stream'` use,
   * a GET's event stream, keeps it alive for at most `streamIdleMs` with nothing else in
   * flight); `undefined` for an unknown (closed, expired) id. Check the caller with
   * {@link peek} first (a session belongs to whoever opened it).
   */
  use(id: string, kind: SessionUseKind = 'request'): SessionUse<T> | undefined {
    const entry = this.#sessions.get(id)
    if (entry === undefined) return undefined
    if (kind === 'stream') entry.streams++
    else entry.inFlight++
    this.#arm(id, entry)
    let finished = false
    return {
      value: entry.value,
      key: entry.key,
      done: () => {
        if (finished) return
        finished = true
        if (kind === 'stream') entry.streams--
        else entry.inFlight--
        if (this.#sessions.get(id) === entry) this.#arm(id, entry)
      },
    }
  }

  /** Whether session `id` is open in the pool (committed, not closed or expired). */
  has(id: string): boolean {
    return this.#sessions.has(id)
  }

  /** Removes session `id` and frees its slot (call it from the transport's `onclose`). */
  delete(id: string): boolean {
    const entry = this.#sessions.get(id)
    if (entry === undefined) return false
    this.#drop(id, entry)
    return true
  }

  /**
   * Closes every session (their `close` callbacks) and empties the pool. A callback that throws
   * or rejects does not stop the others: each runs on its own promise and failures are dropped,
   * so one broken session cannot keep the rest open at shutdown.
   */
  async close(): Promise<void> {
    const entries = [...this.#sessions]
    for (const [id, entry] of entries) this.#drop(id, entry)
    await Promise.allSettled(entries.map(([, entry]) => Promise.resolve().then(entry.close)))
  }

  // (Re)starts the clock that fits what is in flight: none while a request is; `streamIdleMs`
  // while only streams are; `idleMs` when nothing is. Called on every change of either count.
  #arm(id: string, entry: Entry<T>): void {
    if (entry.timer !== undefined) clearTimeout(entry.timer)
    entry.timer = undefined
    if (entry.inFlight > 0) return
    const ms = entry.streams > 0 ? this.streamIdleMs : this.idleMs
    if (ms === false) return
    entry.timer = setTimeout(() => {
      if (entry.inFlight > 0) return
      this.#expire(id, entry)
    }, ms)
    // An idle session must not keep the process alive.
    entry.timer.unref?.()
  }

  #expire(id: string, entry: Entry<T>): void {
    if (this.#sessions.get(id) !== entry) return
    this.#drop(id, entry)
    // The slot is free before close runs, so a failing close cannot leak it.
    void Promise.resolve()
      .then(entry.close)
      .catch(() => {})
  }

  #drop(id: string, entry: Entry<T>): void {
    if (entry.timer !== undefined) clearTimeout(entry.timer)
    if (entry.lifetime !== undefined) clearTimeout(entry.lifetime)
    entry.timer = undefined
    entry.lifetime = undefined
    this.#sessions.delete(id)
    this.#give(entry.key, entry.pool)
  }

  #take(key: string, pool: string | undefined): void {
    this.#slots++
    this.#perKey.set(key, this.countOf(key) + 1)
    if (pool !== undefined) this.#perPool.set(pool, this.countOfPool(pool) + 1)
  }

  #give(key: string, pool: string | undefined): void {
    this.#slots--
    const left = this.countOf(key) - 1
    if (left > 0) this.#perKey.set(key, left)
    else this.#perKey.delete(key)
    if (pool !== undefined) {
      const rest = this.countOfPool(pool) - 1
      if (rest > 0) this.#perPool.set(pool, rest)
      else this.#perPool.delete(pool)
    }
  }
}

/**
 * Whether an admitted POST body is a lone `initialize` request, the only body that may open a
 * session (the SDK refuses an `initialize` beside other messages). Release a reserved slot for any
 * other body before handing it over.
 */
export function isInitializeBody(body: unknown): boolean {
  // A batch of exactly one message is what the SDK still takes for an initialize.
  const message = Array.isArray(body) && body.length === 1 ? body[0] : body
  return (
    typeof message === 'object' &&
    message !== null &&
    !Array.isArray(message) &&
    (message as { method?: unknown }).method === 'initialize' &&
    (message as { id?: unknown }).id !== undefined
  )
}
