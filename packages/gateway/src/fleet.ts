// A gateway that runs as one of several instances: with a Redis URL (`--redis-url`, or the
// config's `redisUrl`, which `ps` does not show), the per-principal limiter and the count of
// session-era sessions per principal are decided on that Redis, so the fleet holds each caller
// to one set of limits. The sessions' rule while Redis cannot answer: a local share,
// `limit ÷ --fleet-instances` per instance, as for calls in flight (an open session costs this
// process memory, and refusing every `initialize` would turn a Redis outage into an outage). The `redis` client is imported
// only then: a gateway without a Redis loads none of it.

import { createConcurrencyLimit, type OutageEvent } from '@tollgate/fleet-limits'
import type { GatewayControls } from './gateway.js'
import { httpSessions } from './http-sessions.js'
import type { GatewayLog } from './log.js'
import { redisPinStore } from './pins-redis.js'
import { sharedLimiter } from './shared-limiter.js'

/** Prefix of every key the gateway's limits write, so they share a Redis with anything else. */
export const GATEWAY_LIMIT_KEY_PREFIX = 'tollgate:gateway:limits:'

/** An open connection to the fleet's Redis; `close()` it when the gateway stops. */
export interface FleetConnection {
  readonly controls: GatewayControls
  close(): Promise<void>
}

/** How the fleet shares its limits: its size, and how long a dead instance's lease lasts. */
export interface FleetShape {
  /** Instances sharing the Redis (`--fleet-instances`): each limit's local share is `limit ÷ n`. */
  readonly instances: number
  /** Milliseconds a lease outlives an instance killed while holding it (`--fleet-lease-ms`). */
  readonly leaseMs: number
  /** The name of the fleet's pins in Redis (`--pins redis:<name>`), if they live there. */
  readonly pinsName?: string | undefined
}

/**
 * Connects to the Redis at `url` and returns `controls` with the limiter and the sessions'
 * per-principal count replaced by fleet-wide ones (`shape.instances` sets each limit's local
 * share during an outage). The URL is
 * never logged; the connection's outage is logged once as `redis_unavailable`, its end once as
 * `redis_recovered`.
 * @throws TypeError (`--redis-url: Redis cannot be reached`) when Redis does not answer within
 *   about 2 seconds: a gateway that cannot reach its Redis does not start.
 */
export async function joinFleet(
  url: string,
  controls: GatewayControls,
  shape: FleetShape,
  log: GatewayLog,
): Promise<FleetConnection> {
  const [{ createClient }, { connectRedis, redisLimitStore }] = await Promise.all([
    import('redis'),
    import('@tollgate/fleet-limits/redis'),
  ])
  // A command while Redis is away fails at once, and the limit's rule decides.
  const client = await connectRedis(createClient, url, {
    name: '--redis-url',
    onOutage: (outage) =>
      log(outage.state === 'started' ? 'redis_unavailable' : 'redis_recovered', {}),
  })
  const store = redisLimitStore({ client, prefix: GATEWAY_LIMIT_KEY_PREFIX })
  const limits = controls.config.limits
  const onOutage = (event: OutageEvent) =>
    controls.audit.event(
      event.state === 'started' ? 'limit_store_unavailable' : 'limit_store_recovered',
      { limit: event.name },
    )
  const limiter = sharedLimiter({
    store,
    instances: shape.instances,
    leaseMs: shape.leaseMs,
    ...(limits.concurrentPerPrincipal === undefined
      ? {}
      : { concurrentPerPrincipal: limits.concurrentPerPrincipal }),
    ...(limits.ratePerMinute === undefined ? {} : { ratePerMinute: limits.ratePerMinute }),
    ...(limits.burst === undefined ? {} : { burst: limits.burst }),
    onOutage,
  })
  const local = controls.sessions.policy
  const sessions = httpSessions({
    maxSessions: local.maxSessions,
    maxSessionsPerPrincipal: local.maxSessionsPerPrincipal,
    maxAnonymousSessions: local.maxAnonymousSessions,
    idleMs: local.idleMs,
    instanceTag: local.instanceTag,
    leases: createConcurrencyLimit({
      store,
      name: 'gateway.sessions',
      limit: local.maxSessionsPerPrincipal,
      leaseMs: shape.leaseMs,
      onUnavailable: { local: { instances: shape.instances } },
      onOutage,
    }),
  })
  void controls.sessions.closeAll()
  let pinsDown = false
  const pins =
    shape.pinsName === undefined
      ? controls.pins
      : redisPinStore({
          client,
          name: shape.pinsName,
          // Logged once per outage (the client's `ready` ends it).
          onUnavailable: () => {
            if (pinsDown) return
            pinsDown = true
            controls.audit.event('pins_store_unavailable', {})
          },
        })
  client.on('ready', () => {
    pinsDown = false
  })
  log('fleet_limits', { store: 'redis', instances: shape.instances })
  return {
    controls: Object.freeze({ ...controls, limiter, sessions, pins }),
    close: async () => {
      client.destroy()
    },
  }
}
