// The answers the gateway gives from the upstream's handshake: a session-era client's
// `initialize` and a 2026-07-28 client's `server/discover`, with the capabilities it can carry.
import { META_SERVER_INFO, type UpstreamHandshake } from './upstream.js'

/** Protocol versions of the session era the gateway answers `initialize` with. */
export const SESSION_ERA_VERSIONS: readonly string[] = Object.freeze([
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
])

/** The stateless revision the gateway serves. */
export const STATELESS_VERSION = '2026-07-28'

/**
 * The gateway's `initialize` result for a session-era client: the version it asked for when the
 * gateway serves it (else the newest), the capabilities the gateway carries, and the upstream's
 * `serverInfo` and `instructions`.
 */
export function initializeResult(
  params: Readonly<Record<string, unknown>> | undefined,
  handshake: UpstreamHandshake,
): unknown {
  const asked = params?.protocolVersion
  const version =
    typeof asked === 'string' && SESSION_ERA_VERSIONS.includes(asked)
      ? asked
      : (SESSION_ERA_VERSIONS[0] as string)
  return {
    protocolVersion: version,
    capabilities: servedCapabilities(handshake),
    serverInfo: handshake.serverInfo,
    ...(handshake.instructions === undefined ? {} : { instructions: handshake.instructions }),
  }
}

/**
 * The gateway's `server/discover` result for a 2026-07-28 client: the stateless version, the
 * capabilities the gateway carries, the upstream's `instructions`, caching hints (not cached,
 * private), and the upstream's `serverInfo` in `_meta` as the revision places it.
 */
export function discoverResult(handshake: UpstreamHandshake): unknown {
  return {
    supportedVersions: [STATELESS_VERSION],
    capabilities: servedCapabilities(handshake),
    ...(handshake.instructions === undefined ? {} : { instructions: handshake.instructions }),
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { [META_SERVER_INFO]: handshake.serverInfo },
  }
}

/**
 * The upstream's capabilities the gateway can carry: tools, resources (no subscriptions: the
 * gateway holds no stream per caller), prompts, completions and logging (the messages about a
 * request, relayed on its answer's stream). Tasks are not carried.
 */
export function servedCapabilities(handshake: UpstreamHandshake): Record<string, unknown> {
  const c = handshake.capabilities
  const out: Record<string, unknown> = { tools: {} }
  if (c.resources !== undefined) out.resources = {}
  if (c.prompts !== undefined) out.prompts = {}
  if (c.completions !== undefined) out.completions = {}
  if (c.logging !== undefined) out.logging = {}
  return out
}
