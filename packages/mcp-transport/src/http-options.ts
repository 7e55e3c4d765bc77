import {
  BODY_ADMISSION_OPTIONS,
  type BodyAdmission,
  type BodyAdmissionOptions,
  type BodyPolicy,
  bodyAdmission,
  isBodyAdmission,
} from '@tollgate/http-admission'
import {
  booleanOption,
  createResolvedBrand,
  defineOptions,
  ON_REFUSAL_OPTION,
  type OptionsOf,
  option,
  type RefusalHook,
  type ResolvedOf,
} from '@tollgate/json-budget'

const MiB = 1024 * 1024

/** The MCP Streamable HTTP POST body cap by default: 4 MiB (a batch is one body). */
export const MCP_HTTP_BODY_BYTES = 4 * MiB

/** The highest MCP Streamable HTTP body cap that may be configured: 64 MiB. */
export const MCP_HTTP_BODY_BYTES_CEILING = 64 * MiB

// What the MCP path fixes itself: the SDK takes application/json only, a JSON-RPC message is an
// object or an array, and the parsed value is what the SDK is handed.
const FIXED = ['types', 'otherTypes', 'passMethods', 'type', 'limit', 'strict', 'reviver'] as const

/**
 * The options of {@link mcpBodyAdmission}: http-admission's body options but those the MCP
 * path fixes (`types`, `otherTypes`, `passMethods`, `type`, `limit`, `strict`, `reviver`), with
 * the MCP cap: `maxBytes` 4 MiB by default, never above 64 MiB.
 */
export const MCP_BODY_OPTIONS = BODY_ADMISSION_OPTIONS.without('mcpBodyAdmission', ...FIXED).with(
  'mcpBodyAdmission',
  {
    maxBytes: {
      default: MCP_HTTP_BODY_BYTES,
      ceiling: MCP_HTTP_BODY_BYTES_CEILING,
      doc: 'largest POST body, in bytes actually received (a batch is one body); a smaller value is kept; at most 64 MiB',
    },
  },
)

/** Options of {@link mcpBodyAdmission} (see {@link MCP_BODY_OPTIONS}). */
export type McpBodyOptions = OptionsOf<typeof MCP_BODY_OPTIONS.rows>

const MCP_TYPES: readonly string[] = Object.freeze(['application/json'])

/**
 * The body control of the MCP Streamable HTTP path: `bodyAdmission()` of
 * `@tollgate/http-admission` with the MCP cap (4 MiB by default, never above 64 MiB) and
 * `application/json` only (another type is refused with 415 before a byte is read).
 * @throws TypeError naming the option: an unknown or bad option, one the MCP path fixes, or
 *   `maxBytes` above 64 MiB.
 */
export function mcpBodyAdmission(options?: McpBodyOptions): BodyAdmission {
  const o = MCP_BODY_OPTIONS.resolve(options)
  return bodyAdmission({ ...(o as BodyAdmissionOptions), types: MCP_TYPES, otherTypes: 'refuse' })
}

function stringList(value: unknown, name: string): void {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.length === 0)) {
    throw new TypeError(`${name} must be an array of non-empty strings`)
  }
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
 * The options of the Streamable HTTP steps ({@link resolveMcpHttpOptions}) and of the composed
 * `mcpHttpHandler` / `mcpExpressHandler`, declared once: the body control they hold, and the
 * path's own options. The body's options belong to the control (`mcpBodyAdmission()`).
 */
