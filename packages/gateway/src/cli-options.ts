import { isIP } from 'node:net'

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
  /** The child's command and arguments (everything after `--`); empty with `--upstream`. */
  readonly command: readonly string[]
}

type Kind = 'string' | 'integer' | 'flag'

interface OptionSpec {
  readonly flag: string
  readonly key: Exclude<keyof GatewayCliOptions, 'command'>
  readonly kind: Kind
  readonly value: string | number | boolean | undefined
  readonly min?: number
  readonly max?: number
  readonly doc: string
}

const MIB = 1024 * 1024

/**
 * Every option of `tollgate-gateway`, declared once: the parser, the defaults and `--help`
 * come from this table.
 */
export const GATEWAY_CLI_OPTIONS: readonly OptionSpec[] = Object.freeze([
  {
    flag: '--host',
    key: 'host',
    kind: 'string',
    value: '127.0.0.1',
    doc: 'address to listen on; a non-loopback address needs --config',
  },
  {
    flag: '--port',
    key: 'port',
    kind: 'integer',
    value: 3334,
    min: 0,
    max: 65535,
    doc: 'port to listen on (0 picks a free one)',
  },
  {
    flag: '--stdio',
    key: 'stdio',
    kind: 'flag',
    value: false,
    doc: 'serve one client over stdin/stdout instead of HTTP',
  },
  {
    flag: '--upstream',
    key: 'upstream',
    kind: 'string',
    value: undefined,
    doc: 'URL of a Streamable HTTP upstream (instead of -- <command>)',
  },
  {
    flag: '--config',
    key: 'config',
    kind: 'string',
    value: undefined,
    doc: 'JSON file of credentials, routes and limits',
  },
  {
    flag: '--pins',
    key: 'pins',
    kind: 'string',
    value: undefined,
    doc: 'file holding the pinned tool definitions (in memory without it)',
  },
  {
    flag: '--max-body-bytes',
    key: 'maxBodyBytes',
    kind: 'integer',
    value: 4 * MIB,
    min: 1,
    max: 64 * MIB,
    doc: 'largest HTTP POST body, in bytes',
  },
  {
    flag: '--max-line-bytes',
    key: 'maxLineBytes',
    kind: 'integer',
    value: 64 * MIB,
    min: 2,
    max: 64 * MIB,
    doc: 'largest stdio line, both directions (client and child), line ending included',
  },
  {
    flag: '--max-result-bytes',
    key: 'maxResultBytes',
    kind: 'integer',
    value: 64 * MIB,
    min: 2048,
    max: 64 * MIB,
    doc: 'largest tools/call or resources/read result (refused, never truncated)',
  },
  {
    flag: '--max-concurrent-calls',
    key: 'maxConcurrentCalls',
    kind: 'integer',
    value: 64,
    min: 1,
    max: 100_000,
    doc: 'most requests in flight to the upstream at once',
  },
  {
    flag: '--call-timeout-ms',
    key: 'callTimeoutMs',
    kind: 'integer',
    value: 60_000,
    min: 1,
    max: 86_400_000,
    doc: 'an upstream request unanswered after this is answered ERR_UPSTREAM_TIMEOUT',
  },
  {
    flag: '--drain-timeout-ms',
    key: 'drainTimeoutMs',
    kind: 'integer',
    value: 10_000,
    min: 0,
    max: 600_000,
    doc: 'on SIGTERM, how long in-flight calls may finish before the child is stopped',
  },
  {
    flag: '--restart-backoff-ms',
    key: 'restartBackoffMs',
    kind: 'integer',
    value: 250,
    min: 1,
    max: 600_000,
    doc: 'first delay before restarting a child that exited (doubles per crash)',
  },
  {
    flag: '--max-restart-backoff-ms',
    key: 'maxRestartBackoffMs',
    kind: 'integer',
    value: 30_000,
    min: 1,
    max: 3_600_000,
    doc: 'largest delay between restarts',
  },
  {
    flag: '--stable-uptime-ms',
    key: 'stableUptimeMs',
    kind: 'integer',
    value: 30_000,
    min: 1,
    max: 86_400_000,
    doc: 'uptime after which the backoff and the crash count reset',
  },
  {
    flag: '--breaker-crashes',
    key: 'breakerCrashes',
    kind: 'integer',
    value: 5,
    min: 1,
    max: 1000,
    doc: 'crashes without a stable uptime between them that open the breaker (no more restarts)',
  },
  {
    flag: '--max-stderr-line-bytes',
    key: 'maxStderrLineBytes',
    kind: 'integer',
    value: 4096,
    min: 16,
    max: MIB,
    doc: "longest line of the child's stderr forwarded to the log (the rest of a line is dropped)",
  },
  {
    flag: '--redis-url',
    key: 'redisUrl',
    kind: 'string',
    value: undefined,
    doc: "redis:// or rediss:// URL shared by every instance: per-principal limits hold across the fleet (never logged; prefer the config file's redisUrl, which ps does not show)",
  },
  {
    flag: '--fleet-instances',
    key: 'fleetInstances',
    kind: 'integer',
    value: 1,
    min: 1,
    max: 10_000,
    doc: 'instances sharing that Redis: while it is unreachable, the concurrency limit keeps limit ÷ n here',
  },
] satisfies OptionSpec[])

/** A command line the gateway cannot start with; `message` names the option. */
export class GatewayUsageError extends Error {
  readonly code = 'ERR_GATEWAY_USAGE'
  constructor(message: string) {
    super(message)
    this.name = 'GatewayUsageError'
  }
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

/** The `--help` text: usage, then every option with its default. */
export function gatewayHelp(): string {
  const rows = GATEWAY_CLI_OPTIONS.map((s) => {
    const name = s.kind === 'flag' ? s.flag : `${s.flag} <${s.kind === 'integer' ? 'n' : 'value'}>`
    const dflt = s.value === undefined ? 'none' : String(s.value)
    return `  ${name.padEnd(30)} ${s.doc} (default: ${dflt})`
  })
  return [
    'Usage: tollgate-gateway [options] -- <command> [args…]',
    '       tollgate-gateway [options] --upstream <url>',
    '       tollgate-gateway pins approve --pins <file> [--tool <name>]… -- <command> [args…]',
    '',
    'Serves an MCP server (a stdio child, or a Streamable HTTP upstream) over Streamable HTTP at',
    '/mcp (or over stdio with --stdio), with every tollgate admission control in front of it.',
    '',
    'Options:',
    ...rows,
    `  ${'--help'.padEnd(30)} print this help and exit`,
    '',
  ].join('\n')
}

/** True for `localhost`, `127.0.0.0/8` and `::1`. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (isIP(bare) === 4) return bare.startsWith('127.')
  if (isIP(bare) === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1'
  return false
}

function integer(spec: OptionSpec, raw: string): number {
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

/** Whether `text` is a `redis:` or `rediss:` URL with a host. */
export function isRedisUrl(text: string): boolean {
  try {
    const url = new URL(text)
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== ''
  } catch {
    return false
  }
}
