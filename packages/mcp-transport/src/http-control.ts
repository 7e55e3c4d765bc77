// The Streamable HTTP path as one control: built once from its options (the body, era, route and
// caller-key controls it holds, and its own), it offers each step as a method bound to that
// policy, and `handle`, which runs them in their one order. A server that routes, authenticates
// or keeps sessions calls the steps itself, its own checks between them; the per-call facts
// (the principal, its pool, a signal, the route the request arrived on) are call arguments.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ANONYMOUS_POOL, refusalPrincipal } from '@tollgate/http-admission'
import type { RefusalWhere } from '@tollgate/json-budget'
import { type AdmittedMcpBody, admitMcpBody } from './http-body.js'
import { guardBodylessMethod, type HandlesHttpRequest, handleMcpRequest } from './http-handover.js'
import { guardHostAndOrigin } from './http-host-origin.js'
import {
  guardHeaderAgreement,
  guardMcpHead,
  guardModernFirstByte,
  guardModernHttpMethod,
} from './http-modern-steps.js'
import { type McpHttpOptions, type McpHttpPolicy, resolveMcpHttpPolicy } from './http-options.js'
import { guardProtocolVersion } from './http-protocol-version.js'
import { type McpHead, readMcpHead } from './mcp-head.js'
import type { McpRouteHead } from './route-head.js'

/**
 * What a request is handed to once its checks pass: the SDK's `StreamableHTTPServerTransport`
 * itself, or a function returning one per request (stateless servers), called only then.
 * Connect your decorators to the server; hand the transport they wrap here.
 */
export type McpHttpTarget =
  | HandlesHttpRequest
  | ((req: IncomingMessage) => HandlesHttpRequest | Promise<HandlesHttpRequest>)

/**
 * The per-call facts of one request: never options of the control. Each step reports its
 * refusal with the route's `name` and the principal's reportable key (`refusalPrincipal` of
 * `@tollgate/http-admission`: an anonymous caller as `anonymous#<hash>`, never its address).
 */
export interface McpHttpCall {
  /**
   * The caller's key (a credential, tenant or client address, at most 1,024 characters): what
   * the route's quota is asked with and what the body counts against for per-principal shares.
   * Unset: in `handle`, the request is anonymous, keyed by the `callers` control in the
   * `'anonymous'` pool; in the body step, no share applies. Never put in a response.
   */
  readonly principal?: string | undefined
  /**
   * The pool `principal` belongs to (see `AdmitCall.pool` of `@tollgate/http-admission`).
   * In `handle`, ignored without a principal (a request with none is in the `'anonymous'` pool).
   */
  readonly pool?: string | undefined
  /** Aborting it stops the body read with `ERR_BODY_ABORTED` (the client went away). */
  readonly signal?: AbortSignal | undefined
  /**
   * The head admission of the route this request arrived on, for a host serving several
   * routes (each its surface). Default: the control's `route`.
   */
  readonly route?: McpRouteHead | undefined
}

/**
 * The MCP Streamable HTTP admission control (frozen), built by {@link createMcpHttpAdmission}.
 * Each step answers its own refusal (a JSON-RPC error body with the status of its code) and
 * closes the connection unread, then returns `false` (or `undefined`); `true` means go on.
 */
