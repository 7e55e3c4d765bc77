// Structural types (mcp-transport's), not the SDK's: the package's declarations must not need
// either SDK line installed, and the decorator wraps a transport of either.

import { createRepeatWindow, type RepeatWindow } from '@tollgate/json-budget'
import {
  isJsonRpcRequest,
  type JsonRpcMessage,
  type McpTransport,
  type MessageExtra,
  type RequestIdLike,
  TransportDecorator,
  type TransportSendOptionsLike,
} from '@tollgate/mcp-transport/decorator'
import { boundedName } from './bounded-text.js'
import { checkToolCall, type ToolArgumentsError, type UnknownToolError } from './check-call.js'
import { isModernParams } from './era.js'
import {
  assertSchemaRegistry,
  type InputValidationOptions,
  type ResolvedInputValidationOptions,
  resolveInputValidationOptions,
} from './options.js'
import { REUSED_ID_ERROR, renderArgumentsRefusal, UNKNOWN_TOOL_ERROR } from './refusal.js'
import type { RefusalEvent, RefusalReason } from './refusal-event.js'
import type { SchemaRegistry } from './registry.js'
import { rewriteToolsListResult } from './tools-list.js'

/**
 * The transport decorator {@link withInputValidation} returns. It sees every inbound message
 * before the SDK parses it (where zod's default `z.object` would drop unknown argument keys)
 * and answers refused `tools/call` requests itself, so the server never sees them.
 */
export class InputValidationTransport<
  T extends McpTransport = McpTransport,
> extends TransportDecorator<T> {
  readonly #registry: SchemaRegistry
  readonly #options: ResolvedInputValidationOptions
  // Refusals reach onRefusal through a repeat window: a burst costs a bounded number of events.
  readonly #refusals: RepeatWindow<RefusalEvent>
  // Every request delivered to the server and not yet answered, by id, with its method. A
  // response is matched to its request by id alone, so two requests in flight under one id
  // would make "which answer is the tools/list" ambiguous (the reused-id bypass of the
  // rewrite): a second request under an id in flight is refused instead, and the decorator's
  // own refusals never touch this table.
  // One object per request, so a delayed release (see notifications/cancelled) can tell the
  // entry it was asked to free from a later request that reused the id.
  // `modern`: the request claimed the 2026-07-28 envelope, so its answer takes that era's shape.
  readonly #inFlight = new Map<
    RequestIdLike,
    { readonly method: string; readonly modern: boolean }
  >()

  constructor(
    inner: T,
    registry: SchemaRegistry,
    options: InputValidationOptions | ResolvedInputValidationOptions = {},
  ) {
    super(inner)
    assertSchemaRegistry(registry)
    this.#registry = registry
    this.#options = resolveInputValidationOptions(options)
    this.#refusals = createRepeatWindow<RefusalEvent>(
      (r) =>
        this.#deliver(
          r.repeated === undefined
            ? r.event
            : Object.freeze({
                ...r.event,
                pointer: undefined,
                nameLength: undefined,
                repeated: r.repeated,
              }),
        ),
      { windowMs: this.#options.refusalWindowMs },
    )
    // Counts still open when the connection ends are reported before anyone hears of the close.
    const closing = inner.onclose
    inner.onclose = () => {
      this.#refusals.flush()
      closing?.()
    }
  }

  protected override handleInbound(
    message: JsonRpcMessage,
    extra: MessageExtra | undefined,
  ): void | Promise<void> {
    const method = (message as { method?: unknown }).method
    if (typeof method !== 'string') return this.deliver(message, extra)
    const request = isJsonRpcRequest(message)
    if (request && this.#inFlight.has(message.id)) {
      // Any method may reuse an id, so the method named is the caller's: bounded as a name is.
      this.#audit({ reason: 'reused_id', method: boundedName(method) })
      return this.#answer({ jsonrpc: '2.0', id: message.id, error: REUSED_ID_ERROR })
    }
    if (method === 'tools/call') {
      // A tools/call that is not a well-formed request can be served by nothing: drop it here
      // rather than trust that the SDK drops it.
      if (!request) return
      const verdict = checkToolCall(this.#registry, message.params, this.#options)
      if (!verdict.ok) {
        const refusal = verdict.error
        this.#audit(eventOf(refusal))
        if (refusal.code === 'ERR_TOOL_UNKNOWN') {
          return this.#answer({ jsonrpc: '2.0', id: message.id, error: UNKNOWN_TOOL_ERROR })
        }
        // The SDK stamps `resultType` on what it sends for a 2026-07-28 request; this answer
        // bypasses it, so it is stamped here (the field is required on that era's results).
        const result = isModernParams(message.params)
          ? { resultType: 'complete', ...renderArgumentsRefusal(refusal.tool, refusal.refusal) }
          : { ...renderArgumentsRefusal(refusal.tool, refusal.refusal) }
        return this.#answer({ jsonrpc: '2.0', id: message.id, result })
      }
    } else if (method === 'notifications/cancelled') {
      // The SDK sends nothing for a cancelled request (it checks the abort before it sends), so
      // its entry would never be settled: forget it, but on the next turn, not now. The SDK
      // aborts the request a microtask after this delivery; a request reusing the id in the
      // same write would otherwise be delivered first, take the id's abort controller in the
      // SDK (so the cancellation aborts it instead), and the uncancelled first request would
      // then answer under the reused id unrewritten. Until the release it is refused as reused.
      const params = (message as { params?: { requestId?: unknown } }).params
      const id = params?.requestId
      if (typeof id === 'string' || typeof id === 'number') this.#release(id)
    }
    if (request) {
      this.#inFlight.set(message.id, { method, modern: isModernParams(message.params) })
    }
    this.deliver(message, extra)
  }

  protected override handleOutbound(
    message: JsonRpcMessage,
    _options: TransportSendOptionsLike | undefined,
  ): JsonRpcMessage {
    // Only a response (no `method`) settles a request: a server-initiated request may reuse a
    // client's id. An error response settles the entry without a rewrite.
    if (this.#inFlight.size === 0 || 'method' in message) return message
    const id = (message as { id?: RequestIdLike }).id
    if (id === undefined) return message
    const entry = this.#inFlight.get(id)
    if (entry === undefined) return message
    this.#inFlight.delete(id)
    if (
      entry.method !== 'tools/list' ||
      !this.#options.rewriteToolsList ||
      !('result' in message)
    ) {
      return message
    }
    const result = rewriteToolsListResult(message.result, this.#registry, this.#options.surface, {
      modern: entry.modern,
    })
    return { ...message, result } as JsonRpcMessage
  }

  // Frees a cancelled request's entry once the SDK has aborted it, unless the entry was settled
  // (its response went out) and the id taken by a new request in the meantime.
  #release(id: RequestIdLike): void {
    const entry = this.#inFlight.get(id)
    if (entry === undefined) return
    setImmediate(() => {
      if (this.#inFlight.get(id) === entry) this.#inFlight.delete(id)
    })
  }

  // The decorator's own answers go straight to the inner transport: they answer requests the
  // server never saw, so they must not settle (or be rewritten as) anything in flight.
  #answer(message: JsonRpcMessage): Promise<void> {
    const id = (message as unknown as { id: RequestIdLike }).id
    return this.inner.send(message, { relatedRequestId: id })
  }

  #audit(event: Partial<RefusalEvent> & { reason: RefusalReason; method?: string }): void {
    if (this.#options.onRefusal === undefined) return
    const full: RefusalEvent = Object.freeze({
      reason: event.reason,
      method: event.method ?? 'tools/call',
      tool: event.tool,
      nameLength: event.nameLength,
      code: event.code,
      keyword: event.keyword,
      pointer: event.pointer,
      repeated: undefined,
    })
    // The kind: bounded facts only (the pointer and name length vary with what the caller
    // sends and are left out; a `reused_id` method is bounded to 64 characters).
    const kind = [full.reason, full.method, full.tool, full.code, full.keyword].join('\u0000')
    this.#refusals.note(kind, full)
  }

  #deliver(event: RefusalEvent): void {
    try {
      this.#options.onRefusal?.(event)
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error('onRefusal failed'))
    }
  }
}

