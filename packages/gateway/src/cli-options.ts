import { isLoopback, isRedisUrl } from './address-checks.js'
import { GATEWAY_CLI_OPTIONS, type GatewayCliOptionSpec } from './cli-option-table.js'
import { GatewayUsageError } from './cli-usage.js'

/** What the command line resolves to: every option filled, frozen. */
export interface GatewayCliOptions {
  readonly host: string
  readonly port: number
  readonly stdio: boolean
  readonly upstream: string | undefined
  readonly config: string | undefined
  readonly pins: string | undefined
  readonly maxBodyBytes: number
  readonly maxLineBytes: number
  readonly maxResultBytes: number
  readonly maxConcurrentCalls: number
  readonly callTimeoutMs: number
  readonly drainTimeoutMs: number
  readonly restartBackoffMs: number
  readonly maxRestartBackoffMs: number
  readonly stableUptimeMs: number
  readonly breakerCrashes: number
  readonly maxStderrLineBytes: number
  /** Redis shared by the fleet (or the config's `redisUrl`); never logged. */
  readonly redisUrl: string | undefined
  /** Instances sharing that Redis: the local share of a limit during an outage is `limit ÷ n`. */
  readonly fleetInstances: number
  /** Milliseconds a fleet lease (a call in flight, a session) outlives a gateway killed with it. */
  readonly fleetLeaseMs: number
  /** Session-era sessions one principal holds (across the fleet with a Redis). */
  readonly maxSessionsPerPrincipal: number
  /** Session-era sessions this process holds, every principal together. */
  readonly maxSessions: number
  /** Of those, the sessions every anonymous caller together holds (each a quarter at most). */
  readonly maxAnonymousSessions: number
  /** The child's command and arguments (everything after `--`); empty with `--upstream`. */
  readonly command: readonly string[]
}

/**
 * Parses `tollgate-gateway [options] -- <command> [args…]` (or `--upstream <url>`).
 * @returns the options, or `'help'` when `--help` was given.
 * @throws GatewayUsageError on an unknown option, a bad value, neither or both of a command and
 *   `--upstream`, or a non-loopback `--host` without `--config`.
 */
export function parseGatewayArgs(argv: readonly string[]): GatewayCliOptions | 'help' {
  const values: Record<string, unknown> = {}
  for (const spec of GATEWAY_CLI_OPTIONS) values[spec.key] = spec.value
  let i = 0
  let command: string[] = []
  while (i < argv.length) {
    const arg = argv[i] as string
    i += 1
    if (arg === '--') {
      command = argv.slice(i) as string[]
      break
    }
    if (arg === '--help' || arg === '-h') return 'help'
    const eq = arg.indexOf('=')
    const flag = eq === -1 ? arg : arg.slice(0, eq)
    const spec = GATEWAY_CLI_OPTIONS.find((s) => s.flag === flag)
    if (spec === undefined)
      throw new GatewayUsageError(`unknown option ${bounded(flag)} (see --help)`)
    if (spec.kind === 'flag') {
      if (eq !== -1) throw new GatewayUsageError(`${spec.flag} takes no value`)
      values[spec.key] = true
      continue
    }
    let raw: string | undefined
    if (eq !== -1) raw = arg.slice(eq + 1)
    else {
      raw = argv[i]
      i += 1
    }
    if (raw === undefined) throw new GatewayUsageError(`${spec.flag} needs a value`)
    values[spec.key] = spec.kind === 'integer' ? integer(spec, raw) : raw
  }
  const options = { ...values, command: Object.freeze(command) } as unknown as GatewayCliOptions
  if (command.length === 0 && options.upstream === undefined) {
    throw new GatewayUsageError('name the upstream: -- <command> [args…] or --upstream <url>')
  }
  if (command.length > 0 && options.upstream !== undefined) {
    throw new GatewayUsageError('give either -- <command> or --upstream, not both')
  }
  if (options.upstream !== undefined) {
    let url: URL | undefined
    try {
      url = new URL(options.upstream)
    } catch {
      url = undefined
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new GatewayUsageError('--upstream must be an http: or https: URL')
    }
  }
  if (options.redisUrl !== undefined && !isRedisUrl(options.redisUrl)) {
    // The value is not echoed: it may hold a password.
    throw new GatewayUsageError('--redis-url must be a redis: or rediss: URL')
  }
  // Without a config every caller is anonymous: only loopback may reach it.
  if (!options.stdio && options.config === undefined && !isLoopback(options.host)) {
    throw new GatewayUsageError(
      '--host is not a loopback address: without --config the gateway serves anonymous callers, so it listens on loopback only',
    )
  }
  if (options.maxRestartBackoffMs < options.restartBackoffMs) {
    throw new GatewayUsageError('--max-restart-backoff-ms may not be below --restart-backoff-ms')
  }
  return Object.freeze(options)
}

function integer(spec: GatewayCliOptionSpec, raw: string): number {
  const n = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN
  if (
    !Number.isSafeInteger(n) ||
    n < (spec.min ?? 0) ||
    n > (spec.max ?? Number.MAX_SAFE_INTEGER)
  ) {
    throw new GatewayUsageError(
      `${spec.flag} must be an integer from ${spec.min ?? 0} to ${spec.max ?? Number.MAX_SAFE_INTEGER}`,
    )
  }
  return n
}

function bounded(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text
}
