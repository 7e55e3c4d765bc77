// The example as one of several instances behind a load balancer: with a Redis URL, each
// client address's concurrent bodies are counted on Redis, so N instances no longer give one
// address N times its bodies. Byte shares stay per instance (they guard one process's memory).
import {
  type ConcurrencyLimit,
  createConcurrencyLimit,
  type LimitStore,
  type OutageEvent,
} from '@tollgate/fleet-limits'
import {
  connectRedis,
  type RedisConnectionSettings,
  redisLimitStore,
} from '@tollgate/fleet-limits/redis'
import { createClient } from 'redis'

/**
 * Bodies one principal (client address) has in flight across the whole fleet: 8, the same as
 * http-admission's per-process `maxBodiesPerPrincipal`, so a fleet of one behaves as before.
 */
export const FLEET_BODIES_PER_PRINCIPAL = 8

/** Prefix of every key the example writes to Redis, so it can share a Redis with anything else. */
export const FLEET_KEY_PREFIX = 'tollgate:express-example:limits:'

/** The largest `FLEET_INSTANCES` taken. */
const MAX_INSTANCES = 1000

/** What main reads from the environment to join a fleet. */
export interface FleetSettings {
  /** `REDIS_URL`: `redis://` or `rediss://`, ACL user and password in the URL. Never logged. */
  readonly redisUrl: string
  /** `FLEET_INSTANCES`: how many instances share the Redis (each keeps `8 ÷ instances` in an outage). */
  readonly instances: number
}

/**
 * Reads `REDIS_URL` and `FLEET_INSTANCES` (default 1) from `env`: `undefined` without a
 * `REDIS_URL` (each instance then counts alone, as before).
 * @throws TypeError naming the variable: `FLEET_INSTANCES` not a whole number from 1 to 1,000,
 *   or set without `REDIS_URL`; a `REDIS_URL` that is not a `redis:` or `rediss:` URL (the
 *   message never holds the value).
 */
export function fleetSettingsFromEnv(env: NodeJS.ProcessEnv): FleetSettings | undefined {
  const url = env.REDIS_URL
  const count = env.FLEET_INSTANCES
  if (url === undefined || url === '') {
    if (count !== undefined && count !== '') {
      throw new TypeError('FLEET_INSTANCES is set but REDIS_URL is not')
    }
    return undefined
  }
  if (!/^rediss?:\/\//i.test(url)) {
    throw new TypeError('REDIS_URL must be a redis:// or rediss:// URL')
  }
  let instances = 1
  if (count !== undefined && count !== '') {
    instances = /^[1-9][0-9]{0,3}$/.test(count) ? Number(count) : 0
    if (instances < 1 || instances > MAX_INSTANCES) {
      throw new TypeError(`FLEET_INSTANCES must be a whole number from 1 to ${MAX_INSTANCES}`)
    }
  }
  return Object.freeze({ redisUrl: url, instances })
}

/** Options of {@link createFleetBodies}. */
export interface FleetBodiesOptions {
  /** Where the leases live: `redisLimitStore()` for a fleet (`memoryLimitStore()` counts alone). */
  readonly store: LimitStore
  /** Instances sharing the store: while it is unreachable each admits `max(1, floor(8 ÷ instances))`. */
  readonly instances: number
  /** Told once when the store becomes unreachable and once when it answers again. Default: ignore. */
  readonly onOutage?: (event: OutageEvent) => void
}

/**
 * The fleet-wide body count `createApp({ fleetBodies })` takes: 8 concurrent bodies per client
 * address across every instance on the store; a refusal is 503 `ERR_ADMISSION_PRINCIPAL_BUSY`
 * (limit 8), before a byte of the body is read. While the store is unreachable it decides in the
 * process on its local share (fleet-limits' default rule for concurrency), never unlimited.
 * @throws TypeError naming the option, for a bad `instances` (checked by the limit).
 */
export function createFleetBodies(options: FleetBodiesOptions): ConcurrencyLimit {
  return createConcurrencyLimit({
    store: options.store,
    name: 'express-example.bodies',
    limit: FLEET_BODIES_PER_PRINCIPAL,
    onUnavailable: { local: { instances: options.instances } },
    ...(options.onOutage === undefined ? {} : { onOutage: options.onOutage }),
  })
}

/** A connected client of the `redis` package, made with fleet-limits' settings. */
const createStoreClient = (settings: RedisConnectionSettings) => createClient(settings)

/** The instance's place in the fleet: its body count on Redis, and how to leave. */
export interface Fleet {
  /** The fleet-wide body count, for `createApp({ fleetBodies })`. */
  readonly bodies: ConcurrencyLimit
  /** Waits for the store's commands in flight (lease releases), then closes the client. */
  close(): Promise<void>
}

/** Options of {@link openFleet}. */
export interface OpenFleetOptions {
  /** Receives one line per outage edge (never the URL). Default: `console.warn`. */
  readonly log?: (line: string) => void
  /** Attempts to reach Redis at start, one every 200 ms. Default: 10 (about 2 seconds). */
  readonly startAttempts?: number
}

/**
 * Connects to the Redis of `settings` (no offline queue: while Redis is away a decision fails at
 * once and the limit's rule decides) and builds the fleet-wide body count on it. The URL is never
 * written anywhere.
 * @throws TypeError `REDIS_URL: Redis cannot be reached` when start-up cannot reach it.
 */
export async function openFleet(
  settings: FleetSettings,
  options: OpenFleetOptions = {},
): Promise<Fleet> {
  const log = options.log ?? ((line: string) => console.warn(line))
  const client = await connectRedis(createStoreClient, settings.redisUrl, {
    name: 'REDIS_URL',
    ...(options.startAttempts === undefined ? {} : { startAttempts: options.startAttempts }),
    onOutage: (outage) =>
      log(
        outage.state === 'started'
          ? `redis connection lost (${outage.errorName}); reconnecting`
          : 'redis connection back',
      ),
  })
  const bodies = createFleetBodies({
    store: redisLimitStore({ client, prefix: FLEET_KEY_PREFIX }),
    instances: settings.instances,
    onOutage: (event) =>
      log(
        event.state === 'started'
          ? `limit ${event.name}: Redis unreachable, each instance admits its local share`
          : `limit ${event.name}: Redis answers again, counting across the fleet`,
      ),
  })
  return Object.freeze({
    bodies,
    close: async () => {
      try {
        await client.close()
      } catch {
        client.destroy()
      }
    },
  })
}
