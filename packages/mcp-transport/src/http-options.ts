import {
  type HttpAdmissionOptions,
  type ResolvedHttpAdmissionOptions,
  resolveHttpAdmissionOptions,
} from '@tollgate/http-admission'
import {
  ADMISSION_DEFAULTS,
  booleanOption,
  checkOptions,
  createResolvedBrand,
  integerOption,
  type OptionValidators,
} from '@tollgate/json-budget'

/**
 * Options of the Streamable HTTP steps ({@link resolveMcpHttpOptions}) and of the composed
 * `mcpHttpHandler` / `mcpExpressHandler`. Every field is optional.
 */
export interface McpHttpOptions
  extends Pick<
    HttpAdmissionOptions,
    | 'maxNodes'
    | 'maxDepth'
    | 'duplicateKeys'
    | 'protoKeys'
    | 'maxStringBytes'
    | 'maxNumberLength'
    | 'bom'
    | 'inflate'
    | 'maxInflationRatio'
    | 'timeoutMs'
    | 'idleTimeoutMs'
    | 'budget'
    | 'retryAfterSeconds'
    | 'minBytesPerSecond'
    | 'minRateGraceMs'
    | 'principal'
    | 'maxBodiesPerPrincipal'
    | 'principalShare'
  > {
  /**
   * Largest POST body admitted, in bytes actually received (a batch is one body). A smaller
   * value is kept; a value above 64 MiB is refused at construction. Default: 4 MiB.
   */
  readonly maxBytes?: number
  /**
   * The address the server listens on. When it is a loopback address (`127.0.0.0/8`,
   * `localhost`, `::1`) Host and Origin validation against DNS rebinding is on by default.
   * Default: `'127.0.0.1'`.
   */
  readonly host?: string
  /**
   * Hostnames a request's `Host` header may name (the port is ignored; IPv6 in brackets).
   * Setting it turns Host validation on whatever `host` is. Default: `localhost`,
   * `127.0.0.1`, `[::1]` when `host` is loopback, otherwise no Host validation.
   */
  readonly allowedHosts?: readonly string[]
  /**
   * Origins (`scheme://host[:port]`) a request's `Origin` header may name, when it sends one.
   * Default: any `http`/`https` origin on a loopback hostname, when validation is on.
   */
  readonly allowedOrigins?: readonly string[]
  /**
   * After each POST, release the finished JSON-response entries that
   * `@modelcontextprotocol/sdk` 1.32.2's transport keeps, each holding the request's parsed
   * body, until the session closes (a workaround for an SDK defect; see the README). `false`
   * turns the workaround off (meant for the test that shows the retention). Default: `true`.
   */
  readonly releaseSdkJsonResponses?: boolean
  /**
   * The `MCP-Protocol-Version` values a request may carry. A request that sends the header
   * with any other value is refused with 400 `ERR_MCP_PROTOCOL_VERSION` before its body is
   * read; a request without the header passes (the spec's default version applies). Default:
   * the versions `@modelcontextprotocol/sdk` 1.32.2 supports ({@link MCP_PROTOCOL_VERSIONS}).
   */
  readonly supportedProtocolVersions?: readonly string[]
}

/** The options after {@link resolveMcpHttpOptions}: validated, frozen. */
export interface ResolvedMcpHttpOptions {
  /** What the body admission core runs with (`maxBytes` is the MCP cap). */
  readonly admission: ResolvedHttpAdmissionOptions
  /** Lower-case hostnames allowed in `Host`, or `undefined` when Host is not validated. */
  readonly allowedHosts: readonly string[] | undefined
  /**
   * Allowed origins (serialized as `URL.origin`), `'loopback'` for any loopback origin, or
   * `undefined` when Origin is not validated.
   */
  readonly allowedOrigins: readonly string[] | 'loopback' | undefined
  /** Whether finished SDK JSON-response entries are released after each POST. */
  readonly releaseSdkJsonResponses: boolean
  /** The `MCP-Protocol-Version` values admitted (frozen). */
  readonly supportedProtocolVersions: readonly string[]
}

/**
 * The protocol versions `@modelcontextprotocol/sdk` 1.32.2 supports (its
 * `SUPPORTED_PROTOCOL_VERSIONS`, newest first), copied so that importing this package does not
 * load the SDK; a test holds the two equal.
 */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
])

/**
 * The defaults: 4 MiB POST bodies, bound to 127.0.0.1 with DNS-rebinding protection on, the
 * SDK's finished JSON-response entries released after each POST, and the SDK's protocol
 * versions. The body admission defaults (nodes, depth, deadlines, ...) are http-admission's.
 */
export const MCP_HTTP_DEFAULTS: Readonly<
  Required<
    Pick<
      McpHttpOptions,
      'maxBytes' | 'host' | 'releaseSdkJsonResponses' | 'supportedProtocolVersions'
    >
  >
> = Object.freeze({
  maxBytes: ADMISSION_DEFAULTS.mcpHttpBodyBytes,
  host: '127.0.0.1',
  releaseSdkJsonResponses: true,
  supportedProtocolVersions: MCP_PROTOCOL_VERSIONS,
})

const LOOPBACK_NAMES = Object.freeze(['localhost', '127.0.0.1', '[::1]'])

// Validated by http-admission's resolver (which names the option); listed here so the set of
// names this function takes is the table's keys.
const byAdmission = (): void => {}

function stringList(value: unknown, name: string): void {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.length === 0)) {
    throw new TypeError(`${name} must be an array of non-empty strings`)
  }
}

