// Streamable HTTP session bookkeeping for servers that keep sessions (the SDK keeps each
// session's state in-process and leaves counting them to the app). Three attacks it ends:
//   - one principal opening sessions until the server has none left for anyone: a per-key quota;
//   - sessions that are never closed filling the slots forever: idle expiry frees them;
//   - a cap checked when headers arrive but counted after the body, so concurrent initializes
//     with held-back bodies all pass the check (cap 5, 40 opened): a slot is reserved before
//     the body is read and released if the initialize does not open a session.

import {
  checkOptions,
  createResolvedBrand,
  integerOption,
  type OptionValidators,
} from '@tollgate/json-budget'

/** Options of {@link SessionPool}. Every field is optional. */
export interface SessionPoolOptions {
  /** Most sessions open (or reserved) at once, every key together. Default: 1,000. */
  readonly maxSessions?: number
  /**
   * Most sessions one key (a credential, a tenant; the app decides) holds at once. Default: a
   * tenth of `maxSessions`, rounded up, so one key at its quota leaves nine tenths to the rest.
   */
  readonly maxSessionsPerKey?: number
  /**
   * Milliseconds a session may go without a request in flight before it is closed and its slot
   * freed (an open SSE stream counts as in flight). `false` keeps sessions until they close.
   * Default: 600,000 (10 minutes).
   */
  readonly idleMs?: number | false
}

/** {@link SessionPoolOptions} after {@link resolveSessionPoolOptions}: every field set, frozen. */
export interface ResolvedSessionPoolOptions {
  readonly maxSessions: number
  readonly maxSessionsPerKey: number
  readonly idleMs: number | false
}

/** The defaults of {@link SessionPoolOptions} (`maxSessionsPerKey` is derived from `maxSessions`). */
export const SESSION_POOL_DEFAULTS: Readonly<{ maxSessions: number; idleMs: number }> =
  Object.freeze({ maxSessions: 1000, idleMs: 600_000 })

const VALIDATORS: OptionValidators<SessionPoolOptions> = {
  maxSessions: integerOption(),
  maxSessionsPerKey: integerOption(),
  idleMs: (value, name) => {
    if (value !== false) integerOption()(value, name)
  },
}

const brand = createResolvedBrand<ResolvedSessionPoolOptions>()

/**
 * Validates {@link SessionPoolOptions} once, fills {@link SESSION_POOL_DEFAULTS} (and
 * `maxSessionsPerKey` from `maxSessions`) and freezes the result; an object this function
 * returned is returned as it is.
 * @throws TypeError on an unknown option or a limit that is not a positive safe integer.
 */
export function resolveSessionPoolOptions(
  options: SessionPoolOptions | ResolvedSessionPoolOptions = {},
): ResolvedSessionPoolOptions {
  if (brand.has(options)) return options
  checkOptions(options, VALIDATORS, 'SessionPool')
  const input: SessionPoolOptions = options ?? {}
  const maxSessions = input.maxSessions ?? SESSION_POOL_DEFAULTS.maxSessions
  return brand.mark(
    Object.freeze({
      maxSessions,
      maxSessionsPerKey: input.maxSessionsPerKey ?? Math.ceil(maxSessions / 10),
      idleMs: input.idleMs ?? SESSION_POOL_DEFAULTS.idleMs,
    }),
  )
}

/** Why {@link SessionPool.reserve} refused: the status to answer with and the limit reached. */
export interface SessionRefusal {
  /** `ERR_SESSION_LIMIT`: every slot is taken. `ERR_SESSION_QUOTA`: this key holds its quota. */
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
   * expires idle. A slot commits once; after a release it throws.
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

interface Entry<T> {
  readonly key: string
  readonly value: T
  readonly close: () => unknown
  inFlight: number
  timer: ReturnType<typeof setTimeout> | undefined
}

/**
 * Counts a server's Streamable HTTP sessions: at most `maxSessions` in all and
 * `maxSessionsPerKey` per key, a slot reserved before an `initialize` body is read (so
 * concurrent initializes never exceed either limit) and sessions idle for `idleMs` closed with
 * their slots freed. Framework-free: the app calls {@link reserve} when a POST without a
 * session id arrives, {@link use} for a request naming a session, and {@link delete} from the
 * transport's `onclose`.
 */
export class SessionPool<T> {
  /** Most sessions open or reserved at once. */
  readonly maxSessions: number
  /** Most sessions one key holds at once. */
  readonly maxSessionsPerKey: number
  /** Idle lifetime in milliseconds, or `false`. */
  readonly idleMs: number | false
  readonly #sessions = new Map<string, Entry<T>>()
  readonly #perKey = new Map<string, number>()
  #slots = 0

