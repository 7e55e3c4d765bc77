// The principal a refusal event reports. The key a control counts a caller under for fairness is
// either a name the host chose (a credential's id, a tenant) or, for a caller without a
// credential, its network address (`callerKeys().keyOf(req)`: `ip:203.0.113.7`). An address is
// personal data and a refusal event goes to logs, traces and third-party sinks, so it is never
// reported: an anonymous caller is reported as its pool's name and a keyed hash of its key.
// The hash key is random per process and never leaves it, so the hash cannot be reversed by
// hashing every IPv4 address; within one process it still tells one abusive caller from many.
import { createHmac, randomBytes } from 'node:crypto'

// One key per process, shared by every loaded copy of the package (ESM beside CJS), so one
// caller is one hash whichever copy reported it.
const KEY_SLOT = Symbol.for('tollgate.http-admission.refusalPrincipalKey')
const slot = globalThis as { [KEY_SLOT]?: Buffer }
const HASH_KEY = (slot[KEY_SLOT] ??= randomBytes(32))

/** A named principal longer than this is reported by its hash; names are short ids. */
const MAX_NAMED = 128
/** A pool name is cut here, so a report stays within the event's 128 characters. */
const MAX_POOL = 64
/** The address keys `callerKeys()` mints start so; they are hashed even outside a pool. */
const ADDRESS_KEY = 'ip:'

function keyedHash(key: string): string {
  // 64 bits of HMAC-SHA-256: collisions among the callers of one process are negligible.
  return createHmac('sha256', HASH_KEY).update(key).digest('hex').slice(0, 16)
}

/**
 * The principal a refusal event reports for a caller counted under `principal` in `pool` (the
 * per-call facts hosts pass to `admit`, `admitNodeRequest`, `handle`, `SessionPool.reserve`):
 * - no principal: `undefined` (nothing is reported);
 * - in a pool (every anonymous caller, `ANONYMOUS_POOL`): `<pool>#<16 hex>`, the pool's name and
 *   a keyed hash of the key, never the address;
 * - outside a pool, an address key of `callerKeys()` (`ip:…`): `ip#<16 hex>`;
 * - otherwise the name the host chose (a credential's id or a tenant: hosts never pass a
 *   secret as a principal), or `#<16 hex>` when it is longer than 128 characters.
 * The hash key is random per process: equal within a process, unrelated across processes.
 */
export function refusalPrincipal(
  principal: string | undefined,
  pool?: string | undefined,
): string | undefined {
  if (typeof principal !== 'string' || principal.length === 0) return undefined
  if (typeof pool === 'string' && pool.length > 0) {
    return `${pool.slice(0, MAX_POOL)}#${keyedHash(principal)}`
  }
  if (principal.startsWith(ADDRESS_KEY)) return `ip#${keyedHash(principal)}`
  if (principal.length > MAX_NAMED) return `#${keyedHash(principal)}`
  return principal
}
