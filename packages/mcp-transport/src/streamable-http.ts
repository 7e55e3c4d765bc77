// The composed Streamable HTTP handler: the steps of the path, in their one order, for a server
// with one transport (or one made per request). A server that routes, authenticates or keeps
// sessions calls the same steps itself, its own checks between them (see the README).
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ANONYMOUS_POOL, type CallerKeys, callerKeys } from '@tollgate/http-admission'
import { admitMcpBody } from './http-body.js'
import { guardBodylessMethod, type HandlesHttpRequest, handleMcpRequest } from './http-handover.js'
import { guardHostAndOrigin } from './http-host-origin.js'
import {
  guardHeaderAgreement,
  guardMcpHead,
  guardModernFirstByte,
  guardModernHttpMethod,
  MODERN_METHOD_NOT_ALLOWED_CODE,
} from './http-modern-steps.js'
import { type McpHttpOptions, resolveMcpHttpOptions } from './http-options.js'
import { guardProtocolVersion } from './http-protocol-version.js'
import { reportMcpRefusal } from './http-refusal.js'
import { readMcpHead } from './mcp-head.js'
import { BATCH_CODE } from './modern-refusal.js'
import { DEFAULT_PROTOCOL_ERAS, type McpProtocolEras } from './protocol-eras.js'
import { type McpRouteHead, mcpRouteHead } from './route-head.js'

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
 * The per-call facts of one request handed to {@link mcpHttpHandler}'s handler, as its third
 * argument (a server that authenticates calls `handle(req, res, { principal })`).
 */
export interface McpHttpCall {
  /**
   * The caller's key (a credential, tenant or client address, at most 1,024 characters): what
   * the route's quota is asked with and what the body counts against for per-principal shares.
   * Unset: the request is anonymous, keyed by `controls.callers`. Never put in a response.
   */
  readonly principal?: string | undefined
  /**
   * The pool `principal` belongs to (see `AdmitCall.pool` of `@tollgate/http-admission`).
   * Ignored without a principal: a request with none is keyed by `controls.callers` in the
   * `'anonymous'` pool.
   */
  readonly pool?: string | undefined
}

/**
 * The controls {@link mcpHttpHandler} holds besides its options: built once by their own
 * constructors, never re-listed here.
 */
export interface McpHttpControls {
  /** Which 2026-07-28-era versions the route admits. Default: `mcpProtocolEras()`. */
  readonly eras?: McpProtocolEras
  /**
   * The route's head admission (surface, per-tool byte caps, quota, audit). Default:
   * `mcpRouteHead()`, which serves every method and name.
   */
  readonly route?: McpRouteHead
  /**
   * Who a request without a principal is: its `callerKeys` key (the peer address, IPv6 by /64,
   * forwarded hops only from trusted proxies), counted in the `'anonymous'` pool, so one
   * anonymous caller holds a member's share of the anonymous pool and the pool one principal's
   * share. Default: `callerKeys()`.
   */
  readonly callers?: CallerKeys
}

/**
 * A `node:http` request handler in front of an MCP server's HTTP transport (SDK 1.32's
 * `StreamableHTTPServerTransport`, or SDK 2.4's `createMcpHandler` through `toNodeHandler`),
 * serving both eras on one route, decided per request. Built from the exported steps in
 * order: {@link guardHostAndOrigin} (on by default for a loopback `host`),
 * {@link guardProtocolVersion} (2025-era versions from the options, 2026-07-28-era ones from
 * `controls.eras`), {@link guardModernHttpMethod} (405 for GET/DELETE on the 2026-07-28 path),
 * {@link guardBodylessMethod} (a non-POST declaring a body: 413 unread),
 * {@link guardMcpHead} (method, `Mcp-Name`, per-tool cap, quota: from the head alone), for a
 * POST {@link guardModernFirstByte} (a batch refused at its first byte on the 2026-07-28
 * path), {@link admitMcpBody} (the 4 MiB MCP cap, never above 64 MiB), {@link guardHeaderAgreement}
 * (every mirrored header against the parsed body), then {@link handleMcpRequest}, which hands
 * the parsed body over and releases SDK 1.32's finished JSON-response entries. GET (SSE) and
 * DELETE of the 2025 path skip the body steps; one that declares a body is refused unread (413,
 * limit 0), and every error answer the SDK writes closes the connection like a refusal. Nothing is built (a function target is not
 * called) before the checks pass. Every refusal is a JSON-RPC error body with the status of its
 * code (403 Host/Origin, 400 protocol version or header mismatch, 404 method, 405, 413, 422,
 * 415, 408, 429, 503) and closes the connection unread. The returned handler takes the
 * request's per-call facts as an optional third argument ({@link McpHttpCall}: the principal).
 * Each refusal is reported once to the `onRefusal` of the control that refused: the options'
 * (Host/Origin, version, method, batch, empty body; also the default body control's and the
 * default route's), or the `body` and `route` controls' own when the host built them.
 * @throws TypeError at construction on bad options or a target that is neither a transport nor
 *   a function.
 */
