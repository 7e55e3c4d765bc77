import { chargeJson, isAdmissionError } from '@tollgate/json-budget'
import { gatewayRpcError } from './gateway-errors.js'
import type { GatewayLog } from './log.js'
import type { RpcErrorObject, RpcReply } from './rpc-session.js'
import type { ToolCatalog } from './tool-catalog.js'
import type { ToolGuard, ToolRefusal } from './tool-guard.js'
import { unknownToolRefusal } from './tool-refusal.js'
import type { Upstream, UpstreamHandshake } from './upstream.js'

/** Per-request facts from the front that received the message. */
export interface CallContext {
  /** `'2026'` for a stateless 2026-07-28 request, `'2025'` for a session-era one. */
  readonly era: '2025' | '2026'
  /** The W3C `traceparent` of the request, when it carried a well-formed one. */
  readonly traceparent?: string | undefined
}

/** A JSON-RPC response the gateway sends back. */
export type GatewayResponse =
  | { readonly jsonrpc: '2.0'; readonly id: string | number | null; readonly result: unknown }
  | { readonly jsonrpc: '2.0'; readonly id: string | number | null; readonly error: RpcErrorObject }

/** Protocol versions of the session era the gateway answers `initialize` with. */
export const SESSION_ERA_VERSIONS: readonly string[] = Object.freeze([
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
])

/** The stateless revision the gateway serves. */
export const STATELESS_VERSION = '2026-07-28'

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

/** `_meta` keys of the 2026-07-28 revision, which a session-era upstream must not see. */
const META_PREFIX = 'io.modelcontextprotocol/'

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
  readonly #maxResultBytes: number
  readonly #log: GatewayLog

  constructor(options: {
    upstream: Upstream
    catalog: ToolCatalog
    guard?: ToolGuard | undefined
    maxResultBytes: number
    log: GatewayLog
  }) {
    this.#upstream = options.upstream
    this.#catalog = options.catalog
    this.#guard = options.guard
    this.#maxResultBytes = options.maxResultBytes
    this.#log = options.log
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
        return ok(id, initializeResult(params, handshake as UpstreamHandshake), context)
      case 'server/discover':
        return ok(id, discoverResult(handshake as UpstreamHandshake), context)
      case 'tools/list':
        return ok(id, { tools: this.#catalog.served }, context)
      case 'tools/call':
        return this.#call(id, params, context)
      case 'resources/read':
        return this.#read(id, params, context)
      default: {
        const reply = await this.#upstream.request(method, forwardParams(params, context))
        return answer(id, reply, context)
      }
    }
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
    if (tool === undefined) {
      // Unlisted, drifted or quarantined: the unknown tool's bytes, whatever the reason.
      this.#log('call_refused', { code: 'ERR_TOOL_UNKNOWN' })
      return ok(id, unknownToolRefusal('ERR_TOOL_UNKNOWN').result, context)
    }
    const refusal = this.#guard?.checkArguments(name, args)
    if (refusal !== undefined) {
      this.#log('call_refused', { code: refusal.code, tool: name })
      return ok(id, refusal.result, context)
    }
    const reply = await this.#upstream.request('tools/call', forwardParams(params, context))
    if (!reply.ok) return fail(id, reply.error)
    const over = this.#overBudget(reply.result)
    if (over !== undefined) {
      this.#log('result_refused', { code: over.code, tool: name, limit: over.limit })
      return ok(id, refusedResult(over.code, over.limit), context)
    }
    const bad = this.#guard?.checkResult(name, reply.result)
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
    const reply = await this.#upstream.request('resources/read', forwardParams(params, context))
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

function ok(id: string | number, result: unknown, context: CallContext): GatewayResponse {
  // Every 2026-07-28 result names its type; a session-era upstream does not send it.
  const shaped =
    context.era === '2026' &&
    result !== null &&
    typeof result === 'object' &&
    !Array.isArray(result)
      ? { ...(result as Record<string, unknown>), resultType: 'complete' }
      : result
  return { jsonrpc: '2.0', id, result: shaped }
}

function fail(id: string | number, error: RpcErrorObject): GatewayResponse {
  return { jsonrpc: '2.0', id, error }
}

function answer(id: string | number, reply: RpcReply, context: CallContext): GatewayResponse {
  return reply.ok ? ok(id, reply.result, context) : fail(id, reply.error)
}

/**
 * The params the upstream receives: the parsed, admitted value, re-serialized by the gateway's
 * transport; the caller's `_meta` keeps only keys that are not the 2026 revision's own (the
 * upstream is reached in the session era) and not `progressToken` (progress cannot be routed
 * back to one caller); the request's `traceparent` is added.
 */
function forwardParams(
  params: Readonly<Record<string, unknown>> | undefined,
  context: CallContext,
): Record<string, unknown> | undefined {
  if (params === undefined && context.traceparent === undefined) return undefined
  const { _meta, ...rest } = params ?? {}
  const meta: Record<string, unknown> = {}
  if (_meta !== null && typeof _meta === 'object' && !Array.isArray(_meta)) {
    for (const [key, value] of Object.entries(_meta)) {
      if (
        !key.startsWith(META_PREFIX) &&
        key !== 'progressToken' &&
        key !== 'traceparent' &&
        key !== 'tracestate'
      ) {
        meta[key] = value
      }
    }
  }
  if (context.traceparent !== undefined) meta.traceparent = context.traceparent
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta }
}

function initializeResult(
  params: Readonly<Record<string, unknown>> | undefined,
  handshake: UpstreamHandshake,
): unknown {
  const asked = params?.protocolVersion
  const version =
    typeof asked === 'string' && SESSION_ERA_VERSIONS.includes(asked)
      ? asked
      : (SESSION_ERA_VERSIONS[0] as string)
  return {
    protocolVersion: version,
    capabilities: servedCapabilities(handshake),
    serverInfo: handshake.serverInfo,
    ...(handshake.instructions === undefined ? {} : { instructions: handshake.instructions }),
  }
}

function discoverResult(handshake: UpstreamHandshake): unknown {
  return {
    supportedVersions: [STATELESS_VERSION],
    capabilities: servedCapabilities(handshake),
    serverInfo: handshake.serverInfo,
    ...(handshake.instructions === undefined ? {} : { instructions: handshake.instructions }),
    ttlMs: 0,
    cacheScope: 'private',
  }
}

/**
 * The upstream's capabilities the gateway can carry: tools, resources (no subscriptions: the
 * gateway holds no stream per caller), prompts and completions. Logging and tasks are not
 * carried.
 */
function servedCapabilities(handshake: UpstreamHandshake): Record<string, unknown> {
  const c = handshake.capabilities
  const out: Record<string, unknown> = { tools: {} }
  if (c.resources !== undefined) out.resources = {}
  if (c.prompts !== undefined) out.prompts = {}
  if (c.completions !== undefined) out.completions = {}
  return out
}

function refusedResult(code: string, limit: number): ToolRefusal['result'] {
  return {
    content: [{ type: 'text', text: `${code}: result refused (limit ${limit})` }],
    isError: true,
  }
}
