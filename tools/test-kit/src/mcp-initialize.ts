// The MCP initialize exchange as a raw client writes it: the request, the notification that
// completes it, and the headers a Streamable HTTP POST carries. Plain objects, no SDK, so a
// test can send them through any transport, or alter them.

/** The protocol version the raw clients announce (one the SDK lines under test accept). */
export const PROTOCOL_VERSION = '2025-06-18'

/** The headers a Streamable HTTP client POSTs with (JSON body, JSON or SSE answer). */
export const MCP_POST_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
})

/** An `initialize` request with request id `id` (default `0`), from client `clientName` (default `'raw'`). */
export function initializeRequest(id: number | string = 0, clientName = 'raw') {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: clientName, version: '0' },
    },
  }
}

/** The `notifications/initialized` notification a client sends once `initialize` is answered. */
export const INITIALIZED_NOTIFICATION = Object.freeze({
  jsonrpc: '2.0',
  method: 'notifications/initialized',
})
