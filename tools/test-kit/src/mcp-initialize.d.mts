// Types of mcp-initialize.mjs (plain JavaScript so Node scripts can import it too).

/** The protocol version the raw clients announce (one the SDK lines under test accept). */
export declare const PROTOCOL_VERSION: '2025-06-18'

/** The headers a Streamable HTTP client POSTs with (JSON body, JSON or SSE answer). */
export declare const MCP_POST_HEADERS: Readonly<Record<string, string>>

/**
 * An `initialize` request with request id `id` (default `0`), from client `clientName`
 * (default `'raw'`), announcing `protocolVersion` (default `PROTOCOL_VERSION`).
 */
export declare function initializeRequest(
  id?: number | string,
  clientName?: string,
  protocolVersion?: string,
): {
  jsonrpc: '2.0'
  id: number | string
  method: 'initialize'
  params: {
    protocolVersion: string
    capabilities: Record<string, never>
    clientInfo: { name: string; version: string }
  }
}

/** The `notifications/initialized` notification a client sends once `initialize` is answered. */
export declare const INITIALIZED_NOTIFICATION: Readonly<{
  jsonrpc: '2.0'
  method: 'notifications/initialized'
}>
