import {
  BODY_ADMISSION_OPTIONS,
  type BodyAdmission,
  type BodyAdmissionOptions,
  type BodyPolicy,
  bodyAdmission,
  type CallerKeys,
  callerKeys,
  isBodyAdmission,
} from '@tollgate/http-admission'
import {
  booleanOption,
  defineOptions,
  ON_REFUSAL_OPTION,
  type OptionsOf,
  option,
  type RefusalHook,
  type ResolvedOf,
} from '@tollgate/json-budget'
import { MCP_PROTOCOL_VERSIONS } from './http-versions.js'
import { DEFAULT_PROTOCOL_ERAS, type McpProtocolEras } from './protocol-eras.js'
import { type McpRouteHead, mcpRouteHead } from './route-head.js'

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

// A control option holds an object another constructor built; its shape is checked once, here.
function controlOption(methods: readonly string[], builtBy: string) {
  return (value: unknown, name: string): void => {
    const control = value as Record<string, unknown> | null
    if (
      typeof control !== 'object' ||
      control === null ||
      methods.some((m) => typeof control[m] !== 'function')
    ) {
      throw new TypeError(`${name} must be a control built by ${builtBy}`)
    }
  }
}

/**
 * The options of {@link createMcpHttpAdmission}, declared once: the controls it holds (the
 * body, the eras, the route head, the caller keys: each built by its own constructor, its
 * options never re-listed here) and the path's own options. The README's table is
 * `MCP_HTTP_OPTIONS.markdown()`.
 */
export const MCP_HTTP_OPTIONS = defineOptions('createMcpHttpAdmission', {
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
    doc: 'the body control POST bodies are admitted with (413, 422, 415, 408, 503)',
  }),
  eras: option<McpProtocolEras | undefined>({
    default: undefined,
    check: controlOption(['judgeHeader', 'requestedOf'], 'mcpProtocolEras()'),
    shown: '`mcpProtocolEras()`',
    doc: 'which 2026-07-28-era versions are admitted (`mcpProtocolEras({ modernVersions })`)',
  }),
  route: option<McpRouteHead | undefined>({
    default: undefined,
    check: controlOption(['admit', 'checkNames', 'paramHeadersOf', 'report'], 'mcpRouteHead()'),
    shown: '`mcpRouteHead()`: every method and name',
    doc: "the route's head admission (surface, per-tool byte caps, quota); a host serving several routes passes each request's in the call (`{ route }`)",
  }),
  callers: option<CallerKeys | undefined>({
    default: undefined,
    check: controlOption(['keyOf'], 'callerKeys()'),
    shown: '`callerKeys()`',
    doc: "who a request without a principal is, in `handle`: its peer address's key, counted in the `'anonymous'` pool",
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
    doc: "hostnames a request's `Host` may name (port ignored; IPv6 in brackets); setting it turns Host validation on (403 `ERR_HOST_NOT_ALLOWED`)",
  }),
  allowedOrigins: option<readonly string[] | undefined>({
    default: undefined,
    check: stringList,
    shown: 'any loopback origin, when validation is on',
    doc: "origins (`scheme://host[:port]`) a request's `Origin` may name, when it sends one (403 `ERR_ORIGIN_NOT_ALLOWED`)",
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
    doc: '2025-era `MCP-Protocol-Version` values a request may carry; another is refused with 400 `ERR_MCP_PROTOCOL_VERSION`',
  }),
  onRefusal: option({
    ...ON_REFUSAL_OPTION,
    doc: 'called once per refusal of every step with a frozen `{ code, status, limit?, option?, control }` (`control`: `mcp-host-origin`, `mcp-protocol-version`, `mcp-method`, `mcp-head`, `mcp-first-byte`, `mcp-body`, `mcp-header-agreement`), never the caller’s bytes; a throwing hook is caught',
  }),
})

/** Options of {@link createMcpHttpAdmission} (see {@link MCP_HTTP_OPTIONS}); every field optional. */
export type McpHttpOptions = OptionsOf<typeof MCP_HTTP_OPTIONS.rows>

/** The resolved policy of an MCP HTTP admission control: every control built, frozen. */
export interface McpHttpPolicy {
  /** The body control POST bodies are admitted with. */
  readonly body: BodyAdmission
  /** The 2026-07-28-era versions admitted. */
  readonly eras: McpProtocolEras
  /** The route head a call that names none is judged by. */
  readonly route: McpRouteHead
  /** Who a request without a principal is. */
  readonly callers: CallerKeys
  /** Lower-case hostnames allowed in `Host`, or `undefined` when Host is not validated. */
  readonly allowedHosts: readonly string[] | undefined
  /**
   * Allowed origins (serialized as `URL.origin`), `'loopback'` for any loopback origin, or
   * `undefined` when Origin is not validated.
   */
  readonly allowedOrigins: readonly string[] | 'loopback' | undefined
  /** Whether finished SDK JSON-response entries are released after each POST. */
  readonly releaseSdkJsonResponses: boolean
  /** The 2025-era `MCP-Protocol-Version` values admitted (frozen). */
  readonly supportedProtocolVersions: readonly string[]
  /** Called once per refusal of every step, or `undefined`. */
  readonly onRefusal: RefusalHook | undefined
}

const LOOPBACK_NAMES = Object.freeze(['localhost', '127.0.0.1', '[::1]'])

// The controls of a path configured without them, built once, when first needed.
let defaults: { body: BodyAdmission; route: McpRouteHead; callers: CallerKeys } | undefined

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
 * Validates {@link McpHttpOptions} once and fills the defaults (a body control
 * `mcpBodyAdmission()` with the 4 MiB cap, `mcpRouteHead()`, `callerKeys()` when none is
 * given): the policy {@link createMcpHttpAdmission} holds. Internal to the control.
 * @throws TypeError naming the option (see {@link createMcpHttpAdmission}).
 */
export function resolveMcpHttpPolicy(options: McpHttpOptions | undefined): McpHttpPolicy {
  const input: ResolvedOf<typeof MCP_HTTP_OPTIONS.rows> = MCP_HTTP_OPTIONS.resolve(options)
  defaults ??= { body: mcpBodyAdmission(), route: mcpRouteHead(), callers: callerKeys() }
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
  return Object.freeze({
    body: input.body ?? defaults.body,
    eras: input.eras ?? DEFAULT_PROTOCOL_ERAS,
    route: input.route ?? defaults.route,
    callers: input.callers ?? defaults.callers,
    allowedHosts,
    allowedOrigins,
    releaseSdkJsonResponses: input.releaseSdkJsonResponses,
    supportedProtocolVersions: input.supportedProtocolVersions,
    onRefusal: input.onRefusal,
  })
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
