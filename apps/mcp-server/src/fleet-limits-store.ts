// Opens the fleet-wide limits on the server's Redis (`--redis-url`), on a client of their own,
// so the limits fail and recover apart from the continuation and capability stores.
import type { LimitStore } from '@tollgate/fleet-limits'
import { redisLimitStore } from '@tollgate/fleet-limits/redis'
import type { Audit } from './audit.js'
import { type StoreHealth, storeHealth } from './health.js'
import { connectRedis } from './redis-connection.js'
import { type SharedLimits, type SharedLimitsOptions, sharedLimits } from './shared-quota.js'

/** Prefix of every key the limits write, so they share a Redis with anything else. */
export const LIMIT_KEY_PREFIX = 'tollgate:mcp-server:limits:'

/** The instance's fleet-wide limits, what `/readyz` asks of their store, and their close. */
export interface OpenedSharedLimits {
  readonly shared: SharedLimits
  /** Whether the limits' Redis answered its last PING (for `/readyz`). */
  readonly health: StoreHealth
  /**
   * Waits for every store command already started (the releases of the leases a drain just
   * ended above all, so another instance admits the principal at once rather than after
   * `--fleet-lease-ms`), then closes the client.
   */
  close(): Promise<void>
}

/**
 * The store, counting its commands in flight so a close can wait for them: a lease's release
 * is started when its request ends and nobody awaits it, and a client destroyed under it would
 * leave the lease in Redis until it expires.
 */
function settlingStore(store: LimitStore): { store: LimitStore; settle: () => Promise<void> } {
  const pending = new Set<Promise<unknown>>()
  const track = <T>(p: Promise<T>): Promise<T> => {
    pending.add(p)
    const forget = () => pending.delete(p)
    p.then(forget, forget)
    return p
  }
  return {
    store: Object.freeze({
      kind: store.kind,
      acquire: (r) => track(store.acquire(r)),
      renew: (l) => track(store.renew(l)),
      release: (l) => track(store.release(l)),
      take: (r) => track(store.take(r)),
    } satisfies LimitStore),
    settle: async () => {
      // A settled command can start another (a refused take releases its lease): loop.
      while (pending.size > 0) await Promise.allSettled([...pending])
    },
  }
}

/**
 * The instance's fleet-wide limits on the Redis at `redisUrl`, or `undefined` with no URL (each
 * instance then counts in its memory, as before). The URL is never written anywhere.
 * @throws TypeError naming `--redis-url` when Redis cannot be reached within about 2 seconds.
 */
export async function openSharedLimits(
  redisUrl: string | undefined,
  audit: Audit,
  figures: Omit<SharedLimitsOptions, 'store' | 'audit'>,
): Promise<OpenedSharedLimits | undefined> {
  if (redisUrl === undefined) return undefined
  const client = await connectRedis(redisUrl, audit, 'limit')
  const { store, settle } = settlingStore(redisLimitStore({ client, prefix: LIMIT_KEY_PREFIX }))
  return Object.freeze({
    shared: sharedLimits({ ...figures, store, audit }),
    health: storeHealth(() => client.ping()),
    close: async () => {
      await settle()
      client.destroy()
    },
  })
}
