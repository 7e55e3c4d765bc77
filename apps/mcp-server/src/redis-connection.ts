import {
  connectRedis as connectClient,
  type RedisConnectionSettings,
} from '@tollgate/fleet-limits/redis'
import { createClient } from 'redis'
import type { Audit } from './audit.js'

/** A client of the `redis` package, as `createClient` makes it with fleet-limits' settings. */
const createStoreClient = (settings: RedisConnectionSettings) => createClient(settings)

/** A connected Redis client of the `redis` package. */
export type RedisConnection = ReturnType<typeof createStoreClient>

/**
 * Connects one Redis client for one of the server's stores (each store has its own client, so
 * they fail and recover independently and each audits its own outage), with fleet-limits'
 * `connectRedis`: no offline queue (a command while Redis is away fails at once, and the store
 * fails closed), one `redis_unavailable` audit line per outage (not one per reconnection attempt)
 * and one `redis_recovered` when it is back, each naming the `store`, as the gateway writes them;
 * the URL is never written.
 * @throws TypeError naming `--redis-url` when Redis cannot be reached within about 2 seconds.
 */
export async function connectRedis(
  url: string,
  audit: Audit,
  store: 'continuation' | 'capability' | 'limit',
): Promise<RedisConnection> {
  return connectClient(createStoreClient, url, {
    name: '--redis-url',
    onOutage: (outage) =>
      outage.state === 'started'
        ? audit('redis_unavailable', { store, error: outage.errorName })
        : audit('redis_recovered', { store }),
  })
}
