// The Streamable HTTP steps of the 2026-07-28 path, each answering its own refusal and closing
// the connection unread (as every early answer does, so an endless body behind a refused head
// is never drained). The composed `mcpHttpHandler` runs them in their one order; a server that
// routes or authenticates itself calls them the same way, its own checks between them.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RefusalHook, RefusalWhere } from '@tollgate/json-budget'
import { recordHeadBodyCap } from './head-body-cap.js'
import { checkHeaderAgreement } from './header-agreement.js'
import {
  codeOfRpcError,
  jsonRpcRequestIdOf,
  refuseJsonRpcUnread,
  reportStepRefusal,
} from './http-refusal.js'
import type { McpHead } from './mcp-head.js'
import { BATCH_CODE, HEADER_MISMATCH_CODE, MODERN_BATCH_ERROR } from './modern-refusal.js'
import type { McpProtocolEras } from './protocol-eras.js'
import type { McpRouteHead } from './route-head.js'

/** `data.code` of the 405 answered to a GET or DELETE on the 2026-07-28 path. */
export const MODERN_METHOD_NOT_ALLOWED_CODE = 'ERR_MCP_METHOD_NOT_ALLOWED'

/**
 * The HTTP method step of the 2026-07-28 path: `true` for a POST or a 2025-era request;
 * otherwise (GET, DELETE, … with a modern `MCP-Protocol-Version`: the revision has no GET
 * stream and no session to delete) it has answered 405 with `Allow: POST` and closed unread.
 */
export function guardModernHttpMethod(
  res: ServerResponse,
  head: McpHead,
  onRefusal?: RefusalHook,
  where?: RefusalWhere,
): boolean {
  if (head.era !== 'modern' || head.httpMethod === 'POST') return true
  refuseJsonRpcUnread(
    res,
    405,
    {
      code: -32000,
      message: 'Method Not Allowed: the 2026-07-28 revision takes POST only',
      data: { code: MODERN_METHOD_NOT_ALLOWED_CODE },
    },
    { Allow: 'POST' },
  )
  reportStepRefusal(
    onRefusal,
    { code: MODERN_METHOD_NOT_ALLOWED_CODE, status: 405 },
    'mcp-method',
    where,
  )
  return false
}

/**
 * The head-admission step: asks `route` (method served, `Mcp-Name` on the surface, declared
 * length under the tool's cap, the host's quota for `principal`). Returns the release to call
 * once the request is answered, or `undefined` after answering the refusal (404 `-32601`,
 * 400 `-32602` `Unknown tool`, 413, 429 with `Retry-After`) unread. When the head names a
 * tool with a byte cap, `admitMcpBody` on the same `res` counts the body against that cap as
 * it arrives (a chunked body past it: the same 413 `ERR_BODY_TOO_LARGE` and `limit`).
 */
export function guardMcpHead(
  res: ServerResponse,
  head: McpHead,
  route: McpRouteHead,
  principal: string | undefined,
  onRefusal?: RefusalHook,
  where?: RefusalWhere,
): (() => void) | undefined {
  const decision = route.admit(head, { principal })
  if (decision.ok) {
    recordHeadBodyCap(res, decision.maxBodyBytes)
    return decision.release
  }
  refuseJsonRpcUnread(res, decision.status, decision.error, decision.headers)
  if (onRefusal !== undefined) {
    const limit = (decision.error.data as { limit?: unknown } | undefined)?.limit
    reportStepRefusal(
      onRefusal,
      {
        code: decision.code,
        status: decision.status,
        limit: typeof limit === 'number' ? limit : undefined,
      },
      'mcp-head',
      where,
    )
  }
  return undefined
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d])

