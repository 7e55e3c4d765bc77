import {
  ADMISSION_DEFAULTS,
  type AdmissionError,
  chargeJson,
  defineOptions,
  integerOption,
  isAdmissionError,
  JSON_LIMITS,
  ON_REFUSAL_OPTION,
  type OptionsOf,
  option,
  type ResolvedJsonLimits,
  type ResolvedOf,
  refusalEvent,
  reportRefusal,
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
import {
  RESULT_BUDGET_CONTROL,
  type ResultBudgetCall,
  type ResultBudgetReport,
  reportOf,
} from './result-budget-call.js'
import { isJsonRpcRequest, TransportDecorator } from './transport-decorator.js'

/**
 * The options of the result budget, declared once. The byte bound is `maxResultBytes` (the
 * whole response, envelope included); the result object itself gets `maxResultBytes` less
 * `envelopeReserveBytes`, which the resolved policy holds as `maxBytes`.
 */
export const RESULT_BUDGET_OPTIONS = defineOptions('resultBudget', {
  maxResultBytes: option<number>({
    default: ADMISSION_DEFAULTS.toolResultBytes,
    check: integerOption(),
    ceiling: ADMISSION_DEFAULTS.toolResultBytes,
    doc: 'the budget of one `tools/call` response, in bytes of compact UTF-8 JSON; may be lowered, never raised past 64 MiB',
  }),
  envelopeReserveBytes: option<number>({
    default: ADMISSION_DEFAULTS.toolResultEnvelopeReserveBytes,
    check: integerOption(true),
    doc: 'part of `maxResultBytes` kept for the JSON-RPC envelope; must be smaller than `maxResultBytes`',
  }),
  maxNodes: option({ ...JSON_LIMITS.rows.maxNodes, doc: 'most JSON nodes in one result' }),
  maxDepth: option({
    ...JSON_LIMITS.rows.maxDepth,
    doc: 'most nested containers in one result (a cycle lands here)',
  }),
  onRefusal: {
    ...ON_REFUSAL_OPTION,
    doc: "called once per replaced result with a frozen `RefusalEvent` (`control` `'mcp-result-budget'`, the code and limit, the `route` and `principal` of the connection's call; no status: the answer is a tool error or a JSON-RPC error); a throwing hook is caught",
  },
})

/** Options of the result budget (see {@link RESULT_BUDGET_OPTIONS}); every field optional. */
export type ResultBudgetOptions = OptionsOf<typeof RESULT_BUDGET_OPTIONS.rows>

/**
 * The resolved policy: every option set, frozen. `maxBytes` is the result object's budget,
 * `maxResultBytes` less `envelopeReserveBytes`.
 */
export interface ResolvedResultBudgetOptions
  extends ResolvedOf<typeof RESULT_BUDGET_OPTIONS.rows>,
    ResolvedJsonLimits {}

/**
 * Validates the options once and freezes them, with the result object's share as `maxBytes`.
 * @throws TypeError naming the option: an unknown option, a bad number, a budget above 64 MiB,
 *   or a reserve not smaller than the budget.
 */
export function resolveResultBudgetOptions(
  options: ResultBudgetOptions | undefined = undefined,
): ResolvedResultBudgetOptions {
  const o = RESULT_BUDGET_OPTIONS.resolve(options)
  if (o.envelopeReserveBytes >= o.maxResultBytes) {
    throw new TypeError('envelopeReserveBytes must be smaller than maxResultBytes')
  }
  return Object.freeze({ ...o, maxBytes: o.maxResultBytes - o.envelopeReserveBytes })
}

/**
 * The result budget control: built once from its options ({@link createResultBudget}), it owns
 * the resolved policy and the JSON limits it charges with, and decorates each transport a
 * server connects (`budget.decorate(transport)`) without validating anything again.
 */
export class ResultBudget {
  /** The resolved policy (frozen). */
  readonly options: ResolvedResultBudgetOptions
  /** The limits each result is charged with, resolved once. */
  readonly #limits: ResolvedJsonLimits

  /** @throws TypeError on bad options (see {@link resolveResultBudgetOptions}). */
  constructor(options: ResultBudgetOptions | undefined = undefined) {
    this.options = resolveResultBudgetOptions(options)
    const { maxNodes, maxDepth, maxBytes } = this.options
    this.#limits = resolveJsonLimits({ maxNodes, maxDepth, maxBytes })
    Object.freeze(this)
  }

  /**
   * Wraps `inner` in a {@link ResultBudgetTransport} holding this policy; `call` holds the
   * connection's facts (principal, route) its refusal events report.
   * @throws TypeError when `call` is not an object or its `onRefusal` is not a function.
   */
  decorate<T extends McpTransport>(inner: T, call?: ResultBudgetCall): ResultBudgetTransport<T> {
    return new ResultBudgetTransport(inner, this, call)
  }

  /** The limits of `budget` (internal to this file: the transport reads them, nothing else). */
  static limitsOf(budget: ResultBudget): ResolvedJsonLimits {
    return budget.#limits
  }

  /** Whether `value` is a control built by this class (not a look-alike). */
  static is(value: unknown): value is ResultBudget {
    return typeof value === 'object' && value !== null && #limits in value
  }
}

/**
 * Builds the result budget control once, for every transport it will decorate.
 * @throws TypeError on bad options, at construction (see {@link resolveResultBudgetOptions}).
 */
export function createResultBudget(
  options: ResultBudgetOptions | undefined = undefined,
): ResultBudget {
  return new ResultBudget(options)
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
  // Resolved once by the control; chargeJson recognises the object and does not validate it
  // per result.
  readonly #limits: ResolvedJsonLimits
  readonly #calls = new Map<RequestIdLike, number>()
  readonly #reads = new Map<RequestIdLike, number>()
  readonly #report: ResultBudgetReport

  /**
   * @param options the options, resolved here, or a control built once with
   *   {@link createResultBudget}, whose policy is taken as it is.
   * @param call the connection's facts its refusal events report (see {@link ResultBudgetCall}).
   * @throws TypeError on bad options, or a `call` that is not an object or whose `onRefusal` is
   *   not a function.
   */
  constructor(
    inner: T,
    options: ResultBudgetOptions | ResultBudget | undefined = undefined,
    call: ResultBudgetCall | undefined = undefined,
  ) {
    super(inner)
    const budget = ResultBudget.is(options) ? options : new ResultBudget(options)
    this.options = budget.options
    this.#limits = ResultBudget.limitsOf(budget)
    this.#report = reportOf(call, budget.options.onRefusal)
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
        this.#reportRefusal(refusal)
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
      this.#reportRefusal(refusal)
      return { jsonrpc: '2.0', id: m.id, result: toolErrorResult(refusal) }
    }
  }

  /**
   * Reports a replaced result to the connection's hook (the call's, else the control's), with
   * the connection's route and principal key (caught: it never decides).
   */
  #reportRefusal(refusal: AdmissionError): void {
    const { where, onRefusal } = this.#report
    if (onRefusal === undefined) return
    const { code, limit } = refusal
    reportRefusal(
      onRefusal,
      refusalEvent({ code, limit, status: undefined }, RESULT_BUDGET_CONTROL, where),
    )
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
 * Wraps `inner` in a {@link ResultBudgetTransport}; a host that decorates many transports
 * builds the control once ({@link createResultBudget}) and passes it, or calls its `decorate`.
 * `call` holds the connection's facts (principal, route) its refusal events report.
 * @throws TypeError on bad options (at construction, not on the first call), or a bad `call`.
 */
export function resultBudget<T extends McpTransport>(
  inner: T,
  options: ResultBudgetOptions | ResultBudget | undefined = undefined,
  call: ResultBudgetCall | undefined = undefined,
): ResultBudgetTransport<T> {
  return new ResultBudgetTransport(inner, options, call)
}
