// Opens the fleet-wide limits on the server's Redis (`--redis-url`), on a client of their own,
// so the limits fail and recover apart from the continuation and capability stores.
import { redisLimitStore } from '@tollgate/fleet-limits/redis'
import type { Audit } from './audit.js'
import { connectRedis } from './redis-connection.js'
import { type SharedLimits, type SharedLimitsOptions, sharedLimits } from './shared-quota.js'

/** Prefix of every key the limits write, so they share a Redis with anything else. */
export const LIMIT_KEY_PREFIX = 'tollgate:mcp-server:limits:'

/**
 * The instance's fleet-wide limits on the Redis at `redisUrl`, or `undefined` with no URL (each
 * instance then counts in its memory, as before). The URL is never written anywhere.
 * @throws TypeError naming `--redis-url` when Redis cannot be reached within about 2 seconds.
 */
export async function openSharedLimits(
  redisUrl: string | undefined,
  audit: Audit,
  figures: Omit<SharedLimitsOptions, 'store' | 'audit'>,
): Promise<{ shared: SharedLimits; close: () => Promise<void> } | undefined> {
  if (redisUrl === undefined) return undefined
  const client = await connectRedis(redisUrl, audit, 'limit_store')
  const store = redisLimitStore({ client, prefix: LIMIT_KEY_PREFIX })
  return {
    shared: sharedLimits({ ...figures, store, audit }),
    close: async () => {
      client.destroy()
    },
  }
}