export function mcpHttpHandler(
  target: McpHttpTarget,
  options: McpHttpOptions = {},
  controls: McpHttpControls = {},
): (req: IncomingMessage, res: ServerResponse, call?: McpHttpCall) => Promise<void> {
  const resolved = resolveMcpHttpOptions(options)
  const eras = controls.eras ?? DEFAULT_PROTOCOL_ERAS
  const hook = resolved.onRefusal
  // The default route reports to the path's hook; a route the host built reports to its own.
  const route =
    controls.route ?? (hook === undefined ? DEFAULT_ROUTE : mcpRouteHead({ onRefusal: hook }))
  const callers = controls.callers ?? DEFAULT_CALLERS
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
  return async (req, res, call = {}) => {
    if (!guardHostAndOrigin(req, res, resolved)) return
    if (!guardProtocolVersion(req, res, resolved, eras)) return
    const head = readMcpHead(req, eras)
    if (!guardModernHttpMethod(res, head)) {
      reportMcpRefusal(hook, 'mcp-method', { code: MODERN_METHOD_NOT_ALLOWED_CODE, status: 405 })
      return
    }
    if (!guardBodylessMethod(req, res, resolved)) return
    const principal = call.principal ?? callers.keyOf(req)
    const pool = call.principal === undefined ? ANONYMOUS_POOL : call.pool
    const release = guardMcpHead(res, head, route, principal)
    if (release === undefined) return
    try {
      if (head.httpMethod !== 'POST') {
        return await handleMcpRequest(await transportFor(req), req, res, undefined, resolved)
      }
      const waitMs = resolved.admission.idleTimeoutMs
      if (!(await guardModernFirstByte(req, res, head, waitMs))) {
        reportMcpRefusal(hook, 'mcp-batch', { code: BATCH_CODE, status: 400 })
        return
      }
      const body = await admitMcpBody(req, res, resolved, { principal, pool })
      if (!body.ok) return
      if (!guardHeaderAgreement(req, res, head, body.value, eras, route)) return
      await handleMcpRequest(await transportFor(req), req, res, body.value, resolved)
    } finally {
      release()
    }
  }
}

const DEFAULT_ROUTE: McpRouteHead = mcpRouteHead()
const DEFAULT_CALLERS: CallerKeys = callerKeys()

/**
 * The Express 5 / Connect form of {@link mcpHttpHandler}: `app.all('/mcp', mcpExpressHandler(t))`.
 * Mount it without `express.json()` in front (the body must reach it unread). An unexpected
 * error goes to `next(err)`. Needs no import of Express.
 */
export function mcpExpressHandler(
  target: McpHttpTarget,
  options: McpHttpOptions = {},
  controls: McpHttpControls = {},
): (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void {
  const handle = mcpHttpHandler(target, options, controls)
  return (req, res, next) => {
    // The principal an authentication middleware put in `res.locals.principal`, if a string.
    const principal = (res as { locals?: { principal?: unknown } }).locals?.principal
    handle(req, res, typeof principal === 'string' ? { principal } : {}).catch(next)
  }
}