function eventOf(
  error: UnknownToolError | ToolArgumentsError,
): Partial<RefusalEvent> & { reason: RefusalReason } {
  if (error.code === 'ERR_TOOL_UNKNOWN') {
    return { reason: error.reason, nameLength: error.nameLength }
  }
  const r = error.refusal
  return r.kind === 'bounds'
    ? { reason: 'bounds', tool: error.tool, code: r.code, pointer: r.pointer }
    : { reason: 'schema', tool: error.tool, keyword: r.keyword, pointer: r.pointer }
}

/**
 * Decorates an MCP SDK transport (stdio, Streamable HTTP, in-memory) so every inbound
 * `tools/call` is judged before the SDK parses it: a tool off the route's `surface`, or
 * without a published schema, is refused with JSON-RPC `-32602` `Unknown tool` (the same bytes
 * as a tool that does not exist; an off-surface name is refused before any schema is
 * consulted), and arguments are bounded, then validated against the published schema, and
 * refused with an `isError` tool result naming the pointer and the constraint, never the
 * value. A request reusing the id of one still in flight is refused with `-32600`. Each
 * refusal is reported to `onRefusal`, repeats of a kind within `refusalWindowMs` (10 s by
 * default) as one closing event that counts them. Connect the server to the returned transport; over HTTP
 * keep calling `decorated.inner.handleRequest(...)`.
 * @throws TypeError at construction on a bad registry or bad options.
 */
export function withInputValidation<T extends McpTransport>(
  transport: T,
  registry: SchemaRegistry,
  options: InputValidationOptions | ResolvedInputValidationOptions = {},
): InputValidationTransport<T> {
  return new InputValidationTransport(transport, registry, options)
}
