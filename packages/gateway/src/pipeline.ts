import { chargeJson, isAdmissionError } from '@tollgate/json-budget'
import type { Access } from './access.js'
import { type CallContext, type CallerSession, LOG_LEVELS, type LogLevel } from './call-context.js'
import { objectOrEmpty } from './forward-params.js'
import { UpstreamForwarder } from './forwarder.js'
import { type GatewayCode, gatewayRpcError } from './gateway-errors.js'
import {
  replyResponse as answer,
  errorResponse as fail,
  type GatewayResponse,
  resultResponse as ok,
  refusedResult,
} from './gateway-response.js'
import { discoverResult, initializeResult, STATELESS_VERSION } from './handshake-results.js'
import type { InputBridge } from './input-bridge.js'
import type { GatewayLog } from './log.js'
import type { GatewayMetrics } from './metrics.js'
import type { RequestStateSeal } from './request-state.js'
import { forwardWithRequestState } from './request-state-forward.js'
import type { RpcNotification, RpcReply } from './rpc-session.js'
import { ServerRequestRelay } from './server-requests.js'
import type { ToolCatalog } from './tool-catalog.js'
import type { ToolGuard } from './tool-guard.js'
import { unknownToolRefusal } from './tool-refusal.js'
import type { Upstream, UpstreamHandshake } from './upstream.js'

export {
  type CallContext,
  type CallerSession,
  LOG_LEVELS,
  type LogLevel,
} from './call-context.js'
export type { GatewayResponse } from './gateway-response.js'
export { SESSION_ERA_VERSIONS, STATELESS_VERSION } from './handshake-results.js'

/** Room the JSON-RPC envelope of a result is allowed beside `--max-result-bytes`. */
const ENVELOPE_RESERVE_BYTES = 1024

/** Methods that are the gateway's own business and never forwarded. */
const OWN = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/read',
])

/**
 * The gateway's message pipeline, after byte caps, preflight and parse: one JSON-RPC request in,
 * one response out. It answers `initialize`, `ping` and `server/discover` itself from the
 * upstream's handshake, serves `tools/list` from the judged {@link ToolCatalog}, checks every
 * `tools/call`'s raw arguments with the guard before the upstream sees them (a refusal is an
 * `isError` result), and forwards a re-built request — never the caller's bytes, never its id —
 * to the upstream. Results of `tools/call` and `resources/read` are charged against
 * `maxResultBytes` (refused, never truncated), and `structuredContent` is checked against the
 * tool's `outputSchema`.
 */
export class MessagePipeline {
  readonly #upstream: Upstream
  readonly #catalog: ToolCatalog
  readonly #guard: ToolGuard | undefined
  readonly #access: Access | undefined
  readonly #metrics: GatewayMetrics | undefined
  readonly #maxResultBytes: number
  readonly #log: GatewayLog
  readonly #forwarder: UpstreamForwarder
  readonly #relay: ServerRequestRelay
  readonly #requestState: RequestStateSeal | undefined
  readonly #bridge: InputBridge | undefined

  constructor(options: {
    upstream: Upstream
    catalog: ToolCatalog
    guard?: ToolGuard | undefined
    access?: Access | undefined
    metrics?: GatewayMetrics | undefined
    maxResultBytes: number
    log: GatewayLog
    /** The relay of the upstream's requests to its client (a default one when absent). */
    relay?: ServerRequestRelay | undefined
    /**
     * Seals the upstream's `requestState` and opens the caller's; absent, both pass unchanged
     * (the upstream then trusts caller bytes: the gateway always sets it).
     */
    requestState?: RequestStateSeal | undefined
    /**
     * Carries a 2025-era upstream's requests to its client to a 2026-07-28 caller as
     * `input_required` (with `requestState`); absent, they are refused `-32601`.
     */
    bridge?: InputBridge | undefined
  }) {
    this.#upstream = options.upstream
    this.#catalog = options.catalog
    this.#guard = options.guard
    this.#access = options.access
    this.#metrics = options.metrics
    this.#maxResultBytes = options.maxResultBytes
    this.#log = options.log
    this.#relay = options.relay ?? new ServerRequestRelay()
    this.#requestState = options.requestState
    this.#bridge = options.requestState === undefined ? undefined : options.bridge
    this.#forwarder = new UpstreamForwarder(options.upstream, this.#relay)
  }

