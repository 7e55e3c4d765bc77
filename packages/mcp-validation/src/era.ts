// Which MCP era a request belongs to, decided per request as the SDK's own classifier does: a
// 2026-07-28 request carries the protocol version in `params._meta` (there is no `initialize`
// and no session to remember it by). The decorator needs it only to shape what it sends itself
// the way the request's era expects (`resultType`, the cache fields of `tools/list`).

/** The `_meta` key a 2026-07-28 request names its protocol version under. */
export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion'

/** Whether `params` claim the 2026-07-28 envelope: `_meta` holds the protocol-version key. */
export function isModernParams(params: unknown): boolean {
  if (typeof params !== 'object' || params === null) return false
  const meta = (params as { _meta?: unknown })._meta
  return (
    typeof meta === 'object' &&
    meta !== null &&
    !Array.isArray(meta) &&
    Object.hasOwn(meta, PROTOCOL_VERSION_META_KEY)
  )
}
