// A body parser mounted in front of the MCP route (`app.use(express.json())`) reads the body
// before the MCP path can admit it. Left undetected, the drained stream looks like a client that
// stopped short of its Content-Length (400 ERR_BODY_INCOMPLETE on every POST, nothing logged),
// which sends the operator hunting for a client bug. This names the misconfiguration instead.
import type { IncomingMessage } from 'node:http'

/**
 * Thrown (as a rejection of `admitMcpBody`, and handed to `next(err)` by `mcpExpressHandler`)
 * when another parser already read the request body: body-parser 1.x (Express 4's
 * `express.json()`) marks it `req._body = true`; body-parser 2.x (Express 5) leaves the stream
 * ended with `req.body` set. The fix is to remove that parser from the MCP route: the MCP path
 * reads and admits the body itself. A server configuration error, never caused by a client.
 */
export class McpBodyAlreadyReadError extends Error {
  /** Stable: `'ERR_MCP_BODY_ALREADY_READ'`. */
  readonly code = 'ERR_MCP_BODY_ALREADY_READ'

  constructor() {
    super(
      'the request body was already read by another parser: remove express.json() (or any body parser) from the MCP route; mcpExpressHandler and admitMcpBody read the body themselves',
    )
    this.name = 'McpBodyAlreadyReadError'
  }
}

let warned = false

/**
 * Throws {@link McpBodyAlreadyReadError} when another parser already read `req`'s body, and the
 * first time in the process also writes it as a process warning (code
 * `ERR_MCP_BODY_ALREADY_READ`), so the cause is in the logs even when the app's error handler
 * hides it; later requests throw without logging again.
 * @throws McpBodyAlreadyReadError
 */
export function assertBodyUnread(req: IncomingMessage): void {
  const parsed = req as IncomingMessage & { _body?: unknown; body?: unknown }
  const consumed =
    parsed._body === true ||
    (req.readableEnded && (parsed.body !== undefined || declaresBody(req.headers)))
  if (!consumed) return
  const error = new McpBodyAlreadyReadError()
  if (!warned) {
    warned = true
    process.emitWarning(error.message, { code: error.code })
  }
  throw error
}

// A body of one byte or more was announced, yet the stream ended before the MCP path read it.
function declaresBody(headers: IncomingMessage['headers']): boolean {
  const length = headers['content-length']
  return length !== undefined && length !== '0'
}
