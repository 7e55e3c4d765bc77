import { isRedisUrl } from './address-checks.js'
import { childUpstream } from './child-upstream.js'
import { GatewayUsageError } from './cli-usage.js'
import { loadGatewayConfig } from './config.js'
import { httpUpstream } from './http-upstream.js'
import type { GatewayLog } from './log.js'
import { pinStore } from './pins.js'
import { redisPinStore, redisPinsName } from './pins-redis.js'
import { readUpstreamTools } from './tool-catalog.js'
import type { UpstreamTool } from './tool-guard.js'
import type { Upstream } from './upstream.js'

/** What `tollgate-gateway pins approve …` was asked to do. */
export interface PinsApproveArgs {
  /** A pin file, or `redis:<name>` for the fleet's pins in Redis. */
  readonly pins: string
  /** The Redis of `redis:` pins (`--redis-url`; else the `--config` file's `redisUrl`). */
  readonly redisUrl?: string | undefined
  /** A gateway config file, read only for its `redisUrl`. */
  readonly config?: string | undefined
  /** The tools to approve; empty approves every tool the upstream lists now. */
  readonly tools: readonly string[]
  readonly upstream: string | undefined
  readonly command: readonly string[]
}

/**
 * Parses `pins approve --pins <file | redis:<name>> [--redis-url <url> | --config <file>]
 * [--tool <name>]… (-- <command> [args…] | --upstream <url>)`.
 * @throws GatewayUsageError on a missing `--pins`, an unknown option, or neither or both upstreams.
 */
export function parsePinsApproveArgs(argv: readonly string[]): PinsApproveArgs {
  let pins: string | undefined
  let upstream: string | undefined
  let redisUrl: string | undefined
  let config: string | undefined
  const tools: string[] = []
  let command: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--') {
      command = argv.slice(i + 1) as string[]
      break
    }
    const value = argv[i + 1]
    if (value === undefined) throw new GatewayUsageError(`${arg} needs a value`)
    if (arg === '--pins') pins = value
    else if (arg === '--tool') tools.push(value)
    else if (arg === '--upstream') upstream = value
    else if (arg === '--redis-url') redisUrl = value
    else if (arg === '--config') config = value
    else
      throw new GatewayUsageError(
        'pins approve takes --pins, --tool, --upstream, --redis-url, --config and -- <command>',
      )
    i++
  }
  if (pins === undefined) throw new GatewayUsageError('pins approve needs --pins <file>')
  if ((command.length === 0) === (upstream === undefined)) {
    throw new GatewayUsageError('name the upstream: -- <command> [args…] or --upstream <url>')
  }
  if (redisUrl !== undefined && !isRedisUrl(redisUrl)) {
    throw new GatewayUsageError('--redis-url must be a redis: or rediss: URL')
  }
  return Object.freeze({
    pins,
    redisUrl,
    config,
    tools: Object.freeze(tools),
    upstream,
    command: Object.freeze(command),
  })
}

/**
 * The operator's approval step: connects to the upstream as the gateway does, reads its
 * current `tools/list`, and approves those definitions in the pin file (all, or the named
 * tools). A running gateway reads the file at its next judgment (the next `list_changed` or
 * restart), so approval needs no restart.
 * @returns the names approved.
 * @throws GatewayUsageError when the upstream cannot be reached or listed; PinsFileError when
 *   the pin file cannot be written or a named tool is neither listed nor pinned.
 */
export async function approvePins(
  args: PinsApproveArgs,
  log: GatewayLog,
): Promise<readonly string[]> {
  const upstream: Upstream =
    args.upstream === undefined
      ? childUpstream({
          command: args.command,
          maxLineBytes: 64 * 1024 * 1024,
          maxConcurrentCalls: 1,
          callTimeoutMs: 60_000,
          restartBackoffMs: 1,
          maxRestartBackoffMs: 1,
          stableUptimeMs: 60_000,
          breakerCrashes: 1,
          maxStderrLineBytes: 4096,
          log,
        })
      : httpUpstream({
          url: args.upstream,
          maxLineBytes: 64 * 1024 * 1024,
          maxConcurrentCalls: 1,
          callTimeoutMs: 60_000,
          log,
        })
  try {
    await upstream.start()
    const tools =
      upstream.handshake === undefined ? undefined : await readUpstreamTools(upstream, log)
    if (tools === undefined)
      throw new GatewayUsageError('the upstream could not be initialized and listed')
    await approveIn(args, tools)
    return args.tools.length === 0 ? tools.map((t) => t.name) : args.tools
  } finally {
    await upstream.close()
  }
}

// The approval lands where the gateways read their pins: the file, or the fleet's Redis (one
// script, so an approval racing another operator's loses neither).
async function approveIn(args: PinsApproveArgs, tools: readonly UpstreamTool[]): Promise<void> {
  const names = args.tools.length === 0 ? undefined : args.tools
  const name = redisPinsName(args.pins)
  if (name === undefined) {
    pinStore({ file: args.pins }).approve(tools, names)
    return
  }
  const url =
    args.redisUrl ??
    (args.config === undefined ? undefined : loadGatewayConfig(args.config).redisUrl)
  if (url === undefined) {
    throw new GatewayUsageError('--pins redis:<name> needs --redis-url (or redisUrl in --config)')
  }
  const { createClient } = await import('redis')
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2000, reconnectStrategy: false },
  })
  client.on('error', () => {})
  try {
    await client.connect()
  } catch {
    // The URL is not echoed: it may hold a password.
    throw new GatewayUsageError('--redis-url: Redis cannot be reached')
  }
  try {
    await redisPinStore({ client, name }).approve(tools, names)
  } finally {
    client.destroy()
  }
}
