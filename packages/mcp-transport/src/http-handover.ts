// Step 4 of the Streamable HTTP path: the SDK transport itself (not a decorator around it)
// gets the admitted body, so it reads nothing again, and the SDK 1.32.2 JSON-response entries
// it keeps are released on that same object, whose private maps the release reads.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { type ResolvedMcpHttpOptions, requireResolved } from './http-options.js'
import { releaseFinishedJsonResponses } from './sdk-json-retention.js'

/** What a request is handed to: the SDK's `StreamableHTTPServerTransport` itself. */
export interface HandlesHttpRequest {
  handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>
}

/**
 * The hand-over step: `transport.handleRequest(req, res, body)` (pass `body` for a POST whose
 * body {@link admitMcpBody} admitted; leave it `undefined` for GET and DELETE), then, when
 * `releaseSdkJsonResponses` is on (the default), the finished JSON-response entries the SDK
 * 1.32.2 transport would keep until the session closes are released on `transport`.
 * @throws TypeError when `transport` has no `handleRequest` (a decorator is not a transport:
 *   hand over the SDK transport the decorator wraps), or when `options` did not come from
 *   `resolveMcpHttpOptions`.
 */
export async function handleMcpRequest(
  transport: HandlesHttpRequest,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  options: ResolvedMcpHttpOptions,
): Promise<void> {
  requireResolved('handleMcpRequest', options)
  if (typeof transport?.handleRequest !== 'function') {
    throw new TypeError('transport must be the SDK StreamableHTTPServerTransport itself')
  }
  try {
    await transport.handleRequest(req, res, body)
  } finally {
    // SDK 1.32.2 keeps every JSON-mode POST (and its parsed body) until the session closes.
    if (options.releaseSdkJsonResponses) releaseFinishedJsonResponses(transport)
  }
}
