import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js'
import type {
  JSONRPCMessage,
  MessageExtraInfo,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js'
import { isJsonRpcRequest, TransportDecorator } from '@tollgate/mcp-transport'
import { checkToolCall } from './check-call.js'
import {
  type InputValidationOptions,
  type ResolvedInputValidationOptions,
  resolveOptions,
} from './options.js'
import { renderArgumentsRefusal, UNKNOWN_TOOL_ERROR } from './refusal.js'
import type { SchemaRegistry } from './registry.js'
import { rewriteToolsListResult } from './tools-list.js'

/**
 * The transport decorator {@link withInputValidation} returns. It sees every inbound message
 * before the SDK parses it (where zod's default `z.object` would drop unknown argument keys)
 * and answers refused `tools/call` requests itself, so the server never sees them.
 */
export class InputValidationTransport<
  T extends Transport = Transport,
> extends TransportDecorator<T> {
  readonly #registry: SchemaRegistry
  readonly #options: ResolvedInputValidationOptions
  readonly #pendingLists = new Set<RequestId>()

  constructor(inner: T, registry: SchemaRegistry, options: InputValidationOptions = {}) {
    super(inner)
    if (
      typeof registry !== 'object' ||
      registry === null ||
      typeof registry.has !== 'function' ||
      typeof registry.validate !== 'function' ||
      typeof registry.bundled !== 'function'
    ) {
      throw new TypeError('registry must be a SchemaRegistry (see loadSchemaRegistry)')
    }
    this.#registry = registry
    this.#options = resolveOptions(options)
  }

  protected override handleInbound(
    message: JSONRPCMessage,
    extra: MessageExtraInfo | undefined,
  ): void | Promise<void> {
    const method = (message as { method?: unknown }).method
    if (method === 'tools/call') {
      // A tools/call that is not a well-formed request can be served by nothing: drop it here
      // rather than trust that the SDK drops it.
      if (!isJsonRpcRequest(message)) return
      const verdict = checkToolCall(this.#registry, message.params, this.#options)
      if (verdict.ok) return this.deliver(message, extra)
      if (verdict.kind === 'unknown-tool') return this.replyError(message.id, UNKNOWN_TOOL_ERROR)
      return this.reply(message.id, { ...renderArgumentsRefusal(verdict.tool, verdict.refusal) })
    }
    if (method === 'tools/list' && this.#options.rewriteToolsList && isJsonRpcRequest(message)) {
      this.#pendingLists.add(message.id)
    }
    this.deliver(message, extra)
  }

  protected override handleOutbound(
    message: JSONRPCMessage,
    _options: TransportSendOptions | undefined,
  ): JSONRPCMessage {
    // Only a response (no `method`) answers a pending tools/list: a server-initiated request
    // may reuse a client's id. An error response settles the entry without a rewrite.
    if (this.#pendingLists.size === 0 || 'method' in message) return message
    const id = (message as { id?: RequestId }).id
    if (id === undefined || !this.#pendingLists.delete(id)) return message
    if (!('result' in message)) return message
    const result = rewriteToolsListResult(message.result, this.#registry)
    return { ...message, result } as JSONRPCMessage
  }
}

/**
 * Decorates an MCP SDK transport (stdio, Streamable HTTP, in-memory) so every inbound
 * `tools/call` is judged before the SDK parses it: a tool without a published schema is
 * refused with JSON-RPC `-32602` `Unknown tool` (the same bytes as a tool that does not
 * exist), and arguments are bounded, then validated against the published schema, and refused
 * with an `isError` tool result naming the pointer and the constraint, never the value.
 * Connect the server to the returned transport; over HTTP keep calling
 * `decorated.inner.handleRequest(...)`.
 * @throws TypeError at construction on a bad registry or bad options.
 */
export function withInputValidation<T extends Transport>(
  transport: T,
  registry: SchemaRegistry,
  options: InputValidationOptions = {},
): InputValidationTransport<T> {
  return new InputValidationTransport(transport, registry, options)
}
