import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { assertRedisUrl } from './continuation-store.js'

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

/** The server config file (`--config <path>`). */
export interface ServerConfig {
  readonly credentials: readonly CredentialConfig[]
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
 * can read but not export or administer.
 */
export function defaultConfig(): ServerConfig {
  const token = () => `tg_${randomBytes(24).toString('base64url')}`
  return {
    credentials: [
      { id: 'demo-admin', token: token(), capabilities: [...CAPABILITIES] },
      { id: 'demo-reader', token: token(), capabilities: ['read', 'documents', 'notes'] },
    ],
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
  return Object.freeze({
    credentials: Object.freeze(credentials),
    ...(stdioCredential === undefined ? {} : { stdioCredential }),
    ...(redisUrl === undefined ? {} : { redisUrl }),
  })
}
