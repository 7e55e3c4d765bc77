#!/usr/bin/env node
import { parseGatewayArgs } from './cli-options.js'
import { GatewayUsageError, gatewayHelp } from './cli-usage.js'
import { joinFleet } from './fleet.js'
import { gatewayControls, startGateway } from './gateway.js'
import { gatewayLog } from './log.js'
import { approvePins, parsePinsApproveArgs } from './pins-command.js'
import { redisPinsName } from './pins-redis.js'

async function main(): Promise<void> {
  if (process.argv[2] === 'pins' && process.argv[3] === 'approve') {
    await pinsApprove(process.argv.slice(4))
    return
  }
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
  const redisUrl = cli.redisUrl ?? controls.config.redisUrl
  const pinsName = redisPinsName(cli.pins)
  if (pinsName !== undefined && redisUrl === undefined) {
    process.stderr.write(
      'tollgate-gateway: --pins redis:<name> needs --redis-url (or redisUrl in --config)\n',
    )
    process.exit(2)
  }
  const fleet =
    redisUrl === undefined
      ? undefined
      : await joinFleet(
          redisUrl,
          controls,
          { instances: cli.fleetInstances, leaseMs: cli.fleetLeaseMs, pinsName },
          log,
        )
  const gateway = await startGateway(cli, fleet?.controls ?? controls, log)
  let stopping = false
  const stop = (signal: string): void => {
    if (stopping) return
    stopping = true
    log('stopping', { signal })
    gateway
      .stop()
      .then(() => fleet?.close())
      .then(
        () => exitFlushed(0),
        () => exitFlushed(1),
      )
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
  void gateway.done.then(() => stop('stdin-end'))
  // Announced once the signals are handled, so a supervisor that stops the gateway as soon as
  // it is up finds the drain in place.
  if (gateway.port !== undefined) log('listening', { host: cli.host, port: gateway.port })
}

/**
 * Exits once what was written to stdout and stderr has left the process: writes to a pipe are
 * asynchronous, so `process.exit()` straight after the last audit line can drop it. A write
 * callback runs after every earlier write on its stream; the timer only guards a stream that
 * never calls back.
 */
function exitFlushed(code: number): void {
  process.exitCode = code
  let pending = 2
  const done = (): void => {
    pending -= 1
    if (pending === 0) process.exit(code)
  }
  process.stdout.write('', done)
  process.stderr.write('', done)
  setTimeout(() => process.exit(code), 2000).unref()
}

main().catch((error: unknown) => {
  // A port already taken is the common start-up failure: name it, the port and the flag.
  const e = error as { code?: unknown; port?: unknown; address?: unknown }
  const taken = e !== null && typeof e === 'object' && e.code === 'EADDRINUSE'
  process.stderr.write(
    taken
      ? `tollgate-gateway: port ${String(e.port)} is already in use (EADDRINUSE on ${String(e.address)}:${String(e.port)}); stop the other process or choose another port with --port <n> (0 picks a free one)\n`
      : 'tollgate-gateway: failed to start\n',
  )
  process.exit(1)
})

async function pinsApprove(argv: readonly string[]): Promise<void> {
  try {
    const approved = await approvePins(parsePinsApproveArgs(argv), gatewayLog())
    process.stdout.write(`${JSON.stringify({ event: 'pins_approved', tools: approved })}\n`)
    process.exit(0)
  } catch (error) {
    const message = (error as { message?: unknown }).message
    process.stderr.write(
      `tollgate-gateway pins approve: ${typeof message === 'string' ? message : 'failed'}\n`,
    )
    process.exit(2)
  }
}