export interface McpHttpAdmission {
  /** The resolved policy: every control built, the allow-lists resolved (frozen). */
  readonly policy: McpHttpPolicy
  /**
   * Step 1, from the head: `Host` and `Origin` against the allow-lists (on by default for a
   * loopback `host`); 403 `ERR_HOST_NOT_ALLOWED` / `ERR_ORIGIN_NOT_ALLOWED`, the sent name never
   * echoed. A request without `Origin` passes the Origin check.
   */
  guardHostAndOrigin(req: IncomingMessage, res: ServerResponse, call?: McpHttpWhere): boolean
  /**
   * Step 2, from the head: `MCP-Protocol-Version`. No header, a supported 2025-era version or a
   * 2026-07-28-era one the `eras` control admits goes on. An unsupported one on a POST goes on
   * too and is refused by {@link McpHttpAdmission.admitMcpBody} once the bounded body is parsed
   * (with the request's `id`: 400 `-32000` `ERR_MCP_PROTOCOL_VERSION`, or `-32022`, or `-32020`
   * when header and `_meta` disagree); on another method it is refused here, `id: null`.
   */
  guardProtocolVersion(req: IncomingMessage, res: ServerResponse, call?: McpHttpWhere): boolean
  /** The MCP facts of a request's head (era, method, name, declared length), by the `eras` control. */
  readMcpHead(req: IncomingMessage): McpHead
  /**
   * A GET, DELETE, … on the 2026-07-28 path (no GET stream, no session): 405 with
   * `Allow: POST`. A POST or a 2025-era request goes on.
   */
  guardModernHttpMethod(res: ServerResponse, head: McpHead, call?: McpHttpWhere): boolean
  /**
   * A method other than POST that declares a body (`Transfer-Encoding`, or `Content-Length`
   * above 0): 413 `ERR_BODY_TOO_LARGE` with `limit` 0, unread, so nothing drains an endless
   * body behind a GET, HEAD, DELETE or PUT.
   */
  guardBodylessMethod(req: IncomingMessage, res: ServerResponse, call?: McpHttpWhere): boolean
  /**
   * The route's head admission (`call.route`, else the control's): an unserved `Mcp-Method`
   * (404 `-32601`), an `Mcp-Name` off the surface (400 `-32602`), a declared length over the
   * tool's cap (413), the quota for `call.principal` (429 with `Retry-After`). Returns the
   * release to call once the request is answered, or `undefined` after refusing. A tool cap it
   * finds holds the body step on the same `res` to that cap as the body arrives.
   */
  guardMcpHead(res: ServerResponse, head: McpHead, call?: McpHttpWhere): (() => void) | undefined
  /**
   * The first body byte of a 2026-07-28 POST: a JSON array (a batch) is refused 400 `-32600`
   * there, the rest never read. Waits at most the body control's `idleTimeoutMs` for it.
   */
  guardModernFirstByte(
    req: IncomingMessage,
    res: ServerResponse,
    head: McpHead,
    call?: McpHttpWhere,
  ): Promise<boolean>
  /**
   * The body of a POST, under the body control (the MCP cap, 4 MiB by default, never above
   * 64 MiB; bytes actually received counted, the preflight as chunks arrive, deadlines, the
   * in-flight budget and `call.principal`'s share), parsed once. On a refusal it has answered
   * (413, 422, 415, 408, 503 with `Retry-After`, or the deferred protocol-version refusal) and
   * closed the connection. An empty body is `ERR_JSON_SYNTAX`.
   * @throws McpBodyAlreadyReadError when another parser (`express.json()`) read the body first.
   */
  admitMcpBody(
    req: IncomingMessage,
    res: ServerResponse,
    call?: Pick<McpHttpCall, 'principal' | 'pool' | 'signal' | 'route'>,
  ): Promise<AdmittedMcpBody>
  /**
   * After the body: every header a 2026-07-28 request mirrors (`Mcp-Method`, `Mcp-Name`,
   * `MCP-Protocol-Version`, `Mcp-Param-*` of `call.route`'s tools) against the parsed body;
   * 400 `-32020` (or `-32022`, `-32602`, `-32600`) with the request's `id`.
   */
  guardHeaderAgreement(
    req: IncomingMessage,
    res: ServerResponse,
    head: McpHead,
    body: unknown,
    call?: McpHttpWhere,
  ): boolean
  /**
   * The hand-over: `transport.handleRequest(req, res, body)` (`body` `undefined` for GET and
   * DELETE), after refusing a non-POST that declares a body and making the SDK's own error
   * answers close like tollgate's; then, with `releaseSdkJsonResponses`, the SDK 1.32.2
   * transport's finished JSON-response entries are released.
   * @throws TypeError when `transport` has no `handleRequest` (hand over the SDK transport a
   *   decorator wraps, not the decorator).
   */
  handleMcpRequest(
    transport: HandlesHttpRequest,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ): Promise<void>
  /**
   * Every step in its one order, then `target`: Host/Origin, protocol version, the 2026-07-28
   * method, a bodyless method's body, the route head (quota for `call.principal`, else the
   * request's `callers` key in the `'anonymous'` pool), for a POST the first byte, the body and
   * the header agreement, then the hand-over. Nothing is built (a function `target` is not
   * called) before the checks pass.
   * @throws TypeError (as a rejection) when `target` is neither a transport nor a function.
   */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    target: McpHttpTarget,
    call?: McpHttpCall,
  ): Promise<void>
}

/** The facts a step reports its refusal with (and the route the head step judges by). */
export type McpHttpWhere = Pick<McpHttpCall, 'principal' | 'pool' | 'route'>

const NO_CALL: McpHttpCall = Object.freeze({})

/** Whether `target` is a transport or a function returning one. @internal */
export function isMcpHttpTarget(target: unknown): target is McpHttpTarget {
  return (
    typeof target === 'function' ||
    typeof (target as Partial<HandlesHttpRequest> | null)?.handleRequest === 'function'
  )
}

