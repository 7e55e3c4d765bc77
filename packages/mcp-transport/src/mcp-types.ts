// Structural stand-ins for the SDK's transport types, so this package's declarations resolve
// without `@modelcontextprotocol/sdk` installed (it is a peer). The SDK's `Transport`,
// `JSONRPCMessage`, `MessageExtraInfo` and `TransportSendOptions` are assignable to these, and a
// `TransportDecorator` is assignable to the SDK's `Transport` (`server.connect(decorator)`).

/** A JSON-RPC request id. */
export type RequestIdLike = string | number

/** A JSON-RPC 2.0 message (request, notification or response), all its keys kept. */
export interface JsonRpcMessage {
  readonly jsonrpc: '2.0'
  readonly [key: string]: unknown
}

/** A JSON-RPC request: a message with a `method` and an `id` (the SDK's `JSONRPCRequest` fits). */
export interface JsonRpcRequestLike extends JsonRpcMessage {
  readonly id: RequestIdLike
  readonly method: string
  readonly params?: { readonly [key: string]: unknown } | undefined
}

/** The `extra` argument of `onmessage` (auth info, request headers), passed through untouched. */
export type MessageExtra = object

/** The options of `send` (the SDK's `TransportSendOptions`). */
export interface TransportSendOptionsLike {
  readonly relatedRequestId?: RequestIdLike | undefined
  readonly resumptionToken?: string | undefined
  readonly onresumptiontoken?: ((token: string) => void) | undefined
}

// A method's parameters are checked bivariantly, so an SDK transport whose `onmessage` takes its
// own (narrower) message type still fits; written as a property so it may also hold `undefined`.
type Bivariant<F extends (...args: never[]) => unknown> = {
  bivarianceHack(...args: Parameters<F>): ReturnType<F>
}['bivarianceHack']

/**
 * The SDK's `Transport` interface (1.32 and 2.x), structurally. The callbacks are optional
 * properties that may also hold `undefined`, as the SDK 1.32 declares them, so a transport or
 * decorator fits under `exactOptionalPropertyTypes` too.
 */
export interface McpTransport {
  start(): Promise<void>
  send(message: JsonRpcMessage, options?: TransportSendOptionsLike): Promise<void>
  close(): Promise<void>
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: Bivariant<(message: JsonRpcMessage, extra?: MessageExtra) => void> | undefined
  sessionId?: string | undefined
  setProtocolVersion?: Bivariant<(version: string) => void> | undefined
  /** SDK 2.x: the server's supported protocol versions, for the HTTP transport's header check. */
  setSupportedProtocolVersions?: Bivariant<(versions: string[]) => void> | undefined
  /** SDK 2.x: true when the transport opens a stream per request (Streamable HTTP). */
  readonly hasPerRequestStream?: boolean | undefined
}
