#!/usr/bin/env node
import { GatewayUsageError, gatewayHelp, parseGatewayArgs } from './cli-options.js'
import { gatewayControls, startGateway } from './gateway.js'
import { gatewayLog } from './log.js'

async function main(): Promise<void> {
  let cli: ReturnType<typeof parseGatewayArgs>
  try {
    cli = parseGatewayArgs(process.argv.slice(2))
  } catch (error) {
    if (error instanceof GatewayUsageError) {
      process.stderr.write(`tollgate-gateway: ${error.message}\n`)
      process.exit(2)
    }
    throw error
  }
  if (cli === 'help') {
    process.stdout.write(gatewayHelp())
    return
  }
  let controls: ReturnType<typeof gatewayControls>
  try {
    controls = gatewayControls(cli)
  } catch (error) {
    const e = error as { code?: unknown; message?: unknown }
    process.stderr.write(
      `tollgate-gateway: ${typeof e.message === 'string' ? e.message : 'bad configuration'}\n`,
    )
    process.exit(2)
  }
  const log = gatewayLog()
  const gateway = await startGateway(cli, controls, log)
  let stopping = false
  const stop = (signal: string): void => {
    if (stopping) return
    stopping = true
    log('stopping', { signal })
    gateway.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
  void gateway.done.then(() => stop('stdin-end'))
  // Announced once the signals are handled, so a supervisor that stops the gateway as soon as
  // it is up finds the drain in place.
  if (gateway.port !== undefined) log('listening', { host: cli.host, port: gateway.port })
}

main().catch(() => {
  process.stderr.write('tollgate-gateway: failed to start\n')
  process.exit(1)
})
