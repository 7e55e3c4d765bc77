import type {
  JsonRpcMessage,
  JsonRpcRequestLike,
  McpTransport,
  MessageExtra,
  RequestIdLike,
  TransportSendOptionsLike,
} from './mcp-types.js'

// No SDK import at all: the types are structural stand-ins (see mcp-types.ts).

/** The JSON-RPC error a decorator answers a refused request with. */
export interface JsonRpcErrorObject {
  /** JSON-RPC error code (`-32700` parse error, `-32600` invalid request, `-32000`... server). */
  readonly code: number
  /** A short, bounded message that never holds the caller's bytes. */
  readonly message: string
  /** Optional machine-readable detail (tollgate puts `{ code, limit }` here). */
  readonly data?: unknown
}

/**
 * A generic MCP `Transport` decorator: wraps any SDK transport (stdio, Streamable HTTP, in-memory,
 * or another decorator) and forwards `start`, `send`, `close`, `onmessage`, `onclose`,
 * `onerror`, `sessionId`, `setProtocolVersion` and 2.x's `setSupportedProtocolVersions` and
 * `hasPerRequestStream`. Connect the server to the decorator, not to
 * `inner`: `await server.connect(new MyDecorator(transport))`. The HTTP layer keeps calling
 * `decorator.inner.handleRequest(req, res, body)`.
 *
 * Subclasses override {@link TransportDecorator.handleInbound} to inspect every inbound
 * message (with all its keys, before the SDK's zod parsing strips any) and either pass it on
 * with {@link TransportDecorator.deliver} or answer it with {@link TransportDecorator.reply} /
 * {@link TransportDecorator.replyError} so the server never sees it; and override
 * {@link TransportDecorator.handleOutbound} to inspect or replace what the server sends. The
 * `extra` argument (auth info, request headers) is passed through untouched. Decorators
 * compose by nesting; a reply goes out through this decorator's own `send` and every decorator
 * beneath it.
 *
 * Why a decorator and not a handler on `onmessage`: a handler set on a transport *before*
 * `server.connect()` is kept by the SDK only as a tap that runs first and cannot stop the
 * message (SDK `shared/protocol.js`, `connect`). The object the server connects to is the one
 * place that sees every message on every transport and can keep it from the server.
 *
 * Errors: if `handleInbound` throws (or its promise rejects), the message is not delivered
 * (fail closed), the error goes to `onerror`, and a request is answered with JSON-RPC `-32603`
 * `Internal error`. If `handleOutbound` throws, `send` rejects as the inner `send` would.
 */
export class TransportDecorator<T extends McpTransport = McpTransport> implements McpTransport {
  /** The decorated transport. Call its own methods (e.g. `handleRequest`) through this. */
  readonly inner: T

