import { randomBytes } from 'node:crypto'
import type { CallContext, CallerSession } from './call-context.js'
import { type GatewayCode, gatewayRpcError } from './gateway-errors.js'
import type { RpcErrorObject, RpcReply } from './rpc-session.js'
import type { ServerRequest } from './upstream.js'

/** Options of {@link ServerRequestRelay}. */
export interface ServerRequestRelayOptions {
  /** Most relayed requests waiting for one caller's answer. Default 16. */
  readonly maxPending?: number | undefined
  /** How long a caller has to answer one, in milliseconds. Default 60,000. */
  readonly timeoutMs?: number | undefined
}

/** Defaults of {@link ServerRequestRelayOptions}. */
export const SERVER_REQUEST_RELAY_DEFAULTS = Object.freeze({ maxPending: 16, timeoutMs: 60_000 })

/** The client capability each relayed method needs, as a session-era client declares it. */
const CAPABILITY: Readonly<Record<string, string>> = Object.freeze({
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
})

const METHOD_NOT_FOUND = Object.freeze({ code: -32601, message: 'Method not found' })

interface Pending {
  readonly session: CallerSession
  readonly settle: (reply: RpcReply) => void
}

/**
 * Relays the requests an upstream sends its client (`sampling/createMessage`,
 * `elicitation/create`, `roots/list`) to the session-era caller whose call they are about, and
 * the caller's answer back. The caller sees an id of the gateway's (random, never the
 * upstream's), and only the caller it was sent to can answer it: an answer naming an id that
 * is not pending for the answering caller is refused. Refused to the upstream: a method the
 * caller did not declare the capability for (`-32601`; `-32602` for an elicitation mode other
 * than `form`, or sampling with `tools`, that it did not declare), a caller that cannot take
 * requests (a 2026-07-28 caller, an HTTP caller that does not accept an event stream)
 * (`-32601`), a caller with `maxPending` requests waiting (`ERR_RELAY_LIMIT`), one that does
 * not answer within `timeoutMs` or goes away (`ERR_RELAY_TIMEOUT`). The answer itself was
 * admitted by the front under the same byte and depth limits as any message.
 */
export class ServerRequestRelay {
  readonly #maxPending: number
  readonly #timeoutMs: number
  readonly #pending = new Map<string, Pending>()
  readonly #count = new Map<CallerSession, number>()

