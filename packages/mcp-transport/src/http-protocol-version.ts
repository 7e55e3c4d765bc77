// Step 2 of the Streamable HTTP path: the `MCP-Protocol-Version` header. The SDK 1.32.2 checks
// it too, but echoes the sent value ("Unsupported protocol version: <value>") on POST, GET and
// DELETE: a refusal that carries the caller's bytes back. Here the answer is built from
// server-side values only, and echoes a sent version only when it has a version's shape.
//
// An unsupported version is not a pre-body refusal. JSON-RPC requires an error to carry the
// request's id, and the 2026-07-28 revision requires `-32022` to name the version requested and
// to be judged with `_meta` (header and body must agree first): both live in the body. So a POST
// with an unsupported version goes on to the bounded body step (the MCP cap, the preflight, the
// deadlines: the same bounds as any other POST) and is refused by that step once parsed, with
// its id, before anything else sees the body. A request without a body (GET, DELETE) has no id to wait for: it is
// refused here, unread.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RefusalWhere } from '@tollgate/json-budget'
import type { McpHttpPolicy } from './http-options.js'
import { refuseJsonRpcUnread, reportStepRefusal } from './http-refusal.js'
import { JSON_RPC_ERRORS } from './json-rpc.js'
import { headerMismatchError, unsupportedVersionError } from './modern-refusal.js'
import {
  hasVersionShape,
  isModernProtocolVersion,
  type McpProtocolEras,
  PROTOCOL_VERSION_META_KEY,
} from './protocol-eras.js'
import type { JsonRpcErrorObject } from './transport-decorator.js'

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

/** What a version refusal reports (`-32022` answers too: the route does not serve the version). */
export const VERSION_FACTS = Object.freeze({
  code: PROTOCOL_VERSION_REFUSED,
  status: 400,
  option: 'supportedProtocolVersions',
})

/** A POST whose version was found unsupported from its head, refused once its body is parsed. */
interface DeferredVersion {
  /** The 2025-era versions the `-32000` answer lists. */
  readonly legacySupported: readonly string[]
  /** Set when the header named a modern-shaped version the route does not admit. */
  readonly modernRequested: string | undefined
  /** The era control the step was called with. */
  readonly eras: McpProtocolEras
}

// Keyed by the request object, so an entry lives exactly as long as its request.
const deferred = new WeakMap<IncomingMessage, DeferredVersion>()

/**
 * The protocol-version step: `true` when the request carries no `MCP-Protocol-Version` header,
 * a supported 2025-era one (`supportedProtocolVersions`), a 2026-07-28-era one `eras` admits
 * (default: 2026-07-28), or, on a POST, an unsupported one: that POST is refused by the body
 * step, `admitMcpBody`, once its bounded body is parsed (so the refusal carries the request's
 * `id` and is judged with `_meta`: see {@link takeDeferredVersionRefusal}). A request without a body (GET, DELETE, …) with an unsupported
 * version is answered here and closed unread, `id: null`: a modern-shaped version the route
 * does not admit with 400 `-32022` and `data` exactly `{ supported, requested }`; anything else
 * with 400 `-32000` and `data` `{ code: 'ERR_MCP_PROTOCOL_VERSION', supported: [...] }` (the
 * 2025-era list, never the sent value). Runs on every method, `initialize` included.
 * Internal: `McpHttpAdmission.guardProtocolVersion` calls it with the control's policy.
 */
export function guardProtocolVersion(
  req: IncomingMessage,
  res: ServerResponse,
  policy: McpHttpPolicy,
  where?: RefusalWhere,
): boolean {
  const eras = policy.eras
  const verdict = eras.judgeHeader(req.headers['mcp-protocol-version'])
  if (verdict.era === 'modern') return true
  const modernRequested = verdict.era === 'unsupported-modern' ? verdict.requested : undefined
  if (modernRequested === undefined) {
    if (isSupportedProtocolVersion(req, policy.supportedProtocolVersions)) return true
  }
  const pending = { legacySupported: policy.supportedProtocolVersions, modernRequested, eras }
  if ((req.method ?? '').toUpperCase() === 'POST') {
    deferred.set(req, pending)
    return true
  }
  refuseJsonRpcUnread(res, 400, versionRefusal(pending))
  reportStepRefusal(policy.onRefusal, VERSION_FACTS, 'mcp-protocol-version', where)
  return false
}

/**
 * The refusal {@link guardProtocolVersion} left for after the body of `req`, judged with the
 * parsed `body`, if any. A body whose `_meta` names a version other than a 2025-era one must
 * name the header's (else `-32020`, header and `_meta` agreeing first); the version is then
 * answered `-32022` with `requested` by {@link McpProtocolEras.requestedOf}. Otherwise a
 * modern-shaped header gets `-32022` and anything else the `-32000` `ERR_MCP_PROTOCOL_VERSION`
 * answer. Taken once.
 * @internal
 */
export function takeDeferredVersionRefusal(
  req: IncomingMessage,
  body: unknown,
): JsonRpcErrorObject | undefined {
  const pending = deferred.get(req)
  if (pending === undefined) return undefined
  deferred.delete(req)
  const eras = pending.eras
  const claimed = claimedVersionOf(body)
  const modernClaim =
    claimed !== undefined && !(hasVersionShape(claimed) && !isModernProtocolVersion(claimed))
  if (eras.modernVersions.length > 0 && modernClaim) {
    if (req.headers['mcp-protocol-version'] !== claimed) {
      return headerMismatchError('MCP-Protocol-Version', 'mismatch')
    }
    return unsupportedVersionError(eras.modernVersions, eras.requestedOf(claimed))
  }
  return versionRefusal(pending)
}

/** `params._meta["io.modelcontextprotocol/protocolVersion"]` of one message, when present. */
function claimedVersionOf(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined
  const params = (body as { params?: unknown }).params
  if (typeof params !== 'object' || params === null) return undefined
  const meta = (params as { _meta?: unknown })._meta
  if (
    typeof meta !== 'object' ||
    meta === null ||
    !Object.hasOwn(meta, PROTOCOL_VERSION_META_KEY)
  ) {
    return undefined
  }
  return (meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY]
}

function versionRefusal(pending: DeferredVersion): JsonRpcErrorObject {
  const eras = pending.eras
  if (pending.modernRequested !== undefined) {
    return unsupportedVersionError(eras.modernVersions, eras.requestedOf(pending.modernRequested))
  }
  return {
    code: JSON_RPC_ERRORS.serverError,
    message: 'Bad Request: unsupported MCP-Protocol-Version',
    data: { code: PROTOCOL_VERSION_REFUSED, supported: pending.legacySupported },
  }
}
