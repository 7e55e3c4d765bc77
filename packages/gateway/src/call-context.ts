import type { Principal } from './access.js'
import type { GatewayRoute } from './config.js'
import type { RpcNotification, RpcReply } from './rpc-session.js'
import type { ServerRequest } from './upstream.js'

/** Per-request facts from the front that received the message. */
export interface CallContext {
  /** `'2026'` for a stateless 2026-07-28 request, `'2025'` for a session-era one. */
  readonly era: '2025' | '2026'
  /** The W3C `traceparent` of the request, when it carried a well-formed one. */
  readonly traceparent?: string | undefined
  /** Who is calling, and on which route (HTTP); `undefined` serves every tool (stdio). */
  readonly principal?: Principal | undefined
  readonly route?: GatewayRoute | undefined
  /**
   * Sends a notification to the caller about this request (its progress, the upstream's log
   * messages), where the front can (an HTTP answer turned into an event stream); absent, the
   * upstream's notifications about the request are dropped.
   */
  readonly notify?: ((notification: RpcNotification) => void) | undefined
  /**
   * Sends a JSON-RPC request to the caller (a request the upstream makes of its client,
   * relayed under the gateway's id), where the front can; absent, such requests are refused.
   */
  readonly ask?: ((request: Readonly<Record<string, unknown>>) => void) | undefined
  /**
   * Takes a request the upstream sends its client during a 2026-07-28 caller's call, to be
   * carried to the caller in an `input_required` result (see `BridgedCall`); absent, such
   * requests are refused `-32601`. Never rejects.
   */
  readonly collect?: ((request: ServerRequest) => Promise<RpcReply>) | undefined
  /** Aborted when the caller is gone: its request upstream is abandoned. */
  readonly signal?: AbortSignal | undefined
  /** The caller's session-era state (HTTP session or stdio client), kept by the front. */
  readonly session?: CallerSession | undefined
}

/**
 * What the gateway keeps per session-era caller: the log level it set with `logging/setLevel`
 * (answered by the gateway, since one upstream connection serves every caller), and the
 * capabilities it declared in its `initialize` (what the upstream may ask of it).
 */
export interface CallerSession {
  logLevel: LogLevel | undefined
  clientCapabilities?: Readonly<Record<string, unknown>> | undefined
}

/** The MCP log levels, least severe first. */
export const LOG_LEVELS = Object.freeze([
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const)

/** One MCP log level. */
export type LogLevel = (typeof LOG_LEVELS)[number]
