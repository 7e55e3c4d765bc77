// The MCP initialize exchange as a raw client writes it: the request, the notification that
// completes it, and the headers a Streamable HTTP POST carries. Plain objects, no SDK, so a
// test can send them through any transport, or alter them. Plain JavaScript (types in the
// .d.mts beside it) so the Node scripts under bench/ and jobs/ import the same exchange.

/** The protocol version the raw clients announce (one the SDK lines under test accept). */
export const PROTOCOL_VERSION = '2025-06-18'

/** The headers a Streamable HTTP client POSTs with (JSON body, JSON or SSE answer). */
export const MCP_POST_HEADERS = Object.freeze({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
})

/**
 * An `initialize` request with request id `id` (default `0`), from client `clientName`
 * (default `'raw'`), announcing `protocolVersion` (default `PROTOCOL_VERSION`). A fresh object
 * each call, so a caller may alter it.
 *
 * @param {number | string} [id]
 * @param {string} [clientName]
 * @param {string} [protocolVersion]
 */
export function initializeRequest(id = 0, clientName = 'raw', protocolVersion = PROTOCOL_VERSION) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion,
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
