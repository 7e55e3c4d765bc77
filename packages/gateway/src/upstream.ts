import type { RpcNotification, RpcReply } from './rpc-session.js'

/** What the gateway learnt from the upstream's `initialize` on the current connection. */
export interface UpstreamHandshake {
  readonly protocolVersion: string
  readonly capabilities: Readonly<Record<string, unknown>>
  readonly serverInfo: Readonly<Record<string, unknown>>
  readonly instructions?: string
}

/**
 * Per-call facts of one forwarded request (call arguments, never options): what the caller
 * declared, for an upstream that reads it per request (the 2026-07-28 revision), and where the
 * upstream's notifications about this request go.
 */
export interface UpstreamCall {
  /** The caller's `io.modelcontextprotocol/clientCapabilities` (2026-07-28); `{}` when absent. */
  readonly clientCapabilities?: Readonly<Record<string, unknown>> | undefined
  /** The caller's `io.modelcontextprotocol/logLevel` (2026-07-28). */
  readonly logLevel?: string | undefined
  /**
   * Receives the notifications the upstream sends on this request's own answer stream (its
   * progress and log messages), where the upstream has one (Streamable HTTP).
   */
  readonly onNotification?: ((notification: RpcNotification) => void) | undefined
  /** Aborts the request upstream when the caller is gone (its connection closed). */
  readonly signal?: AbortSignal | undefined
  /**
   * Answers a request the upstream sends its client while this call is in flight (sampling,
   * elicitation, roots): relayed to the caller, or refused. Never rejects.
   */
  readonly onRequest?: ((request: ServerRequest) => Promise<RpcReply>) | undefined
  /**
   * Who made the call (the caller's session, compared by identity). On a connection that does
   * not say which request a server request is about (a stdio child), a server request goes to
   * the caller only when every call in flight is that caller's.
   */
  readonly caller?: object | undefined
}

/** A request the upstream sends to its client (the gateway), as received. */
export interface ServerRequest {
  readonly method: string
  readonly params: unknown
}

/** What an upstream tells the gateway: a new connection is ready, a notification, a loss. */
export type UpstreamEvent =
  | { readonly kind: 'ready'; readonly handshake: UpstreamHandshake }
  | { readonly kind: 'notification'; readonly notification: RpcNotification }
  | { readonly kind: 'down' }

/**
 * One upstream MCP server as the gateway holds it (a supervised stdio child, or an HTTP server):
 * it runs its own `initialize` per connection and forwards requests with the gateway's ids.
 */
export interface Upstream {
  /**
   * Sends one request; never rejects (failures are bounded gateway errors). `own` marks the
   * gateway's own requests (its `tools/list` reads): outside the cap on calls in flight, with
   * the initialize deadline. `call` carries the caller's per-request facts.
   */
  request(method: string, params: unknown, own?: boolean, call?: UpstreamCall): Promise<RpcReply>
  /** Sends one notification. */
  notify(method: string, params?: unknown): void
  /** The current connection's handshake, or `undefined` while none is ready. */
  readonly handshake: UpstreamHandshake | undefined
  /** Registers the listener of upstream events (one). */
  listen(listener: (event: UpstreamEvent) => void): void
  /** Connects (or spawns) for the first time; resolves once the first attempt is settled. */
  start(): Promise<void>
  /** Stops for good (the child and its process group are gone when it resolves). */
  close(): Promise<void>
}

/** The `_meta` key a 2026-07-28 result names its server with (the SDK sets it on every result). */
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo'

/**
 * The handshake fields of an `initialize` result (or of a `server/discover` result given a
 * `protocolVersion`), or `undefined` when it is malformed. `serverInfo` is read from the result,
 * or else from its `_meta` under `io.modelcontextprotocol/serverInfo` (where a 2026-07-28
 * server puts it); a server naming neither is given the name `upstream`, so a 2025 client's
 * `initialize` always carries the required `serverInfo.name`.
 */
export function readHandshake(result: unknown): UpstreamHandshake | undefined {
  const r = result as Record<string, unknown> | null
  if (r === null || typeof r !== 'object' || typeof r.protocolVersion !== 'string') return undefined
  const object = (v: unknown): Readonly<Record<string, unknown>> =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
  const info = { ...object(r.serverInfo ?? object(r._meta)[META_SERVER_INFO]) }
  if (typeof info.name !== 'string') info.name = 'upstream'
  if (typeof info.version !== 'string') info.version = '0.0.0'
  return Object.freeze({
    protocolVersion: r.protocolVersion,
    capabilities: object(r.capabilities),
    serverInfo: Object.freeze(info),
    ...(typeof r.instructions === 'string' ? { instructions: r.instructions } : {}),
  })
}

/** The `initialize` the gateway sends as a client, per upstream connection. */
export const GATEWAY_CLIENT_INFO = Object.freeze({ name: 'tollgate-gateway', version: '0.0.0' })

/**
 * The client capabilities the gateway declares in its `initialize` to a 2025-era upstream: it
 * relays sampling, elicitation (form) and roots requests to the caller they are about, and
 * answers them itself (`-32601`) for a caller that did not declare the capability.
 */
export const GATEWAY_CLIENT_CAPABILITIES = Object.freeze({
  sampling: Object.freeze({}),
  elicitation: Object.freeze({}),
  roots: Object.freeze({}),
})

/** The protocol version the gateway asks a 2025-era upstream for. */
export const UPSTREAM_PROTOCOL_VERSION = '2025-06-18'
