import type { IncomingMessage } from 'node:http'

/**
 * Sets `req.body` before a read as the body-parser of the Express version in use does, so
 * `json()` is a drop-in on both: body-parser 1.x (Express 4) starts every request it sees at
 * `req.body || {}`, even one it then passes through unread (no body, another media type);
 * body-parser 2.x (Express 5, Connect) leaves a `body` already there and otherwise sets
 * `undefined`. Express 4 is told by its request prototype: `req.param()` was removed in 5.
 * @internal
 */
export function setBodyParserBody(req: IncomingMessage & { body?: unknown }): void {
  if (typeof (req as { param?: unknown }).param === 'function') {
    req.body = req.body || {}
  } else if (!('body' in req)) {
    req.body = undefined
  }
}
