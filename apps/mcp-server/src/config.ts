import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { assertRedisUrl } from './continuation-store.js'
import { ROUTES } from './surfaces.js'

/** The capabilities a credential may hold. A tool or a dispatcher action requires one of them. */
export const CAPABILITIES = Object.freeze([
  'read',
  'documents',
  'notes',
  'export',
  'admin',
] as const)

/** One capability of {@link CAPABILITIES}. */
export type Capability = (typeof CAPABILITIES)[number]

/** One bearer credential as the config file declares it. */
export interface CredentialConfig {
  readonly id: string
  readonly token: string
  readonly capabilities: readonly Capability[]
}

/**
 * Callers with no credential at all: which routes admit them, and the one capability set every
 * anonymous principal holds there. Absent: no route admits a request without a bearer token.
 */
export interface AnonymousConfig {
  /** Route paths (`/mcp`, `/mcp/team`, `/mcp/public`) that admit a request with no `Authorization` header. */
  readonly routes: readonly string[]
  /** What an anonymous principal may do; `admin` is refused. Keep it least-privilege. */
  readonly capabilities: readonly Capability[]
}

/** The capabilities the embedded demo config gives anonymous callers on `/mcp/public`. */
export const DEMO_ANONYMOUS_CAPABILITIES: readonly Capability[] = Object.freeze(['read', 'notes'])

/** The server config file (`--config <path>`). */
export interface ServerConfig {
  readonly credentials: readonly CredentialConfig[]
  /** Anonymous callers (no `Authorization` header). Default: none admitted. */
  readonly anonymous?: AnonymousConfig
  /** The credential whose capabilities a stdio session runs with. Default: the first one. */
  readonly stdioCredential?: string
  /** Redis holding the continuations (`redis://` or `rediss://`); `--redis-url` overrides it. */
  readonly redisUrl?: string
}

const ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/
const MIN_TOKEN_LENGTH = 16
/** Longest bearer token a config may declare (and the longest one authentication reads). */
export const MAX_TOKEN_LENGTH = 256

/**
 * The embedded default: two demo credentials with tokens drawn at start (so no token is ever
 * shipped in source) and printed on stderr. `demo-admin` holds every capability; `demo-reader`
 * can read but not export or administer. `/mcp/public` admits anonymous callers with `read`
 * and `notes` (clients that cannot send a header: the conformance suite, old Inspectors).
 */
export function defaultConfig(): ServerConfig {
  const token = () => `tg_${randomBytes(24).toString('base64url')}`
  return {
    credentials: [
      { id: 'demo-admin', token: token(), capabilities: [...CAPABILITIES] },
      { id: 'demo-reader', token: token(), capabilities: ['read', 'documents', 'notes'] },
    ],
    anonymous: { routes: ['/mcp/public'], capabilities: DEMO_ANONYMOUS_CAPABILITIES },
  }
}

/** Reads and validates a config file; a bad file fails at start with a TypeError naming the field. */
export function loadConfig(path: string): ServerConfig {
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    throw new TypeError('config: the file cannot be read as JSON')
  }
  return validateConfig(raw)
}

/** Validates a parsed config; returns a frozen copy. */
export function validateConfig(raw: unknown): ServerConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new TypeError('config: must be an object')
  }
  const record = raw as Record<string, unknown>
  const list = record.credentials
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError('config.credentials: must be a non-empty array')
  }
  const seen = new Set<string>()
  const credentials = list.map((entry, i): CredentialConfig => {
    const where = `config.credentials[${i}]`
    if (typeof entry !== 'object' || entry === null) throw new TypeError(`${where}: not an object`)
    const { id, token, capabilities } = entry as Record<string, unknown>
    if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
      throw new TypeError(`${where}.id: must match ${ID_PATTERN}`)
    }
    if (seen.has(id)) throw new TypeError(`${where}.id: duplicate`)
    seen.add(id)
    if (
      typeof token !== 'string' ||
      token.length < MIN_TOKEN_LENGTH ||
      token.length > MAX_TOKEN_LENGTH ||
      !/^[\x21-\x7e]+$/.test(token)
    ) {
      throw new TypeError(
        `${where}.token: must be ${MIN_TOKEN_LENGTH}-${MAX_TOKEN_LENGTH} visible ASCII characters`,
      )
    }
    if (
      !Array.isArray(capabilities) ||
      !capabilities.every((c) => (CAPABILITIES as readonly unknown[]).includes(c))
    ) {
      throw new TypeError(`${where}.capabilities: each must be one of ${CAPABILITIES.join(', ')}`)
    }
    return Object.freeze({ id, token, capabilities: Object.freeze([...capabilities]) })
  })
  const stdioCredential = record.stdioCredential
  if (
    stdioCredential !== undefined &&
    (typeof stdioCredential !== 'string' || !seen.has(stdioCredential))
  ) {
    throw new TypeError('config.stdioCredential: must name a credential id')
  }
  const redisUrl =
    record.redisUrl === undefined ? undefined : assertRedisUrl('config.redisUrl', record.redisUrl)
  const anonymous = record.anonymous === undefined ? undefined : validateAnonymous(record.anonymous)
  return Object.freeze({
    credentials: Object.freeze(credentials),
    ...(anonymous === undefined ? {} : { anonymous }),
    ...(stdioCredential === undefined ? {} : { stdioCredential }),
    ...(redisUrl === undefined ? {} : { redisUrl }),
  })
}

const ROUTE_PATHS: readonly string[] = ROUTES.map((r) => r.path)

function validateAnonymous(raw: unknown): AnonymousConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new TypeError('config.anonymous: must be an object')
  }
  const { routes, capabilities, ...rest } = raw as Record<string, unknown>
  const extra = Object.keys(rest)[0]
  if (extra !== undefined) throw new TypeError('config.anonymous: unknown field')
  if (
    !Array.isArray(routes) ||
    routes.length === 0 ||
    !routes.every((r) => typeof r === 'string' && ROUTE_PATHS.includes(r)) ||
    new Set(routes).size !== routes.length
  ) {
    throw new TypeError(
      `config.anonymous.routes: must be a non-empty list of distinct routes among ${ROUTE_PATHS.join(', ')}`,
    )
  }
  // An anonymous principal is anyone; administering credentials is never least privilege.
  const allowed = CAPABILITIES.filter((c) => c !== 'admin') as readonly unknown[]
  if (
    !Array.isArray(capabilities) ||
    !capabilities.every((c) => allowed.includes(c)) ||
    new Set(capabilities).size !== capabilities.length
  ) {
    throw new TypeError(
      `config.anonymous.capabilities: each must be one of ${allowed.join(', ')}, without repeats`,
    )
  }
  return Object.freeze({
    routes: Object.freeze([...(routes as string[])]),
    capabilities: Object.freeze([...(capabilities as Capability[])]),
  })
}
