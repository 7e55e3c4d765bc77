// Step 2 of the Streamable HTTP path: the `MCP-Protocol-Version` header, from the head alone.
// The SDK 1.32.2 checks it too, but only after the body is read, and its 400 echoes the sent
// value ("Unsupported protocol version: <value>") on POST, GET and DELETE: a refusal that
// carries the caller's bytes back. Checked here first, the answer is one fixed body per server.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { type ResolvedMcpHttpOptions, requireResolved } from './http-options.js'
import { refuseJsonRpcUnread } from './http-refusal.js'
import { JSON_RPC_ERRORS } from './json-rpc.js'

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
 * The protocol-version step: `true` when the request carries no `MCP-Protocol-Version` header
 * or a supported one; otherwise it has answered 400 with a JSON-RPC error whose `data` is
 * `{ code: 'ERR_MCP_PROTOCOL_VERSION', supported: [...] }` (the server's list, never the sent
 * value) and closed the connection unread. Runs on every method, `initialize` included (a
 * client sends the header only after negotiating a version).
 * @throws TypeError when `options` did not come from `resolveMcpHttpOptions`.
 */
export function guardProtocolVersion(
  req: IncomingMessage,
  res: ServerResponse,
  options: ResolvedMcpHttpOptions,
): boolean {
  requireResolved('guardProtocolVersion', options)
  if (isSupportedProtocolVersion(req, options.supportedProtocolVersions)) return true
  refuseJsonRpcUnread(res, 400, {
    code: JSON_RPC_ERRORS.serverError,
    message: 'Bad Request: unsupported MCP-Protocol-Version',
    data: { code: PROTOCOL_VERSION_REFUSED, supported: options.supportedProtocolVersions },
  })
  return false
}
