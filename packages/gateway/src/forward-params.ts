// What of a caller's request params reaches the upstream, and the per-request facts read from
// its `_meta`.
import type { CallContext } from './call-context.js'

/** `_meta` keys of the 2026-07-28 revision, which a session-era upstream must not see. */
export const META_PREFIX = 'io.modelcontextprotocol/'
/** The `_meta` key of a 2026-07-28 request's client capabilities. */
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'
/** The `_meta` key of a 2026-07-28 request's log level. */
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel'

/** The `_meta` object of request params, if they carry one. */
export function metaOf(
  params: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> | undefined {
  const meta = params?._meta
  return meta !== null && typeof meta === 'object' && !Array.isArray(meta)
    ? (meta as Record<string, unknown>)
    : undefined
}

/** `value` when it is a plain object, else `{}`. */
export function objectOrEmpty(value: unknown): Readonly<Record<string, unknown>> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
}

/**
 * The params the upstream receives: the parsed, admitted value, re-serialized by the gateway's
 * transport; the caller's `_meta` keeps only keys that are not the 2026 revision's own (those
 * the upstream needs travel as {@link UpstreamCall} facts) and not `progressToken` (the
 * gateway sends its own); the request's `traceparent` is added.
 */
export function forwardParams(
  params: Readonly<Record<string, unknown>> | undefined,
  context: CallContext,
): Record<string, unknown> {
  const { _meta, ...rest } = params ?? {}
  const meta: Record<string, unknown> = {}
  if (_meta !== null && typeof _meta === 'object' && !Array.isArray(_meta)) {
    for (const [key, value] of Object.entries(_meta)) {
      if (
        !key.startsWith(META_PREFIX) &&
        key !== 'progressToken' &&
        key !== 'traceparent' &&
        key !== 'tracestate'
      ) {
        meta[key] = value
      }
    }
  }
  if (context.traceparent !== undefined) meta.traceparent = context.traceparent
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta }
}