/**
 * The first-byte step of the 2026-07-28 path: reads the first chunk of the body, puts it back
 * for the body step, and refuses a JSON array (a batch) there, 400 `-32600`, closing unread; the
 * rest of the array is never read. `true` to go on: a 2025-era request, another first byte, an
 * encoded body (its first byte is compressed), a first chunk of whitespace alone (the agreement
 * step still refuses an array once parsed), or no chunk within `waitMs` (the body step's own
 * deadlines then judge the silent sender; the composed handler passes the body control's
 * `idleTimeoutMs`). Default `waitMs`: 10,000.
 */
export async function guardModernFirstByte(
  req: IncomingMessage,
  res: ServerResponse,
  head: McpHead,
  waitMs = 10_000,
  onRefusal?: RefusalHook,
  where?: RefusalWhere,
): Promise<boolean> {
  if (head.era !== 'modern' || req.headers['content-encoding'] !== undefined) return true
  const first = await peekFirstByte(req, waitMs)
  if (first !== 0x5b) return true
  refuseJsonRpcUnread(res, 400, MODERN_BATCH_ERROR)
  reportStepRefusal(onRefusal, { code: BATCH_CODE, status: 400 }, 'mcp-first-byte', where)
  return false
}

function peekFirstByte(req: IncomingMessage, waitMs: number): Promise<number | undefined> {
  if (req.readableEnded || req.destroyed) return Promise.resolve(undefined)
  return new Promise((resolve) => {
    // A sender that holds its first byte back must not hold this step forever.
    const timer = setTimeout(() => {
      req.pause()
      done(undefined)
    }, waitMs)
    const done = (value: number | undefined) => {
      clearTimeout(timer)
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('close', onEnd)
      req.off('error', onEnd)
      resolve(value)
    }
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      req.pause()
      done(firstNonWhitespace(bytes))
      // Back at the front of the stream: the body step reads it as if nothing had.
      req.unshift(bytes)
    }
    const onEnd = () => done(undefined)
    req.on('data', onData)
    req.once('end', onEnd)
    req.once('close', onEnd)
    req.once('error', onEnd)
  })
}

function firstNonWhitespace(bytes: Uint8Array): number | undefined {
  for (const byte of bytes) if (!WHITESPACE.has(byte)) return byte
  return undefined
}

/**
 * The agreement step, after the body step: {@link checkHeaderAgreement} of the parsed body
 * against its head, then the route's `prompts` and `resources` against the body on either era
 * (`McpRouteHead.checkNames`); `true` to go on, else it has answered (400 `-32020`, `-32022`,
 * `-32602` or `-32600`, echoing the request's `id`: `null` for a batch or a notification) and
 * closed the connection.
 */
export function guardHeaderAgreement(
  req: IncomingMessage,
  res: ServerResponse,
  head: McpHead,
  body: unknown,
  eras: McpProtocolEras,
  route: McpRouteHead,
  onRefusal?: RefusalHook,
  where?: RefusalWhere,
): boolean {
  const refused = checkHeaderAgreement(head, body, req.headers, eras, route)
  if (refused === undefined) {
    // The route's prompts and resources, judged on the body too: a 2025 request names them
    // nowhere else, and the answer is the head step's, the request's `id` echoed.
    const off = route.checkNames(head, body)
    if (off === undefined) return true
    refuseJsonRpcUnread(res, off.status, off.error, {}, jsonRpcRequestIdOf(body))
    reportStepRefusal(onRefusal, { code: off.code, status: off.status }, 'mcp-head', where)
    return false
  }
  refuseJsonRpcUnread(res, refused.status, refused.error, {}, jsonRpcRequestIdOf(body))
  // -32022 (a version the route does not serve) is a version refusal; anything else here a
  // disagreement between the head and the body.
  const fallback = refused.error.code === -32022 ? 'ERR_MCP_PROTOCOL_VERSION' : HEADER_MISMATCH_CODE
  reportStepRefusal(
    onRefusal,
    { code: codeOfRpcError(refused.error, fallback), status: refused.status },
    'mcp-header-agreement',
    where,
  )
  return false
}
