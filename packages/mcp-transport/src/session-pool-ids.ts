// Session ids that say which instance minted them. Behind a load balancer without affinity by
// `Mcp-Session-Id`, a 2025-era request lands on an instance that never saw its session; a plain
// "Session not found" there cannot be told from an expired session, and operators chase the
// wrong cause. Each pool draws a random instance tag (not secret, not the host name: it names
// no machine) and writes it into every id it mints, so a request carrying another tag is
// refused as minted elsewhere. The random part keeps 128 bits, as a UUID's 122 would.

import { randomBytes } from 'node:crypto'

/** An instance tag: 12 lowercase hex digits (48 random bits). */
const TAG = /^[0-9a-f]{12}$/
/** A tagged id: the tag, a dot, 22 base64url characters (128 random bits). */
const TAGGED_ID = /^([0-9a-f]{12})\.[A-Za-z0-9_-]{22}$/

/** Where a session id points, as far as this instance can tell without any shared state. */
export type SessionLocation =
  /** Open in this pool. */
  | 'open'
  /** Minted here (or in no known shape) and not open: closed, expired, or never opened. */
  | 'gone'
  /** Minted by another instance (or by this one before a restart): route by `Mcp-Session-Id`. */
  | 'elsewhere'

/** A fresh instance tag: 12 hex digits from a CSPRNG. */
export function newInstanceTag(): string {
  return randomBytes(6).toString('hex')
}

/** Throws a TypeError naming `name` unless `value` is an instance tag (12 lowercase hex digits). */
export function checkInstanceTag(value: unknown, name: string): void {
  if (typeof value !== 'string' || !TAG.test(value)) {
    throw new TypeError(`${name} must be 12 lowercase hex digits`)
  }
}

/** A new session id carrying `tag`: `<tag>.<22 base64url characters>`, visible ASCII as MCP requires. */
export function mintSessionId(tag: string): string {
  return `${tag}.${randomBytes(16).toString('base64url')}`
}

/** The instance tag a session id carries, or `undefined` for an id of any other shape. */
export function sessionIdTag(id: string): string | undefined {
  return TAGGED_ID.exec(id)?.[1]
}
