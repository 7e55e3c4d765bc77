// The composed Streamable HTTP handler: the steps of the path, in their one order, for a server
// with one transport (or one made per request). A server that routes, authenticates or keeps
// sessions calls the same steps itself, its own checks between them (see the README).
import type { IncomingMessage, ServerResponse } from 'node:http'
import { admitMcpBody } from './http-body.js'
import { type HandlesHttpRequest, handleMcpRequest } from './http-handover.js'
import { guardHostAndOrigin } from './http-host-origin.js'
import { type McpHttpOptions, resolveMcpHttpOptions } from './http-options.js'
import { guardProtocolVersion } from './http-protocol-version.js'

/**
 * The target of {@link mcpHttpHandler}: the SDK's `StreamableHTTPServerTransport` itself, or a
 * function returning one per request (stateless servers), called only once the request's
 * checks have passed (a POST's body admitted). Connect your decorators to the server; hand the
 * transport they wrap here.
 */
export type McpHttpTarget =
  | HandlesHttpRequest
  | ((req: IncomingMessage) => HandlesHttpRequest | Promise<HandlesHttpRequest>)

/**
 * A `node:http` request handler in front of the SDK's `StreamableHTTPServerTransport`, built
 * from the exported steps in order: {@link guardHostAndOrigin} (on by default for a loopback
 * `host`), {@link guardProtocolVersion}, for a POST {@link admitMcpBody} (the 4 MiB MCP cap,
 * never above 64 MiB; a batch is one body), then {@link handleMcpRequest}, which hands the
 * parsed body to the SDK and releases its finished JSON-response entries. GET (SSE) and DELETE
 * skip the body step. Nothing is built (a function target is not called) before the checks
 * pass. Every refusal is a JSON-RPC error body with the status of its code (403 Host/Origin,
 * 400 protocol version, 413, 422, 415, 408, 503) and closes the connection unread.
 * @throws TypeError at construction on bad options or a target that is neither a transport nor
 *   a function.
 */
export function mcpHttpHandler(
  target: McpHttpTarget,
  options: McpHttpOptions = {},
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const resolved = resolveMcpHttpOptions(options)
  if (
    typeof target !== 'function' &&
    typeof (target as Partial<HandlesHttpRequest> | null)?.handleRequest !== 'function'
  ) {
    throw new TypeError(
      'target must be a StreamableHTTPServerTransport or a function returning one',
    )
  }
  const transportFor = async (req: IncomingMessage) =>
    typeof target === 'function' ? await target(req) : target
  return async (req, res) => {
    if (!guardHostAndOrigin(req, res, resolved)) return
    if (!guardProtocolVersion(req, res, resolved)) return
    if (req.method !== 'POST') {
      return handleMcpRequest(await transportFor(req), req, res, undefined, resolved)
    }
    const body = await admitMcpBody(req, res, resolved)
    if (!body.ok) return
    await handleMcpRequest(await transportFor(req), req, res, body.value, resolved)
  }
}

/**
 * The Express 5 / Connect form of {@link mcpHttpHandler}: `app.all('/mcp', mcpExpressHandler(t))`.
 * Mount it without `express.json()` in front (the body must reach it unread). An unexpected
 * error goes to `next(err)`. Needs no import of Express.
 */
export function mcpExpressHandler(
  target: McpHttpTarget,
  options: McpHttpOptions = {},
): (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void {
  const handle = mcpHttpHandler(target, options)
  return (req, res, next) => {
    handle(req, res).catch(next)
  }
}
