import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { callerKeys } from '@tollgate/http-admission'
import { ADMISSION_DEFAULTS, assertLimit } from '@tollgate/json-budget'
import { DEFAULT_AUDIT_REPEAT_WINDOW_MS } from './audit.js'
import {
  assertRedisUrl,
  CONTINUATION_CLI_OPTIONS,
  CONTINUATION_USAGE,
  type ContinuationCliOptions,
  parseContinuationCli,
} from './continuation-store.js'
import { DEFAULT_DRAIN_MS } from './drain.js'
import { PRINCIPAL_QUOTA_DEFAULTS } from './principal-quota.js'

/** The repository's `schemas/mcp/`, relative to the bundle at `apps/mcp-server/dist/main.js`. */
export const DEFAULT_SCHEMAS_DIR = new URL('../../../schemas/mcp/', import.meta.url)

/** Default TCP port of the Streamable HTTP server. */
export const DEFAULT_PORT = 3333

/** Default interface: loopback only. */
export const DEFAULT_HOST = '127.0.0.1'

/** Default heavy-result threshold: results over 64 KiB are answered with a continuation. */
export const DEFAULT_HEAVY_THRESHOLD_BYTES = 64 * 1024

/** Default lifetime of a continuation: 10 minutes. */
export const DEFAULT_CONTINUATION_TTL_MS = 600_000

/** Default cap on open Streamable HTTP sessions. */
export const DEFAULT_MAX_SESSIONS = 1000

/**
 * Default idle lifetime of a session: 10 minutes without a request in flight. Long enough for a
 * person between prompts (a client whose session expired gets 404 and re-initializes, as the
 * spec asks), short enough that abandoned sessions give their slots back within minutes.
 */
export const DEFAULT_SESSION_IDLE_MS = 600_000

/**
 * Default cap on how long an open GET stream alone keeps a session alive: 10 minutes, as idle.
 * A stream no longer holds a session (and its slot) for ever.
 */
export const DEFAULT_STREAM_IDLE_MS = 600_000

/** Default absolute lifetime of a session: 1 hour from its `initialize`, however busy. */
export const DEFAULT_SESSION_LIFETIME_MS = 3_600_000

/** The resolved command line. */
export interface CliOptions extends ContinuationCliOptions {
  readonly port: number
  readonly host: string
  readonly stdio: boolean
  readonly config: string | undefined
  /** Directory of the published input schemas. Default: the repository's `schemas/mcp/`. */
  readonly schemasDir: string
  /** Streamable HTTP POST cap in bytes; lowering only past 64 MiB. Default 4 MiB. */
  readonly maxBodyBytes: number
  /** stdio line cap in bytes, line ending included. Default 64 MiB. */
  readonly maxLineBytes: number
  /** One tool result's JSON budget in bytes. Default 64 MiB. */
  readonly maxResultBytes: number
  /** Most Streamable HTTP sessions open at once. Default: 1,000. */
  readonly maxSessions: number
  /**
   * Most sessions one credential holds (every anonymous caller together counts as one, each
   * anonymous address a quarter of that).
   * Default: a tenth of `maxSessions`, rounded up (100), so one credential at its quota leaves
   * nine tenths of the slots to everyone else.
   */
  readonly maxSessionsPerCredential: number
  /** A session with no request in flight for this long is closed. Default: 600,000 (10 min). */
  readonly sessionIdleMs: number
  /** How long an open GET stream alone keeps a session alive. Default: 600,000 (10 min). */
  readonly streamIdleMs: number
  /** A session is closed this long after it opened, however busy. Default: 3,600,000 (1 h). */
  readonly sessionLifetimeMs: number
  /**
   * Addresses or CIDRs of the reverse proxies in front of the server: only from them is
   * `X-Forwarded-For` read (its rightmost hop that is not one of them is the caller). Default: none.
   */
  readonly trustedProxies: readonly string[]
  /** An anonymous IPv6 caller is keyed by this prefix of its address. Default: 64. */
  readonly ipv6PrefixBits: number
  /** 2026-07-28 requests one principal has in flight at once. Default: 8. */
  readonly maxRequestsInFlightPerPrincipal: number
  /** 2026-07-28 requests one principal may start per minute. Default: 600. */
  readonly requestsPerMinutePerPrincipal: number
  /** Window in which identical pre-authentication refusal lines are counted; 0: every line. */
  readonly auditRepeatWindowMs: number
  readonly heavyThresholdBytes: number
  /** Lifetime of a continuation in milliseconds. Default: 600,000 (10 minutes). */
  readonly continuationTtlMs: number
  /**
   * Redis holding the continuations, shared by every instance pointing at it. Default: none
   * (the in-memory store, per process); the config file's `redisUrl` when the flag is absent.
   */
  readonly redisUrl: string | undefined
  /**
   * How many instances share the Redis of `redisUrl`: while it is unreachable, each limit whose
   * rule is a local share holds `limit ÷ instances` in this process. Default: 1.
   */
  readonly fleetInstances: number
  /**
   * Milliseconds a fleet-wide lease (a request in flight, a session) outlives the instance that
   * held it, if that instance dies: leases are renewed while held. Default: 30,000.
   */
  readonly fleetLeaseMs: number
  /**
   * After SIGTERM, how long the requests in flight may take to finish before the server closes
   * anyway; new requests are refused at once. Default: 10,000.
   */
  readonly drainTimeoutMs: number
  /**
   * JSON key file sealing the `requestState` of tools of several rounds: `{ "keys": [{ "id",
   * "secret" (base64url, >= 32 bytes) }] }`, newest first. Default: a random key per process.
   */
  readonly sealingKeysFile: string | undefined
  /** Test-only: removes the input-validation control (prints a loud warning). */
  readonly unsafeDisableInputValidation: boolean
  /** Test-only: registers a tool that has no published schema. */
  readonly unsafeRegisterUnpublishedTool: boolean
}

