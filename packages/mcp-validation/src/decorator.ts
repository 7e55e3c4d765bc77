// Structural types (mcp-transport's), not the SDK's: the package's declarations must not need
// either SDK line installed, and the decorator wraps a transport of either.

import {
  type RefusalFacts,
  type RefusalWhere,
  refusalEvent,
  reportRefusal,
} from '@tollgate/json-budget'
import {
  isJsonRpcRequest,
  type JsonRpcMessage,
  type McpTransport,
  type MessageExtra,
  type RequestIdLike,
  TransportDecorator,
  type TransportSendOptionsLike,
} from '@tollgate/mcp-transport/decorator'
import { checkToolCall, type ToolArgumentsError, type UnknownToolError } from './check-call.js'
import { isModernParams } from './era.js'
import {
  assertSchemaRegistry,
  type InputValidationOptions,
  type ResolvedInputValidationOptions,
  resolveInputValidationOptions,
} from './options.js'
import { REUSED_ID_ERROR, renderArgumentsRefusal, UNKNOWN_TOOL_ERROR } from './refusal.js'
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
  // The connection's route name and principal key, for its refusal events.
  readonly #where: RefusalWhere
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
    where: RefusalWhere = {},
  ) {
    super(inner)
    assertSchemaRegistry(registry)
    this.#registry = registry
    this.#options = resolveInputValidationOptions(options)
    this.#where = Object.freeze({ route: where.route, principal: where.principal })
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
      this.#report({ code: REUSED_ID_CODE }, 'mcp-request-id')
      return this.#answer({ jsonrpc: '2.0', id: message.id, error: REUSED_ID_ERROR })
    }
    if (method === 'tools/call') {
      // A tools/call that is not a well-formed request can be served by nothing: drop it here
      // rather than trust that the SDK drops it.
      if (!request) return
      const verdict = checkToolCall(this.#registry, message.params, this.#options)
      if (!verdict.ok) {
        const refusal = verdict.error
        this.#report(...factsOf(refusal))
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

  // Every refusal is reported, once, as it is answered (the one contract of every control's
  // `onRefusal`): a counter needs every one; an audit sink aggregates bursts itself.
  #report(facts: RefusalFacts, step: ValidationStep): void {
    if (this.#options.onRefusal === undefined) return
    reportRefusal(this.#options.onRefusal, refusalEvent(facts, step, this.#where))
  }
}

/**
 * The `code` a refused request that reuses the id of one still in flight is reported with
 * (answered JSON-RPC `-32600`, which carries no code on the wire).
 */
export const REUSED_ID_CODE = 'ERR_MCP_REUSED_ID'

/**
 * The `control` of each refusal event of the validation decorator: the step that refused. A
 * closed set, safe as a metric label.
 */
export type ValidationStep =
  | 'mcp-tool-surface'
  | 'mcp-tool-published'
  | 'mcp-tool-params'
  | 'mcp-tool-bounds'
  | 'mcp-tool-schema'
  | 'mcp-request-id'

const UNKNOWN_STEP = {
  off_surface: 'mcp-tool-surface',
  unpublished: 'mcp-tool-published',
  malformed: 'mcp-tool-params',
} as const

// No status: the answer is a JSON-RPC error or an `isError` result, whatever carries it.
function factsOf(error: UnknownToolError | ToolArgumentsError): [RefusalFacts, ValidationStep] {
  if (error.code === 'ERR_TOOL_UNKNOWN') return [{ code: error.code }, UNKNOWN_STEP[error.reason]]
  const r = error.refusal
  return r.kind === 'bounds'
    ? [{ code: r.code, limit: r.limit, option: r.option }, 'mcp-tool-bounds']
    : [{ code: error.code }, 'mcp-tool-schema']
}

/**
 * Decorates an MCP SDK transport (stdio, Streamable HTTP, in-memory) so every inbound
 * `tools/call` is judged before the SDK parses it: a tool off the route's `surface`, or
 * without a published schema, is refused with JSON-RPC `-32602` `Unknown tool` (the same bytes
 * as a tool that does not exist; an off-surface name is refused before any schema is
 * consulted), and arguments are bounded, then validated against the published schema, and
 * refused with an `isError` tool result naming the pointer and the constraint, never the
 * value. A request reusing the id of one still in flight is refused with `-32600`. Each
 * refusal is reported once to `onRefusal` with json-budget's `RefusalEvent` (`code`, `control`
 * the step that refused, see {@link ValidationStep}; the connection's `route` and `principal`
 * when given; never the caller's bytes). Connect the server to the returned transport; over HTTP
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
