// One way to open the Redis connection a shared store runs on, for every host that has one (the
// reference server's stores, the gateway's limiter). The `redis` package is not imported: the
// host passes its `createClient`, so this package gains no dependency and the client keeps the
// host's exact type.

import { defineOptions, functionOption, integerOption, option } from '@tollgate/json-budget'

/** The settings {@link connectRedis} gives `createClient`. */
export interface RedisConnectionSettings {
  readonly url: string
  /** Always `true`: a command while Redis is away fails at once and the store's rule decides. */
  readonly disableOfflineQueue: true
  readonly socket: {
    readonly connectTimeout: number
    readonly reconnectStrategy: (retries: number) => number | Error
  }
}

/** The part of a node-redis client {@link connectRedis} uses (`createClient()` fits). */
export interface ConnectableRedisClient {
  on(event: 'error', listener: (error: unknown) => void): unknown
  on(event: 'ready', listener: () => void): unknown
  connect(): Promise<unknown>
  destroy(): void
}

/** An outage of a connection that was up: `started` once when it drops, `ended` once when back. */
export type RedisOutage =
  | { readonly state: 'started'; readonly errorName: string }
  | { readonly state: 'ended' }

function nameOption(value: unknown, name: string): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) {
    throw new TypeError(`${name} must be a string of 1 to 64 characters`)
  }
}

/** The options of {@link connectRedis}, declared once. */
export const REDIS_CONNECTION_OPTIONS = defineOptions('connectRedis', {
  startAttempts: option({
    default: 10,
    check: integerOption(),
    ceiling: 1000,
    doc: 'retries to reach Redis at start, one every 200 ms, before start-up fails',
  }),
  connectTimeoutMs: option({
    default: 2000,
    check: integerOption(),
    ceiling: 60_000,
    doc: 'longest wait for one connection attempt, in ms',
  }),
  maxReconnectDelayMs: option({
    default: 2000,
    check: integerOption(),
    ceiling: 60_000,
    doc: 'longest wait between two reconnection attempts once Redis has been up, in ms',
  }),
  name: option({
    default: 'redis',
    check: nameOption,
    doc: 'what the start-up error names (a flag such as `--redis-url`); never the URL',
  }),
  onOutage: option<(outage: RedisOutage) => void>({
    default: () => {},
    check: functionOption,
    shown: 'ignore',
    doc: 'told once when a connection that was up drops, and once when it is back',
  }),
})

/** Options of {@link connectRedis}; every one optional. */
export interface RedisConnectionOptions {
  readonly startAttempts?: number | undefined
  readonly connectTimeoutMs?: number | undefined
  readonly maxReconnectDelayMs?: number | undefined
  readonly name?: string | undefined
  readonly onOutage?: ((outage: RedisOutage) => void) | undefined
}

/**
 * Connects a client made by `createClient` (the `redis` package's) to `url`. Start-up retries
 * `startAttempts` times, every 200 ms (about 2 seconds by default), then fails; once up, the
 * client reconnects for ever, waiting 100 ms more per attempt up to `maxReconnectDelayMs`. No
 * offline queue: a command while Redis is away fails at once, and the store's failure rule
 * decides. An outage is reported once to `onOutage` (not once per reconnection attempt), its
 * end once; the URL is never reported.
 * @throws TypeError naming the option, for a bad option (before any connection is tried).
 * @throws TypeError `<name>: Redis cannot be reached` when start-up fails; the client is
 *   destroyed first.
 */
export async function connectRedis<C extends ConnectableRedisClient>(
  createClient: (settings: RedisConnectionSettings) => C,
  url: string,
  options: RedisConnectionOptions = {},
): Promise<C> {
  const policy = REDIS_CONNECTION_OPTIONS.resolve(options)
  let connected = false
  let down = false
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: policy.connectTimeoutMs,
      reconnectStrategy: (retries: number) => {
        if (!connected)
          return retries >= policy.startAttempts ? new Error('redis unreachable') : 200
        return Math.min(100 * (retries + 1), policy.maxReconnectDelayMs)
      },
    },
  })
  client.on('error', (error: unknown) => {
    if (down || !connected) return
    down = true
    policy.onOutage({
      state: 'started',
      errorName: error instanceof Error ? error.name : 'unknown',
    })
  })
  client.on('ready', () => {
    if (down) policy.onOutage({ state: 'ended' })
    down = false
  })
  try {
    await client.connect()
  } catch {
    try {
      client.destroy()
    } catch {
      // already closed by the reconnection strategy
    }
    throw new TypeError(`${policy.name}: Redis cannot be reached`)
  }
  connected = true
  return client
}
