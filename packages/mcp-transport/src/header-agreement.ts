// Header/body agreement on the 2026-07-28 path, after the parse. Routing headers are what an
// intermediary (this one included, before the body) judged; the body is what the server runs.
// If the two may differ, an allow-list on `Mcp-Name` admits `tools/call` of another tool, and a
// quota or a per-tool cap is charged to the wrong name. So every mirrored header must match,
// and a missing one is a mismatch too: 400 `-32020`, naming the header, never a value.
import type { IncomingHttpHeaders } from 'node:http'
import type { McpHead } from './mcp-head.js'
import { decodeMcpHeaderValue, headerMatchesValue, mirroredText } from './mcp-header-value.js'
import { valueAt } from './mcp-param-headers.js'
import {
  type HeaderMismatchKind,
  headerMismatchError,
  MCP_MODERN_ERRORS,
  MODERN_BATCH_ERROR,
  unsupportedVersionError,
} from './modern-refusal.js'
import {
  hasVersionShape,
  isModernProtocolVersion,
  type McpProtocolEras,
  PROTOCOL_VERSION_META_KEY,
} from './protocol-eras.js'
import type { McpRouteHead } from './route-head.js'
import type { JsonRpcErrorObject } from './transport-decorator.js'

/** A refused body: HTTP status and the JSON-RPC error answered. */
export interface AgreementRefusal {
  readonly status: number
  readonly error: JsonRpcErrorObject
}

// The body field `Mcp-Name` mirrors, per method (the spec's table, and the tasks extension's).
const NAME_SOURCE: Readonly<Record<string, string>> = Object.freeze({
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
})

const MISSING_ENVELOPE: JsonRpcErrorObject = Object.freeze({
  code: MCP_MODERN_ERRORS.invalidParams,
  message: 'Invalid params: the request carries no _meta protocol version',
})

type Obj = Record<string, unknown>
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

function metaOf(message: Obj): Obj | undefined {
  const params = message.params
  const meta = isObject(params) ? params._meta : undefined
  return isObject(meta) ? meta : undefined
}

function claims(message: unknown): boolean {
  if (!isObject(message)) return false
  const meta = metaOf(message)
  return meta !== undefined && Object.hasOwn(meta, PROTOCOL_VERSION_META_KEY)
}

/**
 * Checks a parsed body against the head it came with. On the 2026-07-28 path: one message (an
 * array is `-32600`), a `_meta` protocol version (else `-32602`) equal to the header's, and
 * `Mcp-Method`, `Mcp-Name` (decoded) and each `Mcp-Param-{Name}` the tool's published schema
 * declares present and equal to the body (else `-32020`). On the 2025 path (which includes a
 * header naming a version the route does not serve): a body whose `_meta` names a version
 * other than a 2025-era one must name the header's (else `-32020`); one the route does not
 * serve is then `-32022` with `requested` echoed only when it has a version's shape
 * (`mcpProtocolEras().requestedOf`), an admitted one sent without the header `-32020`; a batch
 * holding a modern message is `-32600`. `undefined` when the body may go on.
 */
export function checkHeaderAgreement(
  head: McpHead,
  body: unknown,
  headers: IncomingHttpHeaders,
  eras: McpProtocolEras,
  route: McpRouteHead,
): AgreementRefusal | undefined {
  if (eras.modernVersions.length === 0) return undefined
  const mismatch = (header: string, kind: HeaderMismatchKind): AgreementRefusal => {
    route.report({ type: 'header-mismatch', header, kind })
    return { status: 400, error: headerMismatchError(header, kind) }
  }
  if (Array.isArray(body)) {
    return head.era === 'modern' || body.some(claims)
      ? { status: 400, error: MODERN_BATCH_ERROR }
      : undefined
  }
  if (!isObject(body)) return undefined
  const meta = metaOf(body)
  const claimed = meta !== undefined && Object.hasOwn(meta, PROTOCOL_VERSION_META_KEY)
  const version = claimed ? meta[PROTOCOL_VERSION_META_KEY] : undefined
  const method = typeof body.method === 'string' ? body.method : undefined
  const isRequest = method !== undefined && Object.hasOwn(body, 'id')
  if (head.era === 'legacy') {
    // A 2025-era version in `_meta` is not a claim on the modern era: the 2025 path ignores it.
    if (!claimed || (hasVersionShape(version) && !isModernProtocolVersion(version))) {
      return undefined
    }
    // Header and `_meta` agree first: a version sent in the header is judged only once the body
    // names the same one, so `-32022` never reports a version the other half contradicts.
    const sent = headers['mcp-protocol-version']
    if (sent !== undefined && sent !== version) return mismatch('MCP-Protocol-Version', 'mismatch')
    if (!isModernProtocolVersion(version) || !eras.modernVersions.includes(version)) {
      const requested = eras.requestedOf(version)
      return { status: 400, error: unsupportedVersionError(eras.modernVersions, requested) }
    }
    return mismatch('MCP-Protocol-Version', 'missing')
  }
  // A posted response or a body that is no JSON-RPC message is the server's to answer, as the
  // SDK routes them; an `initialize` under a modern header is the SDK's header mismatch.
  if (method === undefined) return undefined
  if (!claimed) {
    if (method === 'initialize') return mismatch('MCP-Protocol-Version', 'mismatch')
    return { status: 400, error: MISSING_ENVELOPE }
  }
  if (version !== head.version) return mismatch('MCP-Protocol-Version', 'mismatch')
  if (head.method === undefined) {
    if (isRequest) return mismatch('Mcp-Method', 'missing')
  } else if (head.method !== method) {
    return mismatch('Mcp-Method', 'mismatch')
  }
  if (!isRequest || method === undefined || !Object.hasOwn(NAME_SOURCE, method)) return undefined
  const params = isObject(body.params) ? body.params : undefined
  const field = NAME_SOURCE[method] as string
  const named = params?.[field]
  const bodyName = typeof named === 'string' ? named : undefined
  if (head.name === undefined) {
    if (bodyName !== undefined) return mismatch('Mcp-Name', 'missing')
  } else if (head.name === null) {
    return mismatch('Mcp-Name', 'encoding')
  } else if (bodyName !== undefined && head.name !== bodyName) {
    return mismatch('Mcp-Name', 'mismatch')
  }
  if (method !== 'tools/call' || bodyName === undefined) return undefined
  const args = params?.arguments
  for (const declared of route.paramHeadersOf(bodyName)) {
    const value = valueAt(args, declared.path)
    if (value === undefined || value === null || mirroredText(value) === undefined) continue
    const header = `Mcp-Param-${declared.name}`
    const raw = headers[header.toLowerCase()]
    if (raw === undefined) return mismatch(header, 'missing')
    const decoded = decodeMcpHeaderValue(raw)
    if (decoded === undefined) return mismatch(header, 'encoding')
    if (!headerMatchesValue(decoded, value)) return mismatch(header, 'mismatch')
  }
  return undefined
}
