import {
  ADMISSION_DEFAULTS,
  type AdmissionError,
  chargeJson,
  checkOptions,
  createResolvedBrand,
  integerOption,
  isAdmissionError,
  JSON_LIMITS_DEFAULTS,
  type JsonLimitsOptions,
  type OptionValidators,
  type ResolvedJsonLimits,
  resolveJsonLimits,
} from '@tollgate/json-budget'
import { admissionError } from './codes.js'
import { JSON_RPC_ERRORS, jsonRpcErrorFor } from './json-rpc.js'
import type {
  JsonRpcMessage,
  McpTransport,
  MessageExtra,
  RequestIdLike,
  TransportSendOptionsLike,
} from './mcp-types.js'
import { isJsonRpcRequest, TransportDecorator } from './transport-decorator.js'

/**
 * Options of {@link ResultBudgetTransport}. Every field is optional. The byte bound is
 * `maxResultBytes` (the whole response, envelope included), so `maxBytes` is not an input here:
 * the resolved options carry the result object's share of it as `maxBytes`.
 */
export interface ResultBudgetOptions extends Pick<JsonLimitsOptions, 'maxNodes' | 'maxDepth'> {
  /**
   * The budget of one `tools/call` response, in bytes of compact UTF-8 JSON. May be lowered,
   * never raised past 64 MiB. Default: 64 MiB.
   */
  readonly maxResultBytes?: number
  /**
   * Part of `maxResultBytes` kept for the JSON-RPC envelope (`jsonrpc`, `id`, `result`); the
   * result object itself gets the rest. Must be smaller than `maxResultBytes`. Default: 1,024.
   */
  readonly envelopeReserveBytes?: number
  /** Most JSON nodes in one result. Default: 100,000. */
  readonly maxNodes?: number
  /** Most nested containers in one result (a cycle lands here). Default: 64. */
  readonly maxDepth?: number
}

/**
 * The options after {@link resolveResultBudgetOptions}: every field set, frozen. `maxBytes` is
 * the result object's budget, `maxResultBytes` less `envelopeReserveBytes`.
 */
export interface ResolvedResultBudgetOptions extends ResolvedJsonLimits {
  readonly maxResultBytes: number
  readonly envelopeReserveBytes: number
}

/** The defaults: 64 MiB per result with 1 KiB reserved, 100,000 nodes, depth 64. */
export const RESULT_BUDGET_DEFAULTS: Readonly<Required<ResultBudgetOptions>> = Object.freeze({
  maxResultBytes: ADMISSION_DEFAULTS.toolResultBytes,
  envelopeReserveBytes: ADMISSION_DEFAULTS.toolResultEnvelopeReserveBytes,
  maxNodes: JSON_LIMITS_DEFAULTS.maxNodes,
  maxDepth: JSON_LIMITS_DEFAULTS.maxDepth,
})

const VALIDATORS: OptionValidators<ResultBudgetOptions> = {
  maxResultBytes: (value, name) => {
    integerOption()(value, name)
    if ((value as number) > ADMISSION_DEFAULTS.toolResultBytes) {
      throw new TypeError(
        `${name} may not exceed ${ADMISSION_DEFAULTS.toolResultBytes}, got ${value as number}`,
      )
    }
  },
  envelopeReserveBytes: integerOption(true),
  maxNodes: integerOption(),
  maxDepth: integerOption(true),
}

const brand = createResolvedBrand<ResolvedResultBudgetOptions>()

/**
 * Validates {@link ResultBudgetOptions} once, fills {@link RESULT_BUDGET_DEFAULTS} and freezes
 * them; an object this function returned is returned as it is.
 * @throws TypeError on an unknown option, a bad number, a budget above 64 MiB, or a reserve not
 *   smaller than the budget.
 */
export function resolveResultBudgetOptions(
  options: ResultBudgetOptions | ResolvedResultBudgetOptions = {},
): ResolvedResultBudgetOptions {
  if (brand.has(options)) return options
  checkOptions(options, VALIDATORS, 'resolveResultBudgetOptions')
  const input: ResultBudgetOptions = options ?? {}
  const d = RESULT_BUDGET_DEFAULTS
  const maxResultBytes = input.maxResultBytes ?? d.maxResultBytes
  const envelopeReserveBytes = input.envelopeReserveBytes ?? d.envelopeReserveBytes
  if (envelopeReserveBytes >= maxResultBytes) {
    throw new TypeError('envelopeReserveBytes must be smaller than maxResultBytes')
  }
  return brand.mark(
    Object.freeze({
      maxResultBytes,
      envelopeReserveBytes,
      maxNodes: input.maxNodes ?? d.maxNodes,
      maxDepth: input.maxDepth ?? d.maxDepth,
      maxBytes: maxResultBytes - envelopeReserveBytes,
    }),
  )
}

/**
 * A transport decorator that charges every outgoing `tools/call` result before it is
 * serialized: the result object (its `content` text, images and resources, its
 * `structuredContent`, `isError` and `_meta`, all in one budget) must fit `maxResultBytes`
 * less `envelopeReserveBytes` (64 MiB − 1 KiB = 67,107,840 bytes by default), measured with
 * `chargeJson` without encoding it. A result over budget, too deep, too large in nodes or
 * holding a non-JSON value is replaced by a small `isError` result naming the code and the
 * limit (`ERR_JSON_TOO_LARGE (limit 67107840)`) — never truncated — and the original is never
 * serialized. Any other result shaped like a tool result (`content` array or
 * `structuredContent`, as the experimental `tasks/result` carries) is charged the same way;
 * The answer to a `resources/read` request (tracked by id) is charged against the same budget;
 * one over it is replaced by a JSON-RPC error (`-32000`, `data: { code, limit }`) — never
 * truncated, never serialized. Other messages pass untouched.
 */
