// The shape of a request to a Streamable HTTP upstream in its era: the headers, and the
// per-request facts a 2026-07-28 upstream reads from `_meta`.
import { GATEWAY_CLIENT_INFO, type UpstreamCall } from './upstream.js'

/** The stateless revision's version. */
export const STATELESS = '2026-07-28'

/** The era an HTTP upstream was detected in (`undefined` while detecting). */
export type UpstreamEra =
  | { readonly kind: 'stateless' }
  | { readonly kind: 'session'; readonly id: string | undefined; readonly version: string }

/**
 * The headers and params of one message to the upstream. To a stateless upstream (and for
 * `server/discover`, which detects it): the version, the caller's capabilities and log level
 * and the gateway's client info in `_meta`, and the `MCP-Protocol-Version`, `Mcp-Method` and
 * `Mcp-Name` headers mirroring the body. To a session-era upstream: its version and its
 * `Mcp-Session-Id`.
 */
export function shapeRequest(
  era: UpstreamEra | undefined,
  method: string,
  params: Record<string, unknown> | undefined,
  call?: UpstreamCall,
): { headers: Record<string, string>; params: Record<string, unknown> | undefined } {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  }
  let p = params
  if (era?.kind === 'stateless' || method === 'server/discover') {
    p = {
      ...(p ?? {}),
      _meta: {
        ...((p?._meta as Record<string, unknown> | undefined) ?? {}),
        'io.modelcontextprotocol/protocolVersion': STATELESS,
        'io.modelcontextprotocol/clientCapabilities': call?.clientCapabilities ?? {},
        'io.modelcontextprotocol/clientInfo': GATEWAY_CLIENT_INFO,
        ...(call?.logLevel === undefined
          ? {}
          : { 'io.modelcontextprotocol/logLevel': call.logLevel }),
      },
    }
    headers['mcp-protocol-version'] = STATELESS
    headers['mcp-method'] = method
    const name = mirroredName(method, p)
    if (name !== undefined) headers['mcp-name'] = name
  } else if (era?.kind === 'session') {
    headers['mcp-protocol-version'] = era.version
    if (era.id !== undefined) headers['mcp-session-id'] = era.id
  }
  return { headers, params: p }
}

/** The `Mcp-Name` a 2026-07-28 request mirrors: the tool or prompt name, or the resource URI. */
function mirroredName(
  method: string,
  params: Record<string, unknown> | undefined,
): string | undefined {
  const value =
    method === 'resources/read'
      ? params?.uri
      : method === 'tools/call' || method === 'prompts/get'
        ? params?.name
        : undefined
  if (typeof value !== 'string') return undefined
  return /^[\x21-\x7e]*$/.test(value)
    ? value
    : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`
}
