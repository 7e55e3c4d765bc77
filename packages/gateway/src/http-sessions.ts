import { randomBytes } from 'node:crypto'
import type { CallerSession } from './call-context.js'

/** Most session-era sessions held at once. */
const MAX_SESSIONS = 10_000
/** A session unused for this long is forgotten: 30 minutes. */
const SESSION_IDLE_MS = 30 * 60_000

interface SessionEntry {
  seen: number
  readonly key: string
  readonly state: CallerSession
}

/**
 * The session-era sessions the HTTP front issued on `initialize` (at most 10,000; one unused
 * for 30 minutes is forgotten). A session is bound to the principal that opened it: another
 * caller cannot use its id.
 */
export class HttpSessions {
  readonly #sessions = new Map<string, SessionEntry>()

  /** Whether `id` is a live session of principal `key` (and marks it used). */
  allowed(id: string | undefined, key: string): boolean {
    if (id === undefined) return false
    const entry = this.#sessions.get(id)
    if (entry === undefined || Date.now() - entry.seen > SESSION_IDLE_MS || entry.key !== key) {
      if (entry !== undefined && entry.key === key) this.#sessions.delete(id)
      return false
    }
    entry.seen = Date.now()
    return true
  }

  /** Opens a session for principal `key`: its new id, or `undefined` when the table is full. */
  open(key: string): string | undefined {
    if (this.#sessions.size >= MAX_SESSIONS) {
      const now = Date.now()
      for (const [id, entry] of this.#sessions)
        if (now - entry.seen > SESSION_IDLE_MS) this.#sessions.delete(id)
      if (this.#sessions.size >= MAX_SESSIONS) return undefined
    }
    const id = randomBytes(16).toString('hex')
    this.#sessions.set(id, { seen: Date.now(), key, state: { logLevel: undefined } })
    return id
  }

  /** Forgets session `id`; whether it was held. */
  delete(id: string): boolean {
    return this.#sessions.delete(id)
  }

  /** The caller state of session `id`. */
  state(id: string): CallerSession | undefined {
    return this.#sessions.get(id)?.state
  }
}
