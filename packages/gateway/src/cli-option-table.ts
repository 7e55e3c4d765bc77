// The table every option of `tollgate-gateway` is declared in, once: the parser, the defaults
// and `--help` all read it, so an option cannot be parsed without being documented.
import type { GatewayCliOptions } from './cli-options.js'

/** The kind of value an option takes: a string, a non-negative integer, or none (a flag). */
export type GatewayCliOptionKind = 'string' | 'integer' | 'flag'

/** One row of {@link GATEWAY_CLI_OPTIONS}: the flag, its key, kind, default, bounds and doc. */
export interface GatewayCliOptionSpec {
  readonly flag: string
  readonly key: Exclude<keyof GatewayCliOptions, 'command'>
  readonly kind: GatewayCliOptionKind
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
export const GATEWAY_CLI_OPTIONS: readonly GatewayCliOptionSpec[] = Object.freeze([
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
    doc: "file holding the pinned tool definitions (in memory without it); redis:<name> keeps them in the fleet's Redis (needs --redis-url), shared by every instance",
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
  {
    flag: '--fleet-lease-ms',
    key: 'fleetLeaseMs',
    kind: 'integer',
    value: 30_000,
    min: 1000,
    max: 600_000,
    doc: 'how long a fleet lease (a call in flight, a session) outlives an instance killed while holding it (renewed every third of it while held)',
  },
  {
    flag: '--max-sessions-per-principal',
    key: 'maxSessionsPerPrincipal',
    kind: 'integer',
    value: 1000,
    min: 1,
    max: 10_000,
    doc: 'session-era sessions one principal holds, across the fleet with --redis-url; one more is ERR_SESSION_QUOTA',
  },
  {
    flag: '--max-sessions',
    key: 'maxSessions',
    kind: 'integer',
    value: 10_000,
    min: 1,
    max: 1_000_000,
    doc: 'session-era sessions this process holds, every principal together; one more is ERR_SESSION_LIMIT (503)',
  },
  {
    flag: '--max-anonymous-sessions',
    key: 'maxAnonymousSessions',
    kind: 'integer',
    value: 2500,
    min: 1,
    max: 1_000_000,
    doc: 'of those, the sessions every anonymous caller together holds, one address at most a quarter of it; one more is ERR_SESSION_QUOTA',
  },
] satisfies GatewayCliOptionSpec[])