export class ResultBudgetTransport<
  T extends McpTransport = McpTransport,
> extends TransportDecorator<T> {
  /** The validated options. */
  readonly options: ResolvedResultBudgetOptions
  // Resolved once here; chargeJson recognises the object and does not validate it per result.
  readonly #limits: ResolvedJsonLimits
  readonly #calls = new Map<RequestIdLike, number>()
  readonly #reads = new Map<RequestIdLike, number>()

  constructor(inner: T, options: ResultBudgetOptions | ResolvedResultBudgetOptions = {}) {
    super(inner)
    this.options = resolveResultBudgetOptions(options)
    const { maxNodes, maxDepth, maxBytes } = this.options
    this.#limits = resolveJsonLimits({ maxNodes, maxDepth, maxBytes })
  }

  protected override handleInbound(message: JsonRpcMessage, extra: MessageExtra | undefined): void {
    if (isJsonRpcRequest(message) && message.method === 'tools/call') {
      this.#calls.set(message.id, (this.#calls.get(message.id) ?? 0) + 1)
    } else if (isJsonRpcRequest(message) && message.method === 'resources/read') {
      this.#reads.set(message.id, (this.#reads.get(message.id) ?? 0) + 1)
    } else if (message.method === 'notifications/cancelled') {
      // A cancelled call may never be answered; forget it so the maps stay bounded. A late
      // tool answer is still charged: it has the tool-result shape.
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId
      if (typeof id === 'string' || typeof id === 'number') {
        this.#calls.delete(id)
        this.#reads.delete(id)
      }
    }
    this.deliver(message, extra)
  }

  protected override handleOutbound(
    message: JsonRpcMessage,
    _options: TransportSendOptionsLike | undefined,
  ): JsonRpcMessage {
    const m = message as { id?: unknown; method?: unknown; result?: unknown; error?: unknown }
    if (m.method !== undefined || (m.result === undefined && m.error === undefined)) return message
    if (typeof m.id !== 'string' && typeof m.id !== 'number') return message
    const count = take(this.#calls, m.id)
    const read = take(this.#reads, m.id)
    if (m.result === undefined) return message
    if (read !== undefined && count === undefined) {
      // A resource read has no error-result shape: an oversized one becomes a JSON-RPC error.
      try {
        chargeJson(m.result, this.#limits)
        return message
      } catch (error) {
        const refusal = isAdmissionError(error)
          ? error
          : admissionError('ERR_JSON_UNSUPPORTED_VALUE')
        return {
          jsonrpc: '2.0',
          id: m.id,
          error: jsonRpcErrorFor(JSON_RPC_ERRORS.serverError, refusal),
        } as JsonRpcMessage
      }
    }
    // Charged: the answer to a tools/call, and any result shaped like a tool result (the
    // experimental `tasks/result` carries one; a cancelled call's late answer too).
    if (count === undefined && !looksLikeToolResult(m.result)) return message
    try {
      chargeJson(m.result, this.#limits)
      return message
    } catch (error) {
      const refusal = isAdmissionError(error) ? error : admissionError('ERR_JSON_UNSUPPORTED_VALUE')
      return { jsonrpc: '2.0', id: m.id, result: toolErrorResult(refusal) }
    }
  }
}

/** Counts down one pending request id; returns what was pending (`undefined`: none). */
function take(pending: Map<RequestIdLike, number>, id: RequestIdLike): number | undefined {
  const count = pending.get(id)
  if (count !== undefined) {
    if (count <= 1) pending.delete(id)
    else pending.set(id, count - 1)
  }
  return count
}

function looksLikeToolResult(result: unknown): boolean {
  if (typeof result !== 'object' || result === null) return false
  const r = result as { content?: unknown; structuredContent?: unknown }
  return Array.isArray(r.content) || r.structuredContent !== undefined
}

/**
 * The `isError` tool result a refused result is replaced with: one text item holding the code,
 * the bounded message (which names the limit) and nothing of the original result.
 */
export function toolErrorResult(error: AdmissionError): {
  content: { type: 'text'; text: string }[]
  isError: true
} {
  const limit = error.limit === undefined ? '' : ` (limit ${error.limit} bytes)`
  const text =
    error.code === 'ERR_JSON_TOO_LARGE'
      ? `${error.code}: tool result exceeds the result budget${limit}; lower the result size or raise maxResultBytes`
      : `${error.code}: ${error.message}`
  return { content: [{ type: 'text', text }], isError: true }
}

/**
 * Wraps `inner` in a {@link ResultBudgetTransport}.
 * @throws TypeError on bad options (at construction, not on the first call).
 */
export function resultBudget<T extends McpTransport>(
  inner: T,
  options: ResultBudgetOptions | ResolvedResultBudgetOptions = {},
): ResultBudgetTransport<T> {
  return new ResultBudgetTransport(inner, options)
}
