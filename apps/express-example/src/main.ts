// Listens on PORT/HOST. With REDIS_URL (and FLEET_INSTANCES, the number of instances) the
// instance joins a fleet: each client address's concurrent bodies are counted on that Redis
// across every instance. The URL is never logged.
import type { AddressInfo } from 'node:net'
import { createApp } from './app.js'
import { type Fleet, fleetSettingsFromEnv, openFleet } from './fleet.js'

const port = Number(process.env.PORT ?? 3000)
const host = process.env.HOST ?? '127.0.0.1'

let fleet: Fleet | undefined
try {
  const settings = fleetSettingsFromEnv(process.env)
  fleet = settings === undefined ? undefined : await openFleet(settings)
} catch (error) {
  // A start-up error names the variable (never its value) and the process exits.
  console.error(`notes API cannot start: ${error instanceof Error ? error.message : 'error'}`)
  process.exit(1)
}

const server = createApp(fleet === undefined ? {} : { fleetBodies: fleet.bodies }).listen(
  port,
  host,
  () => {
    const { port: bound } = server.address() as AddressInfo
    const shared = fleet === undefined ? '' : ' (body counts shared on Redis)'
    console.log(`notes API on http://${host}:${bound}${shared}`)
  },
)

// On SIGTERM/SIGINT: stop taking connections, cut the ones left, and close the Redis client
// once the commands already sent have answered. A lease whose release does not reach Redis
// expires there within 30 s (fleet-limits' leaseMs), so another instance admits the address.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close()
    server.closeAllConnections()
    setImmediate(() => {
      void (fleet?.close() ?? Promise.resolve()).finally(() => process.exit(0))
    })
  })
}
