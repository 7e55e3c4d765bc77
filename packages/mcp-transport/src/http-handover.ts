// Step 4 of the Streamable HTTP path: the SDK transport itself (not a decorator around it)
// gets the admitted body, so it reads nothing again, and the SDK 1.32.2 JSON-response entries
// it keeps are released on that same object, whose private maps the release reads.
//
// Before the hand-over, whatever the SDK might answer early must close like tollgate's own
// answers. The SDK answers a GET, HEAD, DELETE or PUT it does not serve (400, 405, 406, 409)
// without reading the body, and Node then drains that body to keep the connection alive: an
// endless chunked body on a GET was read for ever (8 GB in 10 s, a core per connection). A
// method other than POST has no body the SDK reads, so one that declares a body is refused
// unread here; and any SDK answer given while some of the request is still unread, or any
// error answer, ends in the same bounded lingering close as a refusal (1 MiB / 2 s).
import type { IncomingMessage, ServerResponse } from 'node:http'
import { closeAfterResponse, HTTP_ADMISSION_CODES } from '@tollgate/http-admission'
import { AdmissionError, type RefusalWhere } from '@tollgate/json-budget'
import type { McpHttpPolicy } from './http-options.js'
import { refuseMcpRequest, reportStepRefusal } from './http-refusal.js'
import { releaseFinishedJsonResponses } from './sdk-json-retention.js'

/** What a request is handed to: the SDK's `StreamableHTTPServerTransport` itself. */
export interface HandlesHttpRequest {
  handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>
}

/**
 * Whether `req` declares a body: a `Transfer-Encoding` header (any value: RFC 9112 §6.1 frames
 * a body by it), or a `Content-Length` other than `0`.
 */
function declaresBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true
  const length = req.headers['content-length']
  return length !== undefined && length.trim() !== '0'
}

/**
 * The step before handing a request with no admitted body to the SDK: a method other than POST
 * that declares a body (`Transfer-Encoding`, or `Content-Length` above 0) is refused unread with
 * 413 `ERR_BODY_TOO_LARGE` (limit 0: no method but POST takes a body on an MCP route) as a
 * JSON-RPC error, and the connection closes (1 MiB / 2 s lingering close), so nothing drains an
 * endless body behind a GET, HEAD, DELETE or PUT. Returns `true` when the request may go on.
 * Internal: `McpHttpAdmission.guardBodylessMethod` calls it with the control's policy.
 */
export function guardBodylessMethod(
  req: IncomingMessage,
  res: ServerResponse,
  policy: McpHttpPolicy,
  where?: RefusalWhere,
): boolean {
  if (req.method === 'POST' || !declaresBody(req)) return true
  const error = new AdmissionError(
    'ERR_BODY_TOO_LARGE',
    { limit: 0 },
    HTTP_ADMISSION_CODES.ERR_BODY_TOO_LARGE,
  )
  refuseMcpRequest(res, error, policy)
  reportStepRefusal(policy.onRefusal, error, 'mcp-method', where)
  return false
}

/**
 * Makes the answer an SDK (or any code after tollgate's steps) writes on `res` close its
 * connection when it must: an error answer (status 400 or above), or any answer written while
 * the request is not read to its end, is marked `Connection: close` and followed by the bounded
 * lingering close of `@tollgate/http-admission` (`closeAfterResponse`: at most 1 MiB more read,
 * 2 s, then the socket is destroyed). A successful answer to a request read to its end (a POST
 * whose body was admitted, a bodyless GET's event stream) keeps its connection. Call it before
 * the SDK writes the head; `McpHttpAdmission.handleMcpRequest` does.
 */
export function closeEarlyAnswers(req: IncomingMessage, res: ServerResponse): void {
  if (res.headersSent) return
  const writeHead = res.writeHead
  let armed = false
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    const status = typeof args[0] === 'number' ? args[0] : this.statusCode
    if (!armed && (status >= 400 || !(req.complete || req.readableEnded))) {
      armed = true
      closeAfterResponse(this)
    }
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args)
  } as ServerResponse['writeHead']
}

/**
 * The hand-over step: `transport.handleRequest(req, res, body)` (pass `body` for a POST whose
 * body the body step admitted; leave it `undefined` for GET and DELETE), then, when
 * `releaseSdkJsonResponses` is on (the default), the finished JSON-response entries the SDK
 * 1.32.2 transport would keep until the session closes are released on `transport`. First a
 * non-POST that declares a body is refused unread ({@link guardBodylessMethod}), and the SDK's
 * own answer is made to close as tollgate's do ({@link closeEarlyAnswers}).
 * @throws TypeError when `transport` has no `handleRequest` (a decorator is not a transport:
 *   hand over the SDK transport the decorator wraps). Internal:
 *   `McpHttpAdmission.handleMcpRequest` calls it with the control's policy.
 */
export async function handleMcpRequest(
  transport: HandlesHttpRequest,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  policy: McpHttpPolicy,
): Promise<void> {
  if (typeof transport?.handleRequest !== 'function') {
    throw new TypeError('transport must be the SDK StreamableHTTPServerTransport itself')
  }
  if (!guardBodylessMethod(req, res, policy)) return
  closeEarlyAnswers(req, res)
  try {
    await transport.handleRequest(req, res, body)
  } finally {
    // SDK 1.32.2 keeps every JSON-mode POST (and its parsed body) until the session closes.
    if (policy.releaseSdkJsonResponses) releaseFinishedJsonResponses(transport)
  }
}