/** The usage text printed by `--help`. */
export const USAGE = `Usage: node dist/main.js [options]

  --port <n>                 Streamable HTTP port (default ${DEFAULT_PORT}; 0 picks a free one)
  --host <addr>              interface to bind (default ${DEFAULT_HOST})
  --stdio                    serve MCP over stdin/stdout instead of HTTP
  --config <path>            credentials file (default: embedded demo credentials, printed at start)
  --schemas <dir>            published input schemas (default: the repository's schemas/mcp/)
  --max-body-bytes <n>       HTTP POST cap (default 4 MiB, at most 64 MiB)
  --max-line-bytes <n>       stdio line cap (default 64 MiB, at most 64 MiB)
  --max-result-bytes <n>     tool result budget (default 64 MiB, at most 64 MiB)
  --max-sessions <n>         Streamable HTTP sessions open at once (default ${DEFAULT_MAX_SESSIONS})
  --max-sessions-per-credential <n>
                             sessions one credential holds; all anonymous callers share one
                             quota, each address a quarter of it (default: a tenth of
                             --max-sessions, rounded up)
  --session-idle-ms <n>      close a session idle this long (default ${DEFAULT_SESSION_IDLE_MS})
  --stream-idle-ms <n>       how long an open GET stream alone keeps a session alive
                             (default ${DEFAULT_STREAM_IDLE_MS})
  --session-lifetime-ms <n>  close a session this long after it opened (default ${DEFAULT_SESSION_LIFETIME_MS})
  --trusted-proxy <cidr>     a reverse proxy whose X-Forwarded-For names the caller (repeat it;
                             default none: an anonymous caller is its peer address)
  --ipv6-prefix-bits <n>     an anonymous IPv6 caller is keyed by this prefix (default 64)
  --max-requests-in-flight-per-principal <n>
                             2026-07-28 requests one credential (or one anonymous caller, by
                             peer address) has in flight at once (default ${PRINCIPAL_QUOTA_DEFAULTS.maxConcurrent})
  --requests-per-minute-per-principal <n>
                             2026-07-28 requests one principal may start per minute
                             (default ${PRINCIPAL_QUOTA_DEFAULTS.requestsPerMinute})
  --audit-repeat-window-ms <n>
                             count repeated identical refusal lines (auth_refused, ...) per
                             window instead of writing each (default ${DEFAULT_AUDIT_REPEAT_WINDOW_MS}; 0 writes every line)
  --heavy-threshold-bytes <n> results larger than this become continuations (default 65536)
  --continuation-ttl-ms <n>  lifetime of a continuation (default 600000)
  --redis-url <url>          keep continuations in Redis, shared across instances
                             (default: in memory, per process; or the config file's redisUrl);
                             the per-principal quotas and session quotas are then fleet-wide
  --fleet-instances <n>      instances sharing that Redis: during an outage each keeps
                             limit / n of the limits that fall back to a local share (default 1)
  --fleet-lease-ms <n>       a fleet-wide lease of an instance that died is freed this long
                             after its last renewal (default 30000)
  --drain-timeout-ms <n>             after SIGTERM: new requests are refused (503) and /readyz is 503
                             at once; requests in flight finish within this deadline, then
                             leases are released and the process exits 0
                             (default ${DEFAULT_DRAIN_MS}, at most 600000)
  --sealing-keys-file <path> keys sealing the requestState of multi-round tools, shared by
                             every instance: {"keys":[{"id","secret"}]}, newest first, each
                             secret base64url of >= 32 random bytes (default: a random key
                             of this process, with a warning)
${CONTINUATION_USAGE}
Test-only switches (never in production; each prints a warning at start):
  --unsafe-disable-input-validation   remove schema validation of tools/call arguments
  --unsafe-register-unpublished-tool  register 'probe.unpublished', which has no schema
`

