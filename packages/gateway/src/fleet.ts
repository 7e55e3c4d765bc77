// A gateway that runs as one of several instances: with a Redis URL (`--redis-url`, or the
// config's `redisUrl`, which `ps` does not show), the per-principal limiter is decided on that
// Redis, so the fleet holds each caller to one set of limits. The `redis` client is imported
// only then: a gateway without a Redis loads none of it.

import type { GatewayControls } from './gateway.js'
import type { GatewayLog } from './log.js'
import { sharedLimiter } from './shared-limiter.js'

/** Prefix of every key the gateway's limits write, so they share a Redis with anything else. */
export const GATEWAY_LIMIT_KEY_PREFIX = 'tollgate:gateway:limits:'

/** An open connection to the fleet's Redis; `close()` it when the gateway stops. */
export interface FleetConnection {
  readonly controls: GatewayControls
  close(): Promise<void>
}

/**
 * Connects to the Redis at `url` and returns `controls` with the limiter replaced by the
 * fleet-wide one (`fleetInstances` sets each limit's local share during an outage). The URL is
 * never logged; the connection's outage is logged once as `redis_unavailable`, its end once as
 * `redis_recovered`.
 * @throws TypeError (`--redis-url: Redis cannot be reached`) when Redis does not answer within
 *   about 2 seconds: a gateway that cannot reach its Redis does not start.
 */
export async function joinFleet(
  url: string,
  controls: GatewayControls,
  fleetInstances: number,
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
  const limiter = sharedLimiter({
    store,
    instances: fleetInstances,
    ...(limits.concurrentPerPrincipal === undefined
      ? {}
      : { concurrentPerPrincipal: limits.concurrentPerPrincipal }),
    ...(limits.ratePerMinute === undefined ? {} : { ratePerMinute: limits.ratePerMinute }),
    ...(limits.burst === undefined ? {} : { burst: limits.burst }),
    onOutage: (event) =>
      controls.audit.event(
        event.state === 'started' ? 'limiter_store_unavailable' : 'limiter_store_recovered',
        { limit: event.name },
      ),
  })
  log('fleet_limits', { store: 'redis', instances: fleetInstances })
  return {
    controls: Object.freeze({ ...controls, limiter }),
    close: async () => {
      client.destroy()
    },
  }
}
