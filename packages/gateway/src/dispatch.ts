import type { JsonRpcMessage } from '@tollgate/mcp-transport'
import {
  type CallContext,
  type GatewayResponse,
  type MessagePipeline,
  STATELESS_VERSION,
} from './pipeline.js'

/** Methods of the session era that the 2026-07-28 revision removed. */
const REMOVED_IN_2026: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
])

/** The `_meta` key a 2026-07-28 request names its protocol version with. */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion'

/**
 * Routes one admitted JSON-RPC message (already byte-capped, preflighted and parsed by the
 * front): a request goes through the pipeline; a notification or a response from the client is
 * consumed (the gateway's upstream connection is its own: its `initialized` was sent by the
 * gateway, and a caller's cancellations or answers cannot name the gateway's request ids).
 * A 2026-07-28 request naming another version is answered `-32022` with the supported list; one
 * naming a method that revision removed (`initialize`, `ping`, `logging/setLevel`,
 * `resources/subscribe`, `resources/unsubscribe`) is answered `-32601`.
 * @returns the response to send, or `undefined` when there is none.
 */
export async function dispatchMessage(
  message: JsonRpcMessage,
  pipeline: MessagePipeline,
  context: Omit<CallContext, 'era'> & { readonly era?: CallContext['era'] },
): Promise<GatewayResponse | undefined> {
  const m = message as { id?: unknown; method?: unknown; params?: unknown }
  if (typeof m.method !== 'string') return undefined
  if (m.id === undefined) return undefined
  const id = m.id as string | number
  if (
    m.params !== undefined &&
    (m.params === null || typeof m.params !== 'object' || Array.isArray(m.params))
  ) {
    return { jsonrpc: '2.0', id, error: { code: -32602, message: 'Invalid params' } }
  }
  const params = m.params as Readonly<Record<string, unknown>> | undefined
  const version = requestVersion(params)
  if (version !== undefined && version !== STATELESS_VERSION) {
    return {
      jsonrpc: '2.0',
      id,
      error: {
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: [STATELESS_VERSION] },
      },
    }
  }
  const era = context.era ?? (version === undefined ? '2025' : '2026')
  // The 2026-07-28 revision removed these methods: a stateless server answers them -32601.
  if (era === '2026' && REMOVED_IN_2026.has(m.method)) {
    return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }
  }
  return pipeline.request(id, m.method, params, { ...context, era })
}

/** The protocol version a request names in its `_meta`, if it names one as a string. */
export function requestVersion(
  params: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  const meta = params?._meta
  if (meta === null || typeof meta !== 'object') return undefined
  const v = (meta as Record<string, unknown>)[META_PROTOCOL_VERSION]
  return typeof v === 'string' ? v : undefined
}