  constructor(options: ServerRequestRelayOptions = {}) {
    const maxPending = options.maxPending ?? SERVER_REQUEST_RELAY_DEFAULTS.maxPending
    const timeoutMs = options.timeoutMs ?? SERVER_REQUEST_RELAY_DEFAULTS.timeoutMs
    if (!Number.isSafeInteger(maxPending) || maxPending < 1)
      throw new TypeError('maxPending must be a positive integer')
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1)
      throw new TypeError('timeoutMs must be a positive integer')
    this.#maxPending = maxPending
    this.#timeoutMs = timeoutMs
    Object.freeze(this)
  }

  /** Relayed requests waiting for an answer, across callers. */
  get pending(): number {
    return this.#pending.size
  }

  /**
   * Asks the caller of `context` the upstream's `request`; resolves with its answer, or with the
   * refusal the upstream gets. Never rejects.
   */
  ask(request: ServerRequest, context: CallContext): Promise<RpcReply> {
    // A 2026-07-28 caller is asked through its call's rounds (`input_required`), when the
    // gateway bridges them; its capabilities are checked there.
    if (context.era === '2026') {
      return context.collect?.(request) ?? Promise.resolve({ ok: false, error: METHOD_NOT_FOUND })
    }
    const session = context.session
    const send = context.ask
    if (context.era !== '2025' || session === undefined || send === undefined) {
      return Promise.resolve({ ok: false, error: METHOD_NOT_FOUND })
    }
    const refusal = capabilityRefusal(request, session.clientCapabilities)
    if (refusal !== undefined) return Promise.resolve({ ok: false, error: refusal })
    const waiting = this.#count.get(session) ?? 0
    if (waiting >= this.#maxPending)
      return Promise.resolve(failure('ERR_RELAY_LIMIT', this.#maxPending))
    const id = `tollgate-${randomBytes(12).toString('base64url')}`
    this.#count.set(session, waiting + 1)
    return new Promise<RpcReply>((resolve) => {
      const gone = (): void => settle(failure('ERR_RELAY_TIMEOUT', this.#timeoutMs))
      const timer = setTimeout(gone, this.#timeoutMs)
      const settle = (reply: RpcReply): void => {
        if (!this.#pending.delete(id)) return
        clearTimeout(timer)
        context.signal?.removeEventListener('abort', gone)
        const left = (this.#count.get(session) ?? 1) - 1
        if (left === 0) this.#count.delete(session)
        else this.#count.set(session, left)
        resolve(reply)
      }
      this.#pending.set(id, { session, settle })
      context.signal?.addEventListener('abort', gone, { once: true })
      if (context.signal?.aborted === true) {
        gone()
        return
      }
      const message: Record<string, unknown> = { jsonrpc: '2.0', id, method: request.method }
      if (request.params !== undefined) message.params = request.params
      send(message)
    })
  }

  /**
   * Takes a caller's JSON-RPC response: when its id names a request relayed to this same
   * caller and still waiting, the answer (its `result` object, or its error rebuilt from
   * `code`, `message` and `data`) goes to the upstream.
   * @returns `undefined` when accepted, else the refusal's code (`ERR_RELAY_UNKNOWN`: no such
   *   request for this caller; `ERR_INVALID_REQUEST`: not a result object or an error).
   */
  answer(message: unknown, session: CallerSession | undefined): GatewayCode | undefined {
    const m = message as { id?: unknown; result?: unknown; error?: unknown } | null
    const pending = typeof m?.id === 'string' ? this.#pending.get(m.id) : undefined
    if (pending === undefined || session === undefined || pending.session !== session)
      return 'ERR_RELAY_UNKNOWN'
    if (m?.error !== undefined) {
      const error = rebuiltError(m.error)
      if (error === undefined) return 'ERR_INVALID_REQUEST'
      pending.settle({ ok: false, error })
      return undefined
    }
    if (m?.result === null || typeof m?.result !== 'object' || Array.isArray(m.result))
      return 'ERR_INVALID_REQUEST'
    pending.settle({ ok: true, result: m.result })
    return undefined
  }
}

/**
 * Why a caller cannot be asked `request` given the capabilities it declared (in its
 * `initialize`, or in a 2026-07-28 request's `_meta`), if it cannot: `-32601` for a method it
 * did not declare, `-32602` for an elicitation mode or sampling with tools it did not declare.
 */
export function capabilityRefusal(
  request: ServerRequest,
  capabilities: Readonly<Record<string, unknown>> | undefined,
): RpcErrorObject | undefined {
  const key = CAPABILITY[request.method]
  const declared = key === undefined ? undefined : capabilities?.[key]
  if (declared === null || typeof declared !== 'object' || Array.isArray(declared))
    return METHOD_NOT_FOUND
  const params = (request.params ?? {}) as { mode?: unknown; tools?: unknown }
  const has = (name: string): boolean => (declared as Record<string, unknown>)[name] !== undefined
  if (request.method === 'elicitation/create') {
    // `elicitation: {}` declares form mode only.
    const mode = params.mode ?? 'form'
    const ok =
      mode === 'form'
        ? Object.keys(declared).length === 0 || has('form')
        : mode === 'url' && has('url')
    if (!ok)
      return {
        code: -32602,
        message: 'Invalid params: elicitation mode not supported by the client',
      }
  }
  if (request.method === 'sampling/createMessage' && params.tools !== undefined && !has('tools')) {
    return {
      code: -32602,
      message: 'Invalid params: the client does not support tools in sampling',
    }
  }
  return undefined
}

function rebuiltError(error: unknown): RpcErrorObject | undefined {
  const e = error as { code?: unknown; message?: unknown; data?: unknown } | null
  if (
    e === null ||
    typeof e !== 'object' ||
    !Number.isSafeInteger(e.code) ||
    typeof e.message !== 'string'
  )
    return undefined
  return e.data === undefined
    ? { code: e.code as number, message: e.message }
    : { code: e.code as number, message: e.message, data: e.data }
}

function failure(code: GatewayCode, limit?: number): RpcReply {
  return { ok: false, error: gatewayRpcError(code, limit) }
}
