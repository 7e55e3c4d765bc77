// The composed Streamable HTTP handlers: a `node:http` handler and an Express one, each holding
// an MCP HTTP admission control and one target (a transport, or a function making one per
// request). A server that routes, authenticates or keeps sessions calls the control's steps
// itself, its own checks between them (see the README).
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  createMcpHttpAdmission,
  isMcpHttpTarget,
  type McpHttpAdmission,
  type McpHttpCall,
  type McpHttpTarget,
} from './http-control.js'

// The control of a handler built without one, made once, when first needed.
let defaultControl: McpHttpAdmission | undefined

function controlOf(mcpHttp: McpHttpAdmission | undefined): McpHttpAdmission {
  if (mcpHttp === undefined) return (defaultControl ??= createMcpHttpAdmission())
  if (typeof (mcpHttp as Partial<McpHttpAdmission> | null)?.handle !== 'function') {
    throw new TypeError('mcpHttp must be a control built by createMcpHttpAdmission()')
  }
  return mcpHttp
}

/**
 * A `node:http` request handler in front of an MCP server's HTTP transport (SDK 1.32's
 * `StreamableHTTPServerTransport`, or SDK 2.4's `createMcpHandler` through `toNodeHandler`),
 * serving both eras on one route, decided per request: `mcpHttp.handle(req, res, target, call)`
 * (see `McpHttpAdmission.handle` for the steps and their order). `mcpHttp` is the control
 * built once by `createMcpHttpAdmission(options)`; default: `createMcpHttpAdmission()` (4 MiB
 * bodies, loopback Host/Origin checks, every method and name served). The returned handler
 * takes the request's per-call facts as an optional third argument ({@link McpHttpCall}: the
 * principal, its pool, a signal).
 * @throws TypeError at construction on a target that is neither a transport nor a function, or
 *   an `mcpHttp` that is not a control.
 */
export function mcpHttpHandler(
  target: McpHttpTarget,
  mcpHttp?: McpHttpAdmission,
): (req: IncomingMessage, res: ServerResponse, call?: McpHttpCall) => Promise<void> {
  const control = controlOf(mcpHttp)
  if (!isMcpHttpTarget(target)) {
    throw new TypeError(
      'target must be a StreamableHTTPServerTransport or a function returning one',
    )
  }
  return (req, res, call) => control.handle(req, res, target, call)
}

/**
 * The Express 5 / Connect form of {@link mcpHttpHandler}:
 * `app.all('/mcp', mcpExpressHandler(transport, mcpHttp))`. Mount it without `express.json()`
 * in front (the body must reach it unread). The principal is what an authentication
 * middleware put in `res.locals.principal`, when a string. An unexpected error goes to
 * `next(err)`. Needs no import of Express.
 * @throws TypeError at construction, as {@link mcpHttpHandler}.
 */
export function mcpExpressHandler(
  target: McpHttpTarget,
  mcpHttp?: McpHttpAdmission,
): (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void {
  const handle = mcpHttpHandler(target, mcpHttp)
  return (req, res, next) => {
    const principal = (res as { locals?: { principal?: unknown } }).locals?.principal
    handle(req, res, typeof principal === 'string' ? { principal } : {}).catch(next)
  }
}