export const MCP_HTTP_OPTIONS = defineOptions('resolveMcpHttpOptions', {
  body: option<BodyAdmission | undefined>({
    default: undefined,
    check: (value, name) => {
      if (!isBodyAdmission(value)) {
        throw new TypeError(`${name} must be a control built by mcpBodyAdmission()`)
      }
      const policy = value.policy as BodyPolicy
      if (
        policy.otherTypes !== 'refuse' ||
        policy.types.length !== 1 ||
        policy.types[0] !== 'application/json' ||
        !policy.strict ||
        policy.maxBytes > MCP_HTTP_BODY_BYTES_CEILING
      ) {
        throw new TypeError(`${name} must take application/json only, strict (mcpBodyAdmission())`)
      }
    },
    shown: '`mcpBodyAdmission()` (4 MiB)',
    doc: 'the body control POST bodies are admitted with',
  }),
  host: option({
    default: '127.0.0.1',
    check: (value, name) => {
      if (typeof value !== 'string' || value.length === 0) {
        throw new TypeError(`${name} must be a non-empty string`)
      }
    },
    doc: 'the address the server listens on; on a loopback address Host and Origin validation against DNS rebinding is on by default',
  }),
  allowedHosts: option<readonly string[] | undefined>({
    default: undefined,
    check: stringList,
    shown: '`localhost`, `127.0.0.1`, `[::1]` on a loopback `host`, else none',
    doc: "hostnames a request's `Host` may name (port ignored; IPv6 in brackets); setting it turns Host validation on",
  }),
  allowedOrigins: option<readonly string[] | undefined>({
    default: undefined,
    check: stringList,
    shown: 'any loopback origin, when validation is on',
    doc: "origins (`scheme://host[:port]`) a request's `Origin` may name, when it sends one",
  }),
  releaseSdkJsonResponses: option({
    default: true,
    check: booleanOption,
    doc: "after each POST, release the finished JSON-response entries `@modelcontextprotocol/sdk` 1.32.2's transport keeps (an SDK defect; see the README)",
  }),
  supportedProtocolVersions: option<readonly string[]>({
    default: MCP_PROTOCOL_VERSIONS,
    check: stringList,
    normalize: (value) => Object.freeze([...value]),
    shown: '`MCP_PROTOCOL_VERSIONS`',
    doc: '`MCP-Protocol-Version` values a request may carry; another is refused with 400 `ERR_MCP_PROTOCOL_VERSION` before its body is read',
  }),
  onRefusal: option({
    ...ON_REFUSAL_OPTION,
    doc: "called once per refusal of the path's own steps (Host/Origin, version, method, batch, empty body) with json-budget's frozen `RefusalEvent`, after the answer is written; also the hook of the default `body` control and of the composed handler's default route; a throwing hook is caught",
  }),
})

/** Options of the Streamable HTTP steps (see {@link MCP_HTTP_OPTIONS}); every field optional. */
export type McpHttpOptions = OptionsOf<typeof MCP_HTTP_OPTIONS.rows>

/** The options after {@link resolveMcpHttpOptions}: validated, frozen. */
export interface ResolvedMcpHttpOptions {
  /** The body control POST bodies are admitted with. */
  readonly body: BodyAdmission
  /** The body control's policy (`body.policy`; `maxBytes` is the MCP cap). */
  readonly admission: BodyPolicy
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
  /** The hook the path's own steps report their refusals to, if any. */
  readonly onRefusal: RefusalHook | undefined
}

/**
 * The defaults: 4 MiB POST bodies, bound to 127.0.0.1 with DNS-rebinding protection on, the
 * SDK's finished JSON-response entries released after each POST, and the SDK's protocol
 * versions. The other body defaults (nodes, depth, deadlines, ...) are http-admission's.
 */
export const MCP_HTTP_DEFAULTS = Object.freeze({
  maxBytes: MCP_HTTP_BODY_BYTES,
  host: MCP_HTTP_OPTIONS.defaults.host,
  releaseSdkJsonResponses: MCP_HTTP_OPTIONS.defaults.releaseSdkJsonResponses,
  supportedProtocolVersions: MCP_HTTP_OPTIONS.defaults.supportedProtocolVersions,
})

const LOOPBACK_NAMES = Object.freeze(['localhost', '127.0.0.1', '[::1]'])

// The body control of a path configured without one, built once, when first needed.
let defaultBody: BodyAdmission | undefined

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
 * Validates {@link McpHttpOptions} once, at construction, fills the defaults (a body control
 * `mcpBodyAdmission()` with the 4 MiB cap when none is given) and freezes the result; an
 * object this function returned is returned as it is. The steps hold the result.
 * @throws TypeError naming the option: an unknown option, a `body` that is not an MCP body
 *   control (application/json only, strict, at most 64 MiB), a malformed host or origin in the
 *   allow-lists, a `releaseSdkJsonResponses` that is not a boolean, or a
 *   `supportedProtocolVersions` that is not an array of non-empty strings.
 */
export function resolveMcpHttpOptions(
  options: McpHttpOptions | ResolvedMcpHttpOptions = {},
): ResolvedMcpHttpOptions {
  if (brand.has(options)) return options
  const input: ResolvedOf<typeof MCP_HTTP_OPTIONS.rows> = MCP_HTTP_OPTIONS.resolve(options)
  // The default body control reports to the path's hook; one without a hook is shared.
  const hook = input.onRefusal
  const body =
    input.body ??
    (hook === undefined
      ? (defaultBody ??= mcpBodyAdmission())
      : mcpBodyAdmission({ onRefusal: hook }))
  const protect = isLoopbackHost(input.host)
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
  return brand.mark(
    Object.freeze({
      body,
      admission: body.policy,
      allowedHosts,
      allowedOrigins,
      releaseSdkJsonResponses: input.releaseSdkJsonResponses,
      supportedProtocolVersions: input.supportedProtocolVersions,
      onRefusal: hook,
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
