import { createClient } from 'redis'
import type { Audit } from './audit.js'

/** Tries to reach Redis at start before giving up (one try every 200 ms: about 2 seconds). */
const START_ATTEMPTS = 10

/** Longest wait between two reconnection attempts once the server has been up. */
const MAX_RECONNECT_DELAY_MS = 2000

function createStoreClient(url: string, isConnected: () => boolean) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 2000,
      reconnectStrategy: (retries: number) => {
        if (!isConnected() && retries >= START_ATTEMPTS) return new Error('redis unreachable')
        return isConnected() ? Math.min(100 * (retries + 1), MAX_RECONNECT_DELAY_MS) : 200
      },
    },
  })
}

/** A connected Redis client of the `redis` package. */
export type RedisConnection = ReturnType<typeof createStoreClient>

/**
 * Connects one Redis client for one of the server's stores (each store has its own client, so
 * they fail and recover independently and each audits its own outage). No offline queue: a
 * command while Redis is away fails at once, and the store fails closed. One
 * `<event>_error` audit line per outage (not one per reconnection attempt) and one
 * `<event>_recovered` when it is back; the URL is never written.
 * @throws TypeError naming `--redis-url` when Redis cannot be reached within about 2 seconds.
 */
export async function connectRedis(
  url: string,
  audit: Audit,
  event: 'continuation_store' | 'capability_store' | 'limit_store',
): Promise<RedisConnection> {
  let connected = false
  let reported = false
  const client = createStoreClient(url, () => connected)
  client.on('error', (error: unknown) => {
    if (reported || !connected) return
    reported = true
    audit(`${event}_error`, {
      store: 'redis',
      error: error instanceof Error ? error.name : 'unknown',
    })
  })
  client.on('ready', () => {
    if (reported) audit(`${event}_recovered`, { store: 'redis' })
    reported = false
  })
  try {
    await client.connect()
  } catch {
    try {
      client.destroy()
    } catch {
      // already closed by the reconnection strategy
    }
    throw new TypeError('--redis-url: Redis cannot be reached')
  }
  connected = true
  return client
}