/**
 * Builds the MCP Streamable HTTP admission control once, at start-up, from its options
 * ({@link MCP_HTTP_OPTIONS}): `createMcpHttpAdmission({ body: mcpBodyAdmission({ maxBytes }),
 * host, route: mcpRouteHead({ tools }) })`. Every refusal of its steps is a JSON-RPC error with
 * the status of its code (403 Host/Origin, 400 protocol version or header mismatch, 404, 405,
 * 413, 422, 415, 408, 429, 503) and closes the connection unread.
 * @throws TypeError naming the option: an unknown option, a `body` that is not an MCP body
 *   control (application/json only, strict, at most 64 MiB), an `eras`, `route` or `callers`
 *   that is not the control its constructor builds, a malformed host or origin in the
 *   allow-lists, a `releaseSdkJsonResponses` that is not a boolean, or a
 *   `supportedProtocolVersions` that is not an array of non-empty strings.
 */
export function createMcpHttpAdmission(options?: McpHttpOptions): McpHttpAdmission {
  const policy = resolveMcpHttpPolicy(options)
  const { eras, callers, onRefusal } = policy
  const waitMs = policy.body.policy.idleTimeoutMs
  const routeOf = (call: Pick<McpHttpCall, 'route'>): McpRouteHead => call.route ?? policy.route
  const whereOf = (call: McpHttpWhere): RefusalWhere => ({
    route: routeOf(call).name,
    principal: refusalPrincipal(call.principal, call.pool),
  })

  const control: McpHttpAdmission = {
    policy,
    guardHostAndOrigin: (req, res, call = NO_CALL) =>
      guardHostAndOrigin(req, res, policy, whereOf(call)),
    guardProtocolVersion: (req, res, call = NO_CALL) =>
      guardProtocolVersion(req, res, policy, whereOf(call)),
    readMcpHead: (req) => readMcpHead(req, eras),
    guardModernHttpMethod: (res, head, call = NO_CALL) =>
      guardModernHttpMethod(res, head, onRefusal, whereOf(call)),
    guardBodylessMethod: (req, res, call = NO_CALL) =>
      guardBodylessMethod(req, res, policy, whereOf(call)),
    guardMcpHead: (res, head, call = NO_CALL) =>
      guardMcpHead(res, head, routeOf(call), call.principal, onRefusal, whereOf(call)),
    guardModernFirstByte: (req, res, head, call = NO_CALL) =>
      guardModernFirstByte(req, res, head, waitMs, onRefusal, whereOf(call)),
    admitMcpBody: (req, res, call = NO_CALL) =>
      admitMcpBody(req, res, policy, bodyCall(call, routeOf(call)), whereOf(call)),
    guardHeaderAgreement: (req, res, head, body, call = NO_CALL) =>
      guardHeaderAgreement(req, res, head, body, eras, routeOf(call), onRefusal, whereOf(call)),
    handleMcpRequest: (transport, req, res, body) =>
      handleMcpRequest(transport, req, res, body, policy),
    async handle(req, res, target, call = NO_CALL) {
      if (!isMcpHttpTarget(target)) {
        throw new TypeError(
          'target must be a StreamableHTTPServerTransport or a function returning one',
        )
      }
      // The caller's key is known from the head: every step's refusal reports it.
      const principal = call.principal ?? callers.keyOf(req)
      const pool = call.principal === undefined ? ANONYMOUS_POOL : call.pool
      const route = routeOf(call)
      const where = whereOf({ principal, pool, route })
      if (!guardHostAndOrigin(req, res, policy, where)) return
      if (!guardProtocolVersion(req, res, policy, where)) return
      const head = readMcpHead(req, eras)
      if (!guardModernHttpMethod(res, head, onRefusal, where)) return
      if (!guardBodylessMethod(req, res, policy, where)) return
      const release = guardMcpHead(res, head, route, principal, onRefusal, where)
      if (release === undefined) return
      const transportFor = async () => (typeof target === 'function' ? await target(req) : target)
      try {
        if (head.httpMethod !== 'POST') {
          return await handleMcpRequest(await transportFor(), req, res, undefined, policy)
        }
        if (!(await guardModernFirstByte(req, res, head, waitMs, onRefusal, where))) return
        const body = await admitMcpBody(
          req,
          res,
          policy,
          { principal, pool, signal: call.signal, route: route.name },
          where,
        )
        if (!body.ok) return
        if (!guardHeaderAgreement(req, res, head, body.value, eras, route, onRefusal, where)) {
          return
        }
        await handleMcpRequest(await transportFor(), req, res, body.value, policy)
      } finally {
        release()
      }
    },
  }
  return Object.freeze(control)
}

/** The body step's call: the route as its name (the body control's events name it so). */
function bodyCall(
  call: Pick<McpHttpCall, 'principal' | 'pool' | 'signal'>,
  route: McpRouteHead,
): { principal?: string; pool?: string; signal?: AbortSignal; route?: string } {
  return { principal: call.principal, pool: call.pool, signal: call.signal, route: route.name }
}