const VALIDATORS: OptionValidators<McpHttpOptions> = {
  maxNodes: byAdmission,
  maxDepth: byAdmission,
  duplicateKeys: byAdmission,
  protoKeys: byAdmission,
  maxStringBytes: byAdmission,
  maxNumberLength: byAdmission,
  bom: byAdmission,
  inflate: byAdmission,
  maxInflationRatio: byAdmission,
  timeoutMs: byAdmission,
  idleTimeoutMs: byAdmission,
  budget: byAdmission,
  retryAfterSeconds: byAdmission,
  minBytesPerSecond: byAdmission,
  minRateGraceMs: byAdmission,
  principal: byAdmission,
  maxBodiesPerPrincipal: byAdmission,
  principalShare: byAdmission,
  maxBytes: (value, name) => {
    integerOption()(value, name)
    const ceiling = ADMISSION_DEFAULTS.mcpHttpBodyBytesCeiling
    if ((value as number) > ceiling) {
      throw new TypeError(`${name} may not exceed ${ceiling}, got ${value as number}`)
    }
  },
  host: (value, name) => {
    if (typeof value !== 'string' || value.length === 0) {
      throw new TypeError(`${name} must be a non-empty string`)
    }
  },
  allowedHosts: stringList,
  allowedOrigins: stringList,
  releaseSdkJsonResponses: booleanOption,
  supportedProtocolVersions: stringList,
}

// The options passed through to http-admission's resolver, the table's own keys excepted.
const OWN: ReadonlySet<string> = new Set([
  'maxBytes',
  'host',
  'allowedHosts',
  'allowedOrigins',
  'releaseSdkJsonResponses',
  'supportedProtocolVersions',
] satisfies (keyof McpHttpOptions)[])

// Marks what resolveMcpHttpOptions returned, so a step handed raw options (or a look-alike)
// fails loudly instead of running with no limits.
const brand = createResolvedBrand<ResolvedMcpHttpOptions>()

/** True for `localhost`, an address in 127.0.0.0/8, or `::1` (bracketed or not). */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase()
  return (
    h === 'localhost' ||
    h === '::1' ||
    h === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) ||
    h.endsWith('.localhost')
  )
}

/**
 * Validates {@link McpHttpOptions} once, at construction, fills {@link MCP_HTTP_DEFAULTS} and
 * freezes the result; an object this function returned is returned as it is.
 * @throws TypeError on an unknown option, a bad limit, `maxBytes` above 64 MiB, a malformed
 *   host or origin in the allow-lists, a `releaseSdkJsonResponses` that is not a boolean, or a
 *   `supportedProtocolVersions` that is not an array of non-empty strings.
 */
export function resolveMcpHttpOptions(
  options: McpHttpOptions | ResolvedMcpHttpOptions = {},
): ResolvedMcpHttpOptions {
  if (brand.has(options)) return options
  checkOptions(options, VALIDATORS, 'resolveMcpHttpOptions')
  const input: McpHttpOptions = options ?? {}
  const passed: Record<string, unknown> = {}
  for (const key of Object.keys(input)) {
    if (!OWN.has(key)) passed[key] = input[key as keyof McpHttpOptions]
  }
  const d = MCP_HTTP_DEFAULTS
  const admission = resolveHttpAdmissionOptions({
    ...passed,
    maxBytes: input.maxBytes ?? d.maxBytes,
    // The SDK takes application/json only; anything else is refused before a byte is read.
    types: ['application/json'],
    otherTypes: 'refuse',
  })
  const protect = isLoopbackHost(input.host ?? d.host)
  let allowedHosts: readonly string[] | undefined
  if (input.allowedHosts !== undefined) {
    allowedHosts = Object.freeze(input.allowedHosts.map(hostnameOf))
  } else if (protect) {
    allowedHosts = LOOPBACK_NAMES
  }
  let allowedOrigins: readonly string[] | 'loopback' | undefined
  if (input.allowedOrigins !== undefined) {
    allowedOrigins = Object.freeze(input.allowedOrigins.map(originOf))
  } else if (protect || input.allowedHosts !== undefined) {
    allowedOrigins = 'loopback'
  }
  const versions =
    input.supportedProtocolVersions === undefined
      ? d.supportedProtocolVersions
      : Object.freeze([...input.supportedProtocolVersions])
  return brand.mark(
    Object.freeze({
      admission,
      allowedHosts,
      allowedOrigins,
      releaseSdkJsonResponses: input.releaseSdkJsonResponses ?? d.releaseSdkJsonResponses,
      supportedProtocolVersions: versions,
    }),
  )
}

/**
 * Throws unless `options` came from {@link resolveMcpHttpOptions}: the HTTP steps take
 * resolved options only, so they are validated once, at start-up. Internal to the steps.
 * @throws TypeError naming the step.
 */
export function requireResolved(
  step: string,
  options: unknown,
): asserts options is ResolvedMcpHttpOptions {
  if (!brand.has(options)) throw new TypeError(`${step} takes options from resolveMcpHttpOptions()`)
}

function hostnameOf(host: string): string {
  try {
    return new URL(`http://${host}`).hostname
  } catch {
    throw new TypeError('allowedHosts holds a malformed hostname')
  }
}

function originOf(origin: string): string {
  try {
    const url = new URL(origin)
    if (url.origin === 'null') throw new Error('opaque')
    return url.origin
  } catch {
    throw new TypeError('allowedOrigins holds a malformed origin')
  }
}
