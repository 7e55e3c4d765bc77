import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv2020 } from './ajv-classes.js'
import type { ParkedCallOptions } from './parked-calls.js'
import { readSealingKeys, type SealingKeyEntry, type SealingKeySet } from './sealing-keys.js'
import { resolveToolGuardOptions } from './tool-guard-options.js'

// `--config <file>`: JSON validated against the published schema (`schema/config.schema.json`,
// draft 2020-12, every object closed so a misspelt key is an error rather than a silently
// missing control), then against what a schema cannot say (unique paths and names, principals
// that exist). Bearer tokens are never stored: a credential holds the sha-256 of its token.

/** One bearer credential: who holds it, and the sha-256 (lower-case hex) of its token. */
export interface GatewayCredential {
  readonly name: string
  readonly tokenSha256: string
}

/** One route: an exact HTTP path, who may use it, and its tool surface. */
export interface GatewayRoute {
  readonly path: string
  /** Callers without a credential are served (each keyed by its peer address). */
  readonly anonymous: boolean
  /** Credential names admitted; `undefined` admits every credential. */
  readonly principals: readonly string[] | undefined
  /** The only tools callable; `undefined` is every tool the upstream serves. */
  readonly allow: readonly string[] | undefined
  /** Tools never callable (wins over `allow`). */
  readonly deny: readonly string[]
}

/** Per-principal limits: the options of `limiter()`, as the config file holds them. */
export interface GatewayLimits {
  readonly concurrentPerPrincipal?: number
  readonly ratePerMinute?: number
  readonly burst?: number
  readonly maxTrackedKeys?: number
}

/** Tool schema options: the options of `toolGuard()`, as the config file holds them. */
export interface GatewayToolOptions {
  readonly allowedExtraKeys?: readonly string[]
  readonly openTools?: readonly string[]
  readonly maxSchemaBytes?: number
  readonly maxSchemaNodes?: number
  readonly maxSchemaDepth?: number
  readonly maxCompileMs?: number
  readonly strictKeywords?: boolean
}

/** The gateway's configuration, validated and frozen. */
export interface GatewayConfig {
  readonly credentials: readonly GatewayCredential[]
  readonly routes: readonly GatewayRoute[]
  /** Pass as is to `limiter()`. */
  readonly limits: GatewayLimits
  /** Pass as is to `toolGuard()`. */
  readonly tools: GatewayToolOptions
  /** Redis shared by the fleet (`--redis-url` overrides it); never logged. */
  readonly redisUrl?: string
  /** The keys that seal `requestState`, newest first; absent: one random key per process. */
  readonly sealingKeys?: SealingKeySet
  /** Pass as is (with the keys) to `requestStateSeal()`. */
  readonly requestState?: GatewayRequestStateOptions
  /** Pass as is to `parkedCalls()`. */
  readonly parkedCalls?: ParkedCallOptions
}

/** Request-state options: those of `requestStateSeal()` but the keys, as the config holds them. */
export interface GatewayRequestStateOptions {
  readonly ttlMs?: number
  readonly maxHandleBytes?: number
  readonly upstreamId?: string
}

/** One problem of a config file: where (a JSON path such as `routes[0].allow`) and what. */
export interface GatewayConfigIssue {
  readonly path: string
  readonly message: string
}

/** A config file that cannot be used; `issues` names each problem by path (at most 20). */
export class GatewayConfigError extends Error {
  readonly code = 'ERR_GATEWAY_CONFIG'
  readonly issues: readonly GatewayConfigIssue[]
  constructor(issues: readonly GatewayConfigIssue[]) {
    super(`invalid gateway config: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`)
    this.name = 'GatewayConfigError'
    this.issues = Object.freeze(issues.slice(0, MAX_ISSUES))
  }
}

const MAX_ISSUES = 20

/**
 * The configuration without a file: anonymous callers (each keyed by its peer address) on one
 * route, `/mcp`, where every tool the upstream serves is callable; default limits and tool
 * options. The host serves it on loopback only.
 */
export function defaultGatewayConfig(): GatewayConfig {
  return freeze({
    credentials: [],
    routes: [{ path: '/mcp', anonymous: true, principals: undefined, allow: undefined, deny: [] }],
    limits: {},
    tools: {},
  })
}

/**
 * The sha-256 (lower-case hex) of a bearer token, as a credential's `tokenSha256` stores it:
 * the helper behind the operator's `tollgate-gateway hash-token`.
 * @throws TypeError when `token` is empty or holds a character a bearer token cannot (RFC 6750
 *   `b64token`: letters, digits, `-._~+/`, then `=` padding).
 */
export function hashBearerToken(token: string): string {
  if (typeof token !== 'string' || !/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) {
    throw new TypeError('a bearer token is one or more of A-Z a-z 0-9 - . _ ~ + / then = padding')
  }
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

/**
 * Reads and validates `--config`.
 * @throws GatewayConfigError when the file cannot be read, is not JSON, fails the published
 *   schema, repeats a route path or credential name, names a principal no credential has, or
 *   holds a token digest twice.
 */
export function loadGatewayConfig(file: string): GatewayConfig {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new GatewayConfigError([
      { path: '(file)', message: `cannot be read (${(error as { code?: string }).code})` },
    ])
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new GatewayConfigError([{ path: '(file)', message: 'is not JSON' }])
  }
  return parseGatewayConfig(value, dirname(file))
}