  // No `| undefined`: SDK 2.x declares these without it, and a project with
  // exactOptionalPropertyTypes checks the declared type against the SDK's.
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JsonRpcMessage, extra?: MessageExtra) => void

  /**
   * Present exactly when `inner` has it (the SDK client checks for its presence), forwarding
   * the negotiated protocol version to `inner`.
   */
  setProtocolVersion?: (version: string) => void

  /**
   * SDK 2.x: present exactly when `inner` has it, forwarding the server's supported protocol
   * versions (which its HTTP transport checks the `MCP-Protocol-Version` header against).
   */
  setSupportedProtocolVersions?: (versions: string[]) => void

  constructor(inner: T) {
    if (typeof inner !== 'object' || inner === null || typeof inner.send !== 'function') {
      throw new TypeError('TransportDecorator needs an MCP Transport to decorate')
    }
    this.inner = inner
    if (typeof inner.setProtocolVersion === 'function') {
      this.setProtocolVersion = (version: string) => inner.setProtocolVersion?.(version)
    }
    if (typeof inner.setSupportedProtocolVersions === 'function') {
      this.setSupportedProtocolVersions = (versions: string[]) =>
        inner.setSupportedProtocolVersions?.(versions)
    }
    // Callbacks already on `inner` (an app's `transport.onclose = ...` for session cleanup, as
    // the SDK examples do) keep running, first, as `Protocol.connect` keeps them.
    const prevClose = inner.onclose
    const prevError = inner.onerror
    const prevMessage = inner.onmessage
    inner.onclose = () => {
      prevClose?.()
      this.onclose?.()
    }
    inner.onerror = (error: Error) => {
      prevError?.(error)
      this.onerror?.(error)
    }
    inner.onmessage = (message: JsonRpcMessage, extra?: MessageExtra) => {
      prevMessage?.(message, extra)
      this.receive(message as JsonRpcMessage | JsonRpcMessage[], extra)
    }
  }

  /**
   * SDK 2.x: whether the inner transport opens a stream per request (its Streamable HTTP
   * transport does), which 2.x's protocol reads to decide on per-request cancellation.
   */
  declare readonly hasPerRequestStream?: boolean

  /** The inner transport's session id (Streamable HTTP); `undefined` for stdio. */
  declare readonly sessionId?: string

  /** Starts the inner transport (the SDK's `server.connect` calls this). */
  start(): Promise<void> {
    return this.inner.start()
  }

  /** Closes the inner transport; its `onclose` reaches this decorator's `onclose`. */
  close(): Promise<void> {
    return this.inner.close()
  }

  /**
   * Sends a message from the server: {@link TransportDecorator.handleOutbound} may inspect or
   * replace it, then the inner transport sends the result with the same `options`. When the
   * hook returns a message (not a promise), the inner `send` is called before this returns, in
   * the same turn, as if the server had called it itself: SDK 2.4's per-request transport sets
   * an error response's HTTP status only for a message it has by then, so a deferred send would
   * answer 200 where the SDK answers 404.
   */
  send(message: JsonRpcMessage, options?: TransportSendOptionsLike): Promise<void> {
    let out: JsonRpcMessage | Promise<JsonRpcMessage>
    try {
      out = this.handleOutbound(message, options)
    } catch (error) {
      return Promise.reject(error)
    }
    if (isPromiseLike(out)) return out.then((each) => this.inner.send(each, options))
    try {
      return this.inner.send(out, options)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /**
   * Inbound hook, called once per message (each element of a batch separately). The default
   * delivers it. Override to refuse: call {@link TransportDecorator.replyError} (or `reply`)
   * and return without delivering. May return a promise; messages are not serialized behind it.
   */
  protected handleInbound(
    message: JsonRpcMessage,
    extra: MessageExtra | undefined,
  ): void | Promise<void> {
    this.deliver(message, extra)
  }

  /** Outbound hook: returns the message to send (the same one, or a replacement). */
  protected handleOutbound(
    message: JsonRpcMessage,
    _options: TransportSendOptionsLike | undefined,
  ): JsonRpcMessage | Promise<JsonRpcMessage> {
    return message
  }

  /** Passes a message on to whatever connected to this decorator, `extra` untouched. */
  protected deliver(message: JsonRpcMessage, extra: MessageExtra | undefined): void {
    this.onmessage?.(message, extra)
  }

  /**
   * Answers request `id` with a result, through this decorator's `send`, so the server never
   * sees the request. Over Streamable HTTP the SDK routes the answer to the request's stream by
   * its id.
   */
  protected reply(id: RequestIdLike, result: Record<string, unknown>): Promise<void> {
    return this.send({ jsonrpc: '2.0', id, result }, { relatedRequestId: id })
  }

  /** Answers request `id` (or `null` when there is none to name) with a JSON-RPC error. */
  protected replyError(id: RequestIdLike | null, error: JsonRpcErrorObject): Promise<void> {
    const message: JsonRpcMessage = { jsonrpc: '2.0', id, error }
    return id === null ? this.send(message) : this.send(message, { relatedRequestId: id })
  }

  private receive(
    message: JsonRpcMessage | JsonRpcMessage[],
    extra: MessageExtra | undefined,
  ): void {
    // The SDK 1.32 transports deliver a batch one message at a time; a transport that hands
    // over the array is handled the same way.
    if (Array.isArray(message)) {
      for (const each of message) this.receiveOne(each, extra)
      return
    }
    this.receiveOne(message, extra)
  }

  private receiveOne(message: JsonRpcMessage, extra: MessageExtra | undefined): void {
    let pending: void | Promise<void>
    try {
      pending = this.handleInbound(message, extra)
    } catch (error) {
      this.failInbound(message, error)
      return
    }
    if (pending !== undefined && typeof pending.then === 'function') {
      pending.then(undefined, (error: unknown) => this.failInbound(message, error))
    }
  }

  private failInbound(message: JsonRpcMessage, error: unknown): void {
    this.onerror?.(error instanceof Error ? error : new Error('inbound hook failed'))
    if (isJsonRpcRequest(message)) {
      this.replyError(message.id, { code: -32603, message: 'Internal error' }).catch((e) =>
        this.onerror?.(e instanceof Error ? e : new Error('reply failed')),
      )
    }
  }
}

// Getters declared as optional properties above: SDK 2.x declares both as optional without
// `| undefined`, and a getter's declared type would not fit it under exactOptionalPropertyTypes.
Object.defineProperties(TransportDecorator.prototype, {
  hasPerRequestStream: {
    configurable: true,
    get(this: TransportDecorator): boolean | undefined {
      return this.inner.hasPerRequestStream
    },
  },
  sessionId: {
    configurable: true,
    get(this: TransportDecorator): string | undefined {
      return this.inner.sessionId
    },
  },
})

function isPromiseLike<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}

/** True for a JSON-RPC request (has `method` and `id`), as opposed to a notification or response. */
export function isJsonRpcRequest(message: unknown): message is JsonRpcRequestLike {
  return (
    typeof message === 'object' &&
    message !== null &&
    typeof (message as { method?: unknown }).method === 'string' &&
    'id' in message &&
    (typeof (message as { id?: unknown }).id === 'string' ||
      typeof (message as { id?: unknown }).id === 'number')
  )
}