  /**
   * Answers one request (`id` string or number) with `method` and optional `params`, already
   * admitted by the front. Never rejects.
   */
  async request(
    id: string | number,
    method: string,
    params: Readonly<Record<string, unknown>> | undefined,
    context: CallContext,
  ): Promise<GatewayResponse> {
    const handshake = this.#upstream.handshake
    if (method === 'ping') return ok(id, {}, context)
    if (handshake === undefined && OWN.has(method)) {
      return fail(id, gatewayRpcError('ERR_UPSTREAM_UNAVAILABLE'))
    }
    switch (method) {
      case 'initialize':
        // What the caller may be asked (sampling, elicitation, roots) is what it declares here.
        if (context.session !== undefined)
          context.session.clientCapabilities = objectOrEmpty(params?.capabilities)
        return ok(id, initializeResult(params, handshake as UpstreamHandshake), context)
      case 'server/discover':
        return ok(id, discoverResult(handshake as UpstreamHandshake), context)
      case 'tools/list':
        return ok(id, this.#list(context), context)
      case 'tools/call':
        return this.#call(id, params, context)
      case 'resources/read':
        return this.#read(id, params, context)
      case 'logging/setLevel':
        if (context.era === '2025') return this.#setLevel(id, params, context)
        break
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        // A stateless upstream has no subscriptions of the session era; as a stateless server
        // answers them, they are accepted (and no update follows: the gateway holds no stream).
        if (context.era === '2025' && handshake?.protocolVersion === STATELESS_VERSION) {
          return typeof params?.uri === 'string'
            ? ok(id, {}, context)
            : fail(id, { code: -32602, message: 'Invalid params: uri must be a string' })
        }
        break
    }
    return answer(id, await this.#forward(method, params, context), context)
  }

  /**
   * `logging/setLevel` of a session-era caller, answered by the gateway: the level is kept in
   * the caller's session and sent with each of its requests to a 2026-07-28 upstream. Refused
   * `-32601` when the upstream does not log, `-32602` for a level that is not one of MCP's.
   */
  #setLevel(
    id: string | number,
    params: Readonly<Record<string, unknown>> | undefined,
    context: CallContext,
  ): GatewayResponse {
    if (this.#upstream.handshake?.capabilities.logging === undefined) {
      return fail(id, { code: -32601, message: 'Method not found' })
    }
    const level = params?.level
    if (!LOG_LEVELS.includes(level as LogLevel)) {
      return fail(id, { code: -32602, message: 'Invalid params: level must be an MCP log level' })
    }
    if (context.session !== undefined) context.session.logLevel = level as LogLevel
    return ok(id, {}, context)
  }

  /**
   * Relays an upstream notification that names a progress token the gateway sent (a stdio
   * child's progress arrives on its one stream) to the caller that asked; others are ignored.
   */
  relay(notification: RpcNotification): void {
    this.#forwarder.relay(notification)
  }

  /**
   * Takes a caller's JSON-RPC response to a request the gateway relayed to it from the upstream
   * (see {@link ServerRequestRelay.answer}).
   * @returns `undefined` when accepted, else the refusal's code.
   */
  answer(message: unknown, session: CallerSession | undefined): GatewayCode | undefined {
    return this.#relay.answer(message, session)
  }

  /**
   * The served list for this caller; on the 2026-07-28 path with the caching hints: the
   * upstream's `ttlMs` (0 when it sent none), and `cacheScope` `public` only when the upstream
   * said so and the list is not filtered for this caller (an anonymous caller whose route
   * serves every tool), else `private`.
   */
  #list(context: CallContext): Record<string, unknown> {
    const served = this.#catalog.served
    const tools = served.filter((t) => this.mayCall(t.name, context))
    if (context.era !== '2026') return { tools }
    const hints = this.#catalog.hints
    const filtered = tools.length < served.length || context.principal?.anonymous === false
    return {
      tools,
      ttlMs: hints.ttlMs ?? 0,
      cacheScope: !filtered && hints.cacheScope === 'public' ? 'public' : 'private',
    }
  }

