// One call of a 2026-07-28 caller to a 2025-era upstream, run across the caller's rounds. The
// revision is stateless (one POST, one answer): a server that needs its client's input answers
// `input_required` and the client retries with `inputResponses`. A 2025-era upstream instead
// sends its client a request in the middle of the call and waits. The gateway keeps that call
// open here and hands its requests to the caller one round at a time; the caller's answers are
// delivered to the upstream as the answers to its requests, and the call goes on.
import { type GatewayCode, gatewayRpcError } from './gateway-errors.js'
import { admitInputResponse } from './input-responses.js'
import type { RpcErrorObject, RpcReply } from './rpc-session.js'
import { capabilityRefusal } from './server-requests.js'
import type { ServerRequest } from './upstream.js'

/** Most requests of one call waiting for the caller at once; more are refused to the upstream. */
export const MAX_INPUT_REQUESTS = 16

/** What one round of a bridged call ends with: the call's reply, or requests for the caller. */
export type BridgeRound =
  | { readonly kind: 'reply'; readonly reply: RpcReply }
  | {
      readonly kind: 'input'
      /** The upstream's requests, keyed by ids of the gateway's (never the upstream's). */
      readonly requests: Readonly<Record<string, { method: string; params?: unknown }>>
    }

/** Runs the upstream call: `signal` abandons it, `collect` takes its requests to its client. */
export type BridgedRun = (
  signal: AbortSignal,
  collect: (request: ServerRequest) => Promise<RpcReply>,
) => Promise<RpcReply>

interface Asked {
  readonly request: ServerRequest
  readonly settle: (reply: RpcReply) => void
  shown: boolean
}

const INVALID_RESPONSES: RpcErrorObject = Object.freeze({
  code: -32602,
  message: 'Invalid params: inputResponses must answer each input request, as its method shapes it',
})

/**
 * One upstream call whose requests to its client reach the caller in rounds. Requests the
 * caller did not declare the capability for are refused to the upstream as a session-era
 * client refuses them (`-32601`, `-32602`), and so is any past {@link MAX_INPUT_REQUESTS}
 * waiting. {@link BridgedCall.next} waits for the call's reply or its next requests;
 * {@link BridgedCall.deliver} answers the requests shown; {@link BridgedCall.cancel} abandons
 * the call upstream.
 */
export class BridgedCall {
  readonly #controller = new AbortController()
  readonly #capabilities: Readonly<Record<string, unknown>>
  readonly #asked = new Map<string, Asked>()
  #reply: RpcReply | undefined
  #wake: (() => void) | undefined
  #scheduled = false
  #nextKey = 1

  /** Starts `run` at once; `capabilities` are what the caller declared in its first request. */
  constructor(capabilities: Readonly<Record<string, unknown>>, run: BridgedRun) {
    this.#capabilities = capabilities
    void run(this.#controller.signal, (request) => this.#collect(request)).then((reply) => {
      this.#reply ??= reply
      this.#refuseWaiting('ERR_RELAY_TIMEOUT')
      this.#wake?.()
    })
  }

  /** Whether the call has its reply (or was cancelled). */
  get settled(): boolean {
    return this.#reply !== undefined
  }

  /**
   * Waits for the call's reply, or for requests the caller has not been shown yet (those that
   * arrive together are shown together). The caller going away (`signal`) cancels the call.
   */
  async next(signal?: AbortSignal): Promise<BridgeRound> {
    for (;;) {
      if (this.#reply !== undefined) return { kind: 'reply', reply: this.#reply }
      const fresh = [...this.#asked].filter(([, a]) => !a.shown)
      if (fresh.length > 0) {
        const requests: Record<string, { method: string; params?: unknown }> = {}
        for (const [key, asked] of fresh) {
          asked.shown = true
          const { method, params } = asked.request
          requests[key] = params === undefined ? { method } : { method, params }
        }
        return { kind: 'input', requests }
      }
      if (signal?.aborted === true) this.cancel()
      else {
        await new Promise<void>((resolve) => {
          const gone = (): void => this.cancel()
          signal?.addEventListener('abort', gone, { once: true })
          this.#wake = () => {
            this.#wake = undefined
            signal?.removeEventListener('abort', gone)
            resolve()
          }
        })
      }
    }
  }

  /**
   * Checks the caller's `inputResponses` against the requests it was shown: an object with
   * exactly their keys, each the shape its method answers with. Delivers nothing.
   * @returns the answers to deliver, rebuilt, or the `-32602` error to answer the caller.
   */
  check(
    responses: unknown,
  ):
    | { readonly ok: true; readonly answers: ReadonlyMap<string, Record<string, unknown>> }
    | { readonly ok: false; readonly error: RpcErrorObject } {
    const shown = [...this.#asked].filter(([, a]) => a.shown)
    if (responses === null || typeof responses !== 'object' || Array.isArray(responses)) {
      return { ok: false, error: INVALID_RESPONSES }
    }
    const given = responses as Record<string, unknown>
    if (Object.keys(given).length !== shown.length) return { ok: false, error: INVALID_RESPONSES }
    const answers = new Map<string, Record<string, unknown>>()
    for (const [key, asked] of shown) {
      const answer = Object.hasOwn(given, key)
        ? admitInputResponse(asked.request.method, given[key])
        : undefined
      if (answer === undefined) return { ok: false, error: INVALID_RESPONSES }
      answers.set(key, answer)
    }
    return { ok: true, answers }
  }

  /** Delivers answers {@link BridgedCall.check} admitted to the upstream, as its requests' results. */
  deliver(answers: ReadonlyMap<string, Record<string, unknown>>): void {
    for (const [key, answer] of answers) this.#asked.get(key)?.settle({ ok: true, result: answer })
  }

  /**
   * Abandons the call: the upstream request is aborted (a `notifications/cancelled` goes to the
   * upstream), its requests still waiting are refused `ERR_RELAY_TIMEOUT`.
   */
  cancel(): void {
    this.#reply ??= { ok: false, error: gatewayRpcError('ERR_RELAY_TIMEOUT') }
    this.#controller.abort()
    this.#refuseWaiting('ERR_RELAY_TIMEOUT')
    this.#wake?.()
  }

  #collect(request: ServerRequest): Promise<RpcReply> {
    if (this.#reply !== undefined) {
      return Promise.resolve({ ok: false, error: gatewayRpcError('ERR_RELAY_TIMEOUT') })
    }
    const refusal = capabilityRefusal(request, this.#capabilities)
    if (refusal !== undefined) return Promise.resolve({ ok: false, error: refusal })
    if (this.#asked.size >= MAX_INPUT_REQUESTS) {
      return Promise.resolve({
        ok: false,
        error: gatewayRpcError('ERR_RELAY_LIMIT', MAX_INPUT_REQUESTS),
      })
    }
    const key = `input-${this.#nextKey++}`
    return new Promise<RpcReply>((resolve) => {
      this.#asked.set(key, {
        request,
        shown: false,
        settle: (reply) => {
          if (this.#asked.delete(key)) resolve(reply)
        },
      })
      // Requests the upstream sends together (in one read) reach the caller in one round.
      if (!this.#scheduled) {
        this.#scheduled = true
        setImmediate(() => {
          this.#scheduled = false
          this.#wake?.()
        })
      }
    })
  }

  #refuseWaiting(code: GatewayCode): void {
    for (const asked of [...this.#asked.values()]) {
      asked.settle({ ok: false, error: gatewayRpcError(code) })
    }
  }
}
