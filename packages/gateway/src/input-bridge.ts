// The bridge between a 2025-era upstream's requests to its client and a 2026-07-28 caller's
// rounds: a call whose upstream asks is parked (`ParkedCalls`) and the caller's POST is answered
// with the requests; the caller's retry resumes it. The sealing of the `requestState` naming a
// parked call is the request-state control's (`request-state-forward.ts`).
import { BridgedCall, type BridgedRun, type BridgeRound } from './bridged-call.js'
import { gatewayRpcError } from './gateway-errors.js'
import type { ParkedCalls } from './parked-calls.js'
import type { RpcReply } from './rpc-session.js'

/** What a bridged round ends with: a reply, requests for the caller, or a call that is gone. */
export type BridgeOutcome =
  | { readonly kind: 'reply'; readonly reply: RpcReply }
  | {
      readonly kind: 'input'
      /** The id the call is parked under (sealed into the `requestState`). */
      readonly id: string
      readonly requests: Extract<BridgeRound, { kind: 'input' }>['requests']
    }
  | { readonly kind: 'gone' }

/** Receives the bridge's events for the audit log (no caller bytes). */
export type BridgeReport = (event: string, fields: Record<string, string | number>) => void

/**
 * Runs 2026-07-28 callers' requests whose upstream may ask its client, and resumes them when
 * the caller retries. Built on the {@link ParkedCalls} table, which bounds and expires them.
 */
export class InputBridge {
  readonly #table: ParkedCalls
  readonly #report: BridgeReport

  constructor(table: ParkedCalls, report: BridgeReport = () => {}) {
    this.#table = table
    this.#report = report
    Object.freeze(this)
  }

  /** The table the bridge parks calls in. */
  get table(): ParkedCalls {
    return this.#table
  }

  /**
   * Starts a call (`run`) for `principal`, who declared `capabilities`; resolves with its
   * reply, or with its first requests once it is parked. `signal` (the caller's POST gone)
   * cancels it until it is parked. Never rejects.
   */
  start(
    capabilities: Readonly<Record<string, unknown>>,
    run: BridgedRun,
    principal: string,
    signal: AbortSignal | undefined,
  ): Promise<BridgeOutcome> {
    return this.#round(new BridgedCall(capabilities, run), principal, signal)
  }

  /**
   * Resumes the call parked under `id` for `principal` with the caller's `responses`: checked
   * first (a bad set answers `-32602` and leaves the call parked), then delivered, and the
   * call's next round awaited. `gone` when no such call is parked here. Never rejects.
   */
  async resume(
    id: string,
    principal: string,
    responses: unknown,
    signal: AbortSignal | undefined,
  ): Promise<BridgeOutcome> {
    const parked = this.#table.peek(id, principal)
    if (parked === undefined) return { kind: 'gone' }
    const checked = parked.check(responses)
    if (!checked.ok) return { kind: 'reply', reply: { ok: false, error: checked.error } }
    const call = this.#table.take(id, principal)
    if (call === undefined) return { kind: 'gone' }
    call.deliver(checked.answers)
    return this.#round(call, principal, signal)
  }

  async #round(
    call: BridgedCall,
    principal: string,
    signal: AbortSignal | undefined,
  ): Promise<BridgeOutcome> {
    const round = await call.next(signal)
    if (round.kind === 'reply') return round
    const parked = this.#table.park(principal, call, () =>
      this.#report('parked_call_expired', { principal }),
    )
    if (!parked.ok) {
      call.cancel()
      this.#report('parked_call_refused', { code: parked.code, limit: parked.limit, principal })
      return {
        kind: 'reply',
        reply: { ok: false, error: gatewayRpcError(parked.code, parked.limit) },
      }
    }
    return { kind: 'input', id: parked.id, requests: round.requests }
  }
}