/**
 * Validates a parsed config value (what {@link loadGatewayConfig} does after reading the file);
 * a `sealingKeys[i].secretFile` is read relative to `baseDir` (default: the working directory).
 * @throws GatewayConfigError as {@link loadGatewayConfig} does, and for a sealing key that
 *   repeats an id, cannot be read, is not canonical base64url or decodes to under 32 bytes.
 */
export function parseGatewayConfig(value: unknown, baseDir: string = process.cwd()): GatewayConfig {
  const validate = configValidator()
  if (!validate(value)) {
    throw new GatewayConfigError((validate.errors ?? []).map(issueOf))
  }
  const input = value as {
    credentials?: GatewayCredential[]
    routes?: {
      path: string
      anonymous?: boolean
      principals?: string[]
      allow?: string[]
      deny?: string[]
    }[]
    limits?: GatewayLimits
    tools?: GatewayToolOptions
    redisUrl?: string
    sealingKeys?: SealingKeyEntry[]
    requestState?: GatewayRequestStateOptions
    parkedCalls?: ParkedCallOptions
  }
  const issues: GatewayConfigIssue[] = []
  const credentials = input.credentials ?? []
  const names = new Set<string>()
  const digests = new Set<string>()
  credentials.forEach((c, i) => {
    if (names.has(c.name))
      issues.push({ path: `credentials[${i}].name`, message: 'repeats a name' })
    if (digests.has(c.tokenSha256)) {
      issues.push({ path: `credentials[${i}].tokenSha256`, message: 'repeats a token digest' })
    }
    names.add(c.name)
    digests.add(c.tokenSha256)
  })
  const routes = input.routes ?? [{ path: '/mcp' }]
  const paths = new Set<string>()
  routes.forEach((r, i) => {
    if (paths.has(r.path)) issues.push({ path: `routes[${i}].path`, message: 'repeats a path' })
    paths.add(r.path)
    r.principals?.forEach((p, j) => {
      if (!names.has(p))
        issues.push({ path: `routes[${i}].principals[${j}]`, message: 'names no credential' })
    })
  })
  try {
    resolveToolGuardOptions(input.tools)
  } catch (error) {
    issues.push({ path: 'tools', message: (error as Error).message })
  }
  const sealingKeys =
    input.sealingKeys === undefined
      ? undefined
      : readSealingKeys(input.sealingKeys, baseDir, issues)
  if (issues.length > 0) throw new GatewayConfigError(issues)
  return freeze({
    credentials: credentials.map((c) => ({ name: c.name, tokenSha256: c.tokenSha256 })),
    routes: routes.map((r) => ({
      path: r.path,
      anonymous: r.anonymous ?? false,
      principals: r.principals,
      allow: r.allow,
      deny: r.deny ?? [],
    })),
    limits: { ...input.limits },
    tools: { ...input.tools },
    ...(input.redisUrl === undefined ? {} : { redisUrl: input.redisUrl }),
    ...(sealingKeys === undefined ? {} : { sealingKeys }),
    ...(input.requestState === undefined ? {} : { requestState: { ...input.requestState } }),
    ...(input.parkedCalls === undefined ? {} : { parkedCalls: { ...input.parkedCalls } }),
  })
}

type Validator = ((value: unknown) => boolean) & {
  errors?:
    | { instancePath: string; keyword: string; params: Record<string, unknown>; message?: string }[]
    | null
}
let compiled: Validator | undefined

// The published schema is read from the package (src/ and dist/ both sit beside schema/), so
// the file users point their editors at is the one the gateway enforces.
function configValidator(): Validator {
  if (compiled !== undefined) return compiled
  const here =
    typeof __dirname === 'string' ? __dirname : fileURLToPath(new URL('.', import.meta.url))
  const schema = JSON.parse(readFileSync(join(here, '..', 'schema', 'config.schema.json'), 'utf8'))
  compiled = new Ajv2020({ allErrors: true, strict: true, logger: false }).compile(
    schema,
  ) as Validator
  return compiled
}

function issueOf(error: NonNullable<Validator['errors']>[number]): GatewayConfigIssue {
  let path = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((out, s) => (/^[0-9]+$/.test(s) ? `${out}[${s}]` : out === '' ? s : `${out}.${s}`), '')
  if (error.keyword === 'additionalProperties') {
    const key = String(error.params.additionalProperty).slice(0, 64)
    path = path === '' ? key : `${path}.${key}`
    return { path, message: 'is not a known key' }
  }
  return { path: path === '' ? '(root)' : path, message: error.message ?? error.keyword }
}

function freeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) freeze(v)
    Object.freeze(value)
  }
  return value
}
