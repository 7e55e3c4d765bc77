/**
 * The gateway's own refusal codes, each with its JSON-RPC error code (in `-32000…-32019`, the
 * range tollgate keeps for itself; `-32020…-32099` belong to the 2026-07-28 revision) and its
 * HTTP status when it is answered before any upstream exchange. Stable once released: codes are
 * added, never renamed or reused.
 */
export const GATEWAY_CODES = Object.freeze({
  /** The upstream is not connected: the child could not be spawned, is restarting, or the breaker is open. */
  ERR_UPSTREAM_UNAVAILABLE: { rpc: -32001, status: 503, message: 'upstream is unavailable' },
  /** The child exited (or the HTTP upstream failed) while the request was in flight. */
  ERR_UPSTREAM_EXITED: { rpc: -32002, status: 502, message: 'upstream exited before answering' },
  /** The upstream did not answer within `--call-timeout-ms`. */
  ERR_UPSTREAM_TIMEOUT: { rpc: -32003, status: 504, message: 'upstream did not answer in time' },
  /** `--max-concurrent-calls` requests are already in flight to the upstream. */
  ERR_UPSTREAM_BUSY: { rpc: -32004, status: 503, message: 'too many calls in flight' },
  /** The child wrote a line past `--max-line-bytes`; it is stopped and restarted. */
  ERR_UPSTREAM_LINE_TOO_LARGE: {
    rpc: -32005,
    status: 502,
    message: 'upstream line exceeds the byte limit',
  },
  /** The upstream answered with something that is not a JSON-RPC response. */
  ERR_UPSTREAM_INVALID: {
    rpc: -32006,
    status: 502,
    message: 'upstream answer is not a JSON-RPC response',
  },
  /** The gateway is draining (SIGTERM): no new calls. */
  ERR_GATEWAY_DRAINING: { rpc: -32007, status: 503, message: 'gateway is shutting down' },
  /** A request the gateway does not forward (a batch, a server-to-client request it cannot route). */
  ERR_GATEWAY_UNSUPPORTED: {
    rpc: -32008,
    status: 400,
    message: 'request is not supported by the gateway',
  },
  /** A 2025-era request without a valid `Mcp-Session-Id` (or naming an unknown or closed one). */
  ERR_SESSION_UNKNOWN: { rpc: -32009, status: 404, message: 'session not found' },
  /** The gateway holds its most session-era sessions; a new `initialize` waits for one to end. */
  ERR_SESSION_LIMIT: { rpc: -32010, status: 503, message: 'too many sessions' },
  /**
   * A 2025-era `Mcp-Session-Id` minted by another gateway instance (or by this one before a
   * restart): the load balancer needs affinity by `Mcp-Session-Id`; a client opens a new session.
   */
  ERR_SESSION_ELSEWHERE: {
    rpc: -32018,
    status: 404,
    message: 'session minted by another instance: route by Mcp-Session-Id',
  },
  /** The principal holds `--max-sessions-per-principal` sessions (across the fleet with a Redis). */
  ERR_SESSION_QUOTA: { rpc: -32019, status: 429, message: 'too many sessions for this caller' },
  /** A client's answer naming no request the gateway relayed to this caller (or one already answered). */
  ERR_RELAY_UNKNOWN: { rpc: -32012, status: 404, message: 'no such request to answer' },
  /** The caller already has its most server-to-client requests waiting for an answer. */
  ERR_RELAY_LIMIT: { rpc: -32013, status: 503, message: 'too many requests await the client' },
  /** The caller did not answer a relayed server-to-client request in time (or went away). */
  ERR_RELAY_TIMEOUT: { rpc: -32014, status: 504, message: 'the client did not answer in time' },
  /** A stdio child's request to its client while several callers' calls are in flight (or none). */
  ERR_RELAY_UNROUTABLE: {
    rpc: -32015,
    status: 503,
    message: 'no single caller to relay the request to',
  },
  /**
   * A `requestState` the gateway did not seal for this caller: not a string, forged, tampered,
   * signed by a key no longer listed, minted for another principal, route, tool or arguments,
   * or carried by a method that takes none. Never forwarded; the handle is never echoed.
   */
  ERR_REQUEST_STATE_INVALID: { rpc: -32016, status: 400, message: 'request state is invalid' },
  /** A sealed `requestState` past its expiry (`requestState.ttlMs`): start the call again. */
  ERR_REQUEST_STATE_EXPIRED: { rpc: -32016, status: 400, message: 'request state has expired' },
  /** A `requestState` longer than `requestState.maxHandleBytes`, refused before decoding. */
  ERR_REQUEST_STATE_TOO_LARGE: {
    rpc: -32016,
    status: 400,
    message: 'request state exceeds the size limit',
  },
  /**
   * A sealed `requestState` naming a parked call (a 2025-era upstream's requests carried to a
   * 2026-07-28 caller as `input_required`) that this instance no longer holds: answered
   * already, past `parkedCalls.ttlMs` (cancelled upstream), parked by another instance, or
   * before a restart. Start the call again.
   */
  ERR_REQUEST_STATE_CALL_GONE: {
    rpc: -32016,
    status: 400,
    message: 'the call this request state names is gone',
  },
  /** The upstream's `requestState` would seal past `requestState.maxHandleBytes`; not sent. */
  ERR_UPSTREAM_STATE_TOO_LARGE: {
    rpc: -32017,
    status: 502,
    message: 'upstream request state exceeds the size limit',
  },
  /** A request that is not a JSON-RPC 2.0 request or notification. */
  ERR_INVALID_REQUEST: { rpc: -32600, status: 400, message: 'Invalid Request' },
} as const)

/** One of the codes in {@link GATEWAY_CODES}. */
export type GatewayCode = keyof typeof GATEWAY_CODES

/** A JSON-RPC error object of the gateway: bounded, never holding caller or upstream bytes. */
export interface GatewayRpcError {
  readonly code: number
  readonly message: string
  readonly data: { readonly code: string; readonly limit?: number }
}

/** The JSON-RPC error object for `code` (with the limit involved, when there is one). */
export function gatewayRpcError(code: GatewayCode, limit?: number): GatewayRpcError {
  const spec = GATEWAY_CODES[code]
  return {
    code: spec.rpc,
    message: limit === undefined ? spec.message : `${spec.message} (limit ${limit})`,
    data: limit === undefined ? { code } : { code, limit },
  }
}