function bounded(name: string, raw: string | undefined, fallback: number, ceiling: number): number {
  if (raw === undefined) return fallback
  const value = assertLimit(name, Number(raw))
  if (value > ceiling) throw new TypeError(`${name} must be at most ${ceiling}`)
  return value
}

function limit(name: string, raw: string | undefined, fallback: number): number {
  return raw === undefined ? fallback : assertLimit(name, Number(raw))
}

/** Parses and validates argv; a bad value throws a TypeError naming the flag. */
export function parseCli(argv: readonly string[]): CliOptions | 'help' {
  // `pnpm start -- --port 4000` forwards the separator itself; one leading `--` is dropped.
  const args = argv[0] === '--' ? argv.slice(1) : [...argv]
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      stdio: { type: 'boolean' },
      config: { type: 'string' },
      schemas: { type: 'string' },
      'max-body-bytes': { type: 'string' },
      'max-line-bytes': { type: 'string' },
      'max-result-bytes': { type: 'string' },
      'max-sessions': { type: 'string' },
      'max-sessions-per-credential': { type: 'string' },
      'session-idle-ms': { type: 'string' },
      'stream-idle-ms': { type: 'string' },
      'session-lifetime-ms': { type: 'string' },
      'trusted-proxy': { type: 'string', multiple: true },
      'ipv6-prefix-bits': { type: 'string' },
      'max-requests-in-flight-per-principal': { type: 'string' },
      'requests-per-minute-per-principal': { type: 'string' },
      'audit-repeat-window-ms': { type: 'string' },
      'heavy-threshold-bytes': { type: 'string' },
      'continuation-ttl-ms': { type: 'string' },
      'redis-url': { type: 'string' },
      'fleet-instances': { type: 'string' },
      'fleet-lease-ms': { type: 'string' },
      'drain-timeout-ms': { type: 'string' },
      'sealing-keys-file': { type: 'string' },
      ...CONTINUATION_CLI_OPTIONS,
      'unsafe-disable-input-validation': { type: 'boolean' },
      'unsafe-register-unpublished-tool': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) return 'help'
  const port =
    values.port === undefined ? DEFAULT_PORT : assertLimit('--port', Number(values.port), true)
  if (port > 65535) throw new TypeError('--port must be at most 65535')
  const maxSessions = limit('--max-sessions', values['max-sessions'], DEFAULT_MAX_SESSIONS)
  const maxSessionsPerCredential = limit(
    '--max-sessions-per-credential',
    values['max-sessions-per-credential'],
    Math.ceil(maxSessions / 10),
  )
  if (maxSessionsPerCredential > maxSessions) {
    throw new TypeError('--max-sessions-per-credential must be at most --max-sessions')
  }
  const trustedProxies = Object.freeze([...(values['trusted-proxy'] ?? [])])
  const ipv6PrefixBits = limit('--ipv6-prefix-bits', values['ipv6-prefix-bits'], 64)
  try {
    callerKeys({ trustedProxies, ipv6PrefixBits })
  } catch {
    throw new TypeError(
      '--trusted-proxy must be an IP address or CIDR, and --ipv6-prefix-bits at most 128',
    )
  }
  return Object.freeze({
    port,
    host: values.host ?? DEFAULT_HOST,
    stdio: values.stdio ?? false,
    config: values.config,
    schemasDir: values.schemas ?? fileURLToPath(DEFAULT_SCHEMAS_DIR),
    maxBodyBytes: bounded(
      '--max-body-bytes',
      values['max-body-bytes'],
      ADMISSION_DEFAULTS.mcpHttpBodyBytes,
      ADMISSION_DEFAULTS.mcpHttpBodyBytesCeiling,
    ),
    maxLineBytes: bounded(
      '--max-line-bytes',
      values['max-line-bytes'],
      ADMISSION_DEFAULTS.stdioLineBytes,
      ADMISSION_DEFAULTS.stdioLineBytesCeiling,
    ),
    maxResultBytes: bounded(
      '--max-result-bytes',
      values['max-result-bytes'],
      ADMISSION_DEFAULTS.toolResultBytes,
      ADMISSION_DEFAULTS.toolResultBytes,
    ),
    maxSessions,
    maxSessionsPerCredential,
    sessionIdleMs: limit('--session-idle-ms', values['session-idle-ms'], DEFAULT_SESSION_IDLE_MS),
    streamIdleMs: limit('--stream-idle-ms', values['stream-idle-ms'], DEFAULT_STREAM_IDLE_MS),
    sessionLifetimeMs: limit(
      '--session-lifetime-ms',
      values['session-lifetime-ms'],
      DEFAULT_SESSION_LIFETIME_MS,
    ),
    trustedProxies,
    ipv6PrefixBits,
    maxRequestsInFlightPerPrincipal: limit(
      '--max-requests-in-flight-per-principal',
      values['max-requests-in-flight-per-principal'],
      PRINCIPAL_QUOTA_DEFAULTS.maxConcurrent,
    ),
    requestsPerMinutePerPrincipal: limit(
      '--requests-per-minute-per-principal',
      values['requests-per-minute-per-principal'],
      PRINCIPAL_QUOTA_DEFAULTS.requestsPerMinute,
    ),
    auditRepeatWindowMs:
      values['audit-repeat-window-ms'] === undefined
        ? DEFAULT_AUDIT_REPEAT_WINDOW_MS
        : assertLimit('--audit-repeat-window-ms', Number(values['audit-repeat-window-ms']), true),
    heavyThresholdBytes: bounded(
      '--heavy-threshold-bytes',
      values['heavy-threshold-bytes'],
      DEFAULT_HEAVY_THRESHOLD_BYTES,
      ADMISSION_DEFAULTS.toolResultBytes,
    ),
    continuationTtlMs:
      values['continuation-ttl-ms'] === undefined
        ? DEFAULT_CONTINUATION_TTL_MS
        : assertLimit('--continuation-ttl-ms', Number(values['continuation-ttl-ms'])),
    redisUrl:
      values['redis-url'] === undefined
        ? undefined
        : assertRedisUrl('--redis-url', values['redis-url']),
    fleetInstances: limit('--fleet-instances', values['fleet-instances'], 1),
    fleetLeaseMs: limit('--fleet-lease-ms', values['fleet-lease-ms'], 30_000),
    // Past ten minutes a stuck request would hold the pod for longer than any orchestrator waits.
    sealingKeysFile: values['sealing-keys-file'],
    drainTimeoutMs: bounded(
      '--drain-timeout-ms',
      values['drain-timeout-ms'],
      DEFAULT_DRAIN_MS,
      600_000,
    ),
    ...parseContinuationCli(values),
    unsafeDisableInputValidation: values['unsafe-disable-input-validation'] ?? false,
    unsafeRegisterUnpublishedTool: values['unsafe-register-unpublished-tool'] ?? false,
  })
}
