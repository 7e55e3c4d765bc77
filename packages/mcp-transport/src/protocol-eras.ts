// The two MCP eras on one route. A 2025-era client opens a session with `initialize`; a
// 2026-07-28 client sends no handshake and names its version on every request, in the
// `MCP-Protocol-Version` header and in `params._meta["io.modelcontextprotocol/protocolVersion"]`.
// The era is decided per request, as `isLegacyRequest` of `@modelcontextprotocol/server` 2.4
// decides it: a request is modern when it claims a modern version, legacy otherwise. This file
// owns the modern versions a route admits; the 2025-era list stays `supportedProtocolVersions`.
import { MCP_PROTOCOL_VERSIONS } from './http-versions.js'

/**
 * The stateless protocol versions `@modelcontextprotocol/server` 2.4.0 serves (its
 * `SUPPORTED_MODERN_PROTOCOL_VERSIONS`), copied so that importing this package does not load the
 * SDK; a test holds the two equal through the SDK's own `-32022` answer.
 */
export const MCP_MODERN_PROTOCOL_VERSIONS: readonly string[] = Object.freeze(['2026-07-28'])

/**
 * Every protocol version served by default, newest first: the 2026-07-28 revision and the
 * 2025-era versions of `@modelcontextprotocol/sdk` 1.32.2 (which the 2.4 line's legacy fallback
 * serves too).
 */
export const MCP_ALL_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  ...MCP_MODERN_PROTOCOL_VERSIONS,
  ...MCP_PROTOCOL_VERSIONS,
])

/** The first stateless revision: every version from it on is of the modern era. */
const FIRST_MODERN = '2026-07-28'

/** A protocol version's shape (`YYYY-MM-DD`). */
const VERSION_SHAPE = /^\d{4}-\d{2}-\d{2}$/

/**
 * A version token (`v999.0.0`, `1.2.3-rc.1`): digits in at most four dot-separated parts, an
 * optional leading `v` and one optional `-`/`+` suffix of letters, digits, dots and hyphens.
 * A fixed charset: nothing in it can carry markup, quotes or control bytes.
 */
const VERSION_TOKEN = /^v?\d{1,9}(?:\.\d{1,9}){0,3}(?:[-+][0-9A-Za-z.-]{1,16})?$/

/** The longest sent version a `-32022` answer echoes, in bytes (ASCII: one byte a character). */
export const MAX_ECHOED_VERSION_BYTES = 32

/**
 * What `data.requested` of a `-32022` answer holds when the version sent has no version's shape
 * (see {@link isEchoableProtocolVersion}): a fixed word, so the refusal never carries arbitrary
 * caller bytes.
 */
export const UNRECOGNIZED_PROTOCOL_VERSION = 'unrecognized'

/** The `_meta` key of a 2026-07-28 request that names its protocol version. */
export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion'

/** True when `value` has a version's shape (`YYYY-MM-DD`). */
export function hasVersionShape(value: unknown): value is string {
  return typeof value === 'string' && VERSION_SHAPE.test(value)
}

/**
 * True when `value` may be echoed as `data.requested` of a `-32022` answer: at most
 * {@link MAX_ECHOED_VERSION_BYTES} bytes, shaped `YYYY-MM-DD` or a version token such as
 * `v999.0.0` (`^v?\d{1,9}(\.\d{1,9}){0,3}([-+][0-9A-Za-z.-]{1,16})?$`). Anything else is
 * answered with {@link UNRECOGNIZED_PROTOCOL_VERSION}.
 */
export function isEchoableProtocolVersion(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length <= MAX_ECHOED_VERSION_BYTES &&
    (VERSION_SHAPE.test(value) || VERSION_TOKEN.test(value))
  )
}

/** True when `value` is a version of the modern (stateless) era: shaped, and 2026-07-28 or later. */
export function isModernProtocolVersion(value: unknown): value is string {
  return hasVersionShape(value) && value >= FIRST_MODERN
}

/** Options of {@link mcpProtocolEras}. */
export interface McpProtocolErasOptions {
  /**
   * The 2026-07-28-era versions the route admits (each shaped `YYYY-MM-DD`, 2026-07-28 or
   * later). An empty list turns the modern era off: a modern request is then refused like any
   * unsupported version (400 `ERR_MCP_PROTOCOL_VERSION`), so a dual-era client falls back to
   * `initialize`. Default: {@link MCP_MODERN_PROTOCOL_VERSIONS}.
   */
  readonly modernVersions?: readonly string[]
}

/** How a request's `MCP-Protocol-Version` header places it, judged from the head alone. */
export type HeaderVersionVerdict =
  /** No header, or a 2025-era value: judged against `supportedProtocolVersions`. */
  | { readonly era: 'legacy' }
  /** A modern version the route admits. */
  | { readonly era: 'modern'; readonly version: string }
  /** A modern-shaped version the route does not admit: answered `-32022`. */
  | { readonly era: 'unsupported-modern'; readonly requested: string }

/** The era control: which 2026-07-28-era versions a route admits. Frozen. */
export interface McpProtocolEras {
  /** The modern versions admitted (frozen; empty when the modern era is off). */
  readonly modernVersions: readonly string[]
  /**
   * Places a request by its `MCP-Protocol-Version` header (Node's value: a string, or an
   * array when repeated, which is not a modern version).
   */
  judgeHeader(header: string | readonly string[] | undefined): HeaderVersionVerdict
  /**
   * The `requested` member of a `-32022` answer for a version sent: the value itself when
   * {@link isEchoableProtocolVersion}, else {@link UNRECOGNIZED_PROTOCOL_VERSION}.
   */
  requestedOf(sent: unknown): string
}

/**
 * Builds the era control once, at start-up.
 * @throws TypeError on an unknown option, or a `modernVersions` that is not an array of
 *   modern-era versions.
 */
export function mcpProtocolEras(options: McpProtocolErasOptions = {}): McpProtocolEras {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('mcpProtocolEras takes an options object')
  }
  for (const key of Object.keys(options)) {
    if (key !== 'modernVersions') throw new TypeError(`mcpProtocolEras: unknown option ${key}`)
  }
  const given = options.modernVersions ?? MCP_MODERN_PROTOCOL_VERSIONS
  if (!Array.isArray(given) || !given.every(isModernProtocolVersion)) {
    throw new TypeError(
      `modernVersions must be an array of versions shaped YYYY-MM-DD, ${FIRST_MODERN} or later`,
    )
  }
  const modernVersions = Object.freeze([...given])
  const on = modernVersions.length > 0
  return Object.freeze({
    modernVersions,
    judgeHeader(header: string | readonly string[] | undefined): HeaderVersionVerdict {
      if (!on || typeof header !== 'string' || !isModernProtocolVersion(header)) return LEGACY
      if (modernVersions.includes(header)) return { era: 'modern', version: header }
      return { era: 'unsupported-modern', requested: header }
    },
    requestedOf(sent: unknown): string {
      return isEchoableProtocolVersion(sent) ? sent : UNRECOGNIZED_PROTOCOL_VERSION
    },
  })
}

const LEGACY: HeaderVersionVerdict = Object.freeze({ era: 'legacy' })

/** The era control with its defaults: the 2026-07-28 revision admitted. */
export const DEFAULT_PROTOCOL_ERAS: McpProtocolEras = mcpProtocolEras()