  #forward(
    method: string,
    params: Readonly<Record<string, unknown>> | undefined,
    context: CallContext,
  ): Promise<RpcReply> {
    const seal = this.#requestState
    if (seal === undefined) return this.#forwarder.forward(method, params, context)
    return forwardWithRequestState(
      seal,
      (opened, overrides) =>
        this.#forwarder.forward(
          method,
          opened,
          overrides === undefined ? context : { ...context, ...overrides },
        ),
      method,
      params,
      context,
      (fields) => {
        this.#log('request_state_refused', fields)
        this.#refused(fields.code, context, fields.tool ?? method)
      },
      this.#bridge,
    )
  }

  async #call(
    id: string | number,
    params: Readonly<Record<string, unknown>> | undefined,
    context: CallContext,
  ): Promise<GatewayResponse> {
    const name = params?.name
    if (typeof name !== 'string') {
      return fail(id, { code: -32602, message: 'Invalid params: name must be a string' })
    }
    const args = params?.arguments
    const tool = this.#catalog.find(name)
    const who = { principal: context.principal?.key, route: context.route?.path }
    if (tool === undefined || !this.mayCall(name, context)) {
      // Unlisted, drifted, quarantined or off the caller's route: the unknown tool's bytes,
      // whatever the reason (the reason goes to the audit line only).
      const reason = tool === undefined ? 'not_served' : 'not_on_route'
      this.#log('call_refused', { code: 'ERR_TOOL_UNKNOWN', reason, ...who })
      this.#refused('ERR_TOOL_UNKNOWN', context, '(unknown)')
      return ok(id, unknownToolRefusal('ERR_TOOL_UNKNOWN').result, context)
    }
    const refusal = this.#guard?.checkArguments(name, args)
    if (refusal !== undefined) {
      this.#log('call_refused', { code: refusal.code, tool: name, ...who })
      this.#refused(refusal.code, context, name)
      return ok(id, refusal.result, context)
    }
    const started = process.hrtime.bigint()
    const reply = await this.#forward('tools/call', params, context)
    this.#metrics?.upstreamSeconds(Number(process.hrtime.bigint() - started) / 1e9)
    if (!reply.ok) return fail(id, reply.error)
    this.#metrics?.admitted(context.route?.path ?? '/mcp', name)
    const over = this.#overBudget(reply.result)
    if (over !== undefined) {
      this.#log('result_refused', { code: over.code, tool: name, limit: over.limit })
      return ok(id, refusedResult(over.code, over.limit), context)
    }
    // An InputRequiredResult (2026-07-28) is not the tool's result yet: it carries no
    // structuredContent, and the round that completes is checked against the outputSchema.
    const inputRequired =
      (reply.result as { resultType?: unknown } | null)?.resultType === 'input_required'
    const bad = inputRequired ? undefined : this.#guard?.checkResult(name, reply.result)
    if (bad !== undefined) {
      this.#log('result_refused', { code: bad.code, tool: name })
      return ok(id, bad.result, context)
    }
    return ok(id, reply.result, context)
  }

  async #read(
    id: string | number,
    params: Readonly<Record<string, unknown>> | undefined,
    context: CallContext,
  ): Promise<GatewayResponse> {
    const reply = await this.#forward('resources/read', params, context)
    if (!reply.ok) return fail(id, reply.error)
    const over = this.#overBudget(reply.result)
    if (over !== undefined) {
      this.#log('result_refused', { code: over.code, limit: over.limit })
      return fail(id, {
        code: -32000,
        message: `result refused (limit ${over.limit})`,
        data: { code: over.code, limit: over.limit },
      })
    }
    return ok(id, reply.result, context)
  }

  /** Whether the caller may call `name` on its route (always, without a principal: stdio). */
  mayCall(name: string, context: CallContext): boolean {
    if (
      this.#access === undefined ||
      context.principal === undefined ||
      context.route === undefined
    )
      return true
    return this.#access.mayCall(context.principal, context.route, name)
  }

  #refused(code: string, context: CallContext, tool: string): void {
    this.#metrics?.refused(code, context.route?.path ?? '/mcp', tool)
  }

  #overBudget(result: unknown): { code: string; limit: number } | undefined {
    const limit = this.#maxResultBytes - ENVELOPE_RESERVE_BYTES
    try {
      chargeJson(result, { maxBytes: limit })
      return undefined
    } catch (error) {
      return { code: isAdmissionError(error) ? error.code : 'ERR_JSON_UNSUPPORTED_VALUE', limit }
    }
  }
}