  /** @throws TypeError on an unknown option or a limit that is not a positive safe integer. */
  constructor(options: SessionPoolOptions | ResolvedSessionPoolOptions = {}) {
    const resolved = resolveSessionPoolOptions(options)
    this.maxSessions = resolved.maxSessions
    this.maxSessionsPerKey = resolved.maxSessionsPerKey
    this.idleMs = resolved.idleMs
  }

  /** Slots taken: open sessions and reservations not yet committed or released. */
  get size(): number {
    return this.#slots
  }

  /** Slots `key` holds (sessions and reservations). */
  countOf(key: string): number {
    return this.#perKey.get(key) ?? 0
  }

  /**
   * Reserves a slot for `key` before an `initialize` body is read, or says which limit is
   * reached. The slot counts at once, against both limits.
   */
  reserve(key: string): { ok: true; slot: SessionSlot<T> } | { ok: false; error: SessionRefusal } {
    if (this.#slots >= this.maxSessions) {
      return {
        ok: false,
        error: { code: 'ERR_SESSION_LIMIT', status: 503, limit: this.maxSessions },
      }
    }
    if (this.countOf(key) >= this.maxSessionsPerKey) {
      return {
        ok: false,
        error: { code: 'ERR_SESSION_QUOTA', status: 429, limit: this.maxSessionsPerKey },
      }
    }
    this.#take(key)
    let state: 'reserved' | 'committed' | 'released' = 'reserved'
    let opened: { id: string; entry: Entry<T> } | undefined
    const slot: SessionSlot<T> = {
      key,
      commit: (id, value, close) => {
        if (state !== 'reserved') throw new Error(`session slot already ${state}`)
        if (this.#sessions.has(id)) throw new Error('session id already in the pool')
        state = 'committed'
        // The opening request is still in flight: the idle clock starts at release().
        const entry: Entry<T> = { key, value, close, inFlight: 1, timer: undefined }
        this.#sessions.set(id, entry)
        opened = { id, entry }
      },
      release: () => {
        if (state === 'reserved') {
          state = 'released'
          this.#give(key)
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
   * The session `id` for one request, its idle clock stopped until `done()`; `undefined` for an
   * unknown (closed, expired) id. Match the returned `key` / `value` against the caller before
   * serving (a session belongs to whoever opened it).
   */
  use(id: string): SessionUse<T> | undefined {
    const entry = this.#sessions.get(id)
    if (entry === undefined) return undefined
    entry.inFlight++
    if (entry.timer !== undefined) clearTimeout(entry.timer)
    entry.timer = undefined
    let finished = false
    return {
      value: entry.value,
      key: entry.key,
      done: () => {
        if (finished) return
        finished = true
        entry.inFlight--
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

  #arm(id: string, entry: Entry<T>): void {
    if (this.idleMs === false || entry.inFlight > 0) return
    entry.timer = setTimeout(() => {
      if (this.#sessions.get(id) !== entry || entry.inFlight > 0) return
      this.#drop(id, entry)
      // The slot is free before close runs, so a failing close cannot leak it.
      void Promise.resolve()
        .then(entry.close)
        .catch(() => {})
    }, this.idleMs)
    // An idle session must not keep the process alive.
    entry.timer.unref?.()
  }

  #drop(id: string, entry: Entry<T>): void {
    if (entry.timer !== undefined) clearTimeout(entry.timer)
    entry.timer = undefined
    this.#sessions.delete(id)
    this.#give(entry.key)
  }

  #take(key: string): void {
    this.#slots++
    this.#perKey.set(key, this.countOf(key) + 1)
  }

  #give(key: string): void {
    this.#slots--
    const left = this.countOf(key) - 1
    if (left > 0) this.#perKey.set(key, left)
    else this.#perKey.delete(key)
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
