// Step 2 of the Streamable HTTP path: the `MCP-Protocol-Version` header, from the head alone.
// The SDK 1.32.2 checks it too, but only after the body is read, and its 400 echoes the sent
// value ("Unsupported protocol version: <value>") on POST, GET and DELETE: a refusal that
// carries the caller's bytes back. Checked here first, the answer is one fixed body per server.
// A 2026-07-28-era version is judged by the era control (`mcpProtocolEras`): admitted when the
// route serves it, else the spec's `-32022`, which tells a dual-era client what to retry with.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { type ResolvedMcpHttpOptions, requireResolved } from './http-options.js'
import { refuseJsonRpcUnread } from './http-refusal.js'
import { JSON_RPC_ERRORS } from './json-rpc.js'
import { unsupportedVersionError } from './modern-refusal.js'
import { DEFAULT_PROTOCOL_ERAS, type McpProtocolEras } from './protocol-eras.js'

/** The code of the refusal for an `MCP-Protocol-Version` the server does not support. */
export const PROTOCOL_VERSION_REFUSED = 'ERR_MCP_PROTOCOL_VERSION'

/**
 * Whether a request's `MCP-Protocol-Version` header is absent or one of `supported`. A repeated
 * header (which Node joins with `, `) is not a supported value.
 */
export function isSupportedProtocolVersion(
  req: IncomingMessage,
  supported: readonly string[],
): boolean {
  const sent = req.headers['mcp-protocol-version']
  return sent === undefined || (typeof sent === 'string' && supported.includes(sent))
}

/**
 * The protocol-version step: `true` when the request carries no `MCP-Protocol-Version` header,
 * a supported 2025-era one (`supportedProtocolVersions`), or a 2026-07-28-era one `eras`
 * admits (default: 2026-07-28). Otherwise it has answered and closed the connection unread: a
 * modern-shaped version the route does not admit gets 400 `-32022` with `data` exactly
 * `{ supported, requested }` (the modern versions admitted, and the sent version, which has a
 * version's shape); anything else gets 400 `-32000` with `data`
 * `{ code: 'ERR_MCP_PROTOCOL_VERSION', supported: [...] }` (the 2025-era list, never the sent
 * value). Runs on every method, `initialize` included (a client sends the header only after
 * negotiating a version).
 * @throws TypeError when `options` did not come from `resolveMcpHttpOptions`.
 */
export function guardProtocolVersion(
  req: IncomingMessage,
  res: ServerResponse,
  options: ResolvedMcpHttpOptions,
  eras: McpProtocolEras = DEFAULT_PROTOCOL_ERAS,
): boolean {
  requireResolved('guardProtocolVersion', options)
  const verdict = eras.judgeHeader(req.headers['mcp-protocol-version'])
  if (verdict.era === 'modern') return true
  if (verdict.era === 'unsupported-modern') {
    refuseJsonRpcUnread(res, 400, unsupportedVersionError(eras.modernVersions, verdict.requested))
    return false
  }
  if (isSupportedProtocolVersion(req, options.supportedProtocolVersions)) return true
  refuseJsonRpcUnread(res, 400, {
    code: JSON_RPC_ERRORS.serverError,
    message: 'Bad Request: unsupported MCP-Protocol-Version',
    data: { code: PROTOCOL_VERSION_REFUSED, supported: options.supportedProtocolVersions },
  })
  return false
}
