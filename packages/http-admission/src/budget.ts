import { assertLimit } from '@tollgate/json-budget'

/**
 * A byte budget shared by every body being read at the same time. Each admission reserves the
 * bytes it holds (the declared length up front when one is sent, then each chunk as it
 * arrives) and gives them back when it settles, whatever the outcome: success, refusal, client
 * abort or timeout. When a reservation would pass `maxBytes`, the request is refused with
 * `ERR_ADMISSION_BUSY` (503 with `Retry-After`) instead of letting concurrent bodies grow the
 * heap without bound.
 */
export interface InFlightBudget {
  /** Most bytes held by all admissions together. */
  readonly maxBytes: number
  /** Bytes reserved right now. */
  readonly inFlight: number
  /** Reserves `bytes` if they fit; returns false (reserving nothing) when they do not. */
  tryAcquire(bytes: number): boolean
  /** Gives back `bytes` reserved earlier. Releasing more than is held clamps at zero. */
  release(bytes: number): void
}

class ByteBudget implements InFlightBudget {
  readonly maxBytes: number
  #inFlight = 0

  constructor(maxBytes: number) {
    this.maxBytes = assertLimit('maxInFlightBytes', maxBytes)
  }

  get inFlight(): number {
    return this.#inFlight
  }

  tryAcquire(bytes: number): boolean {
    if (bytes <= 0) return true
    if (this.#inFlight + bytes > this.maxBytes) return false
    this.#inFlight += bytes
    return true
  }

  release(bytes: number): void {
    if (bytes <= 0) return
    this.#inFlight = Math.max(0, this.#inFlight - bytes)
  }
}

/**
 * Creates an isolated {@link InFlightBudget} of `maxBytes` bytes (a positive safe integer),
 * for a server or a test that must not share the process-wide one.
 * @throws TypeError when `maxBytes` is not a positive safe integer.
 */
export function createInFlightBudget(maxBytes: number): InFlightBudget {
  return new ByteBudget(maxBytes)
}

/** Size of {@link defaultInFlightBudget}: 256 MiB, four bodies at the 64 MiB REST cap. */
export const DEFAULT_IN_FLIGHT_BYTES = 256 * 1024 * 1024

// One per process, not one per loaded copy of this package: an app that loads the ESM build
// beside the CJS one (a dependency `require`s it) would otherwise have two budgets of 256 MiB.
// The same `Symbol.for` key reaches the same object from every copy, as the error brand does.
const DEFAULT_BUDGET_KEY = Symbol.for('tollgate.http-admission.defaultInFlightBudget')
const registry = globalThis as { [DEFAULT_BUDGET_KEY]?: InFlightBudget }

/**
 * The process-wide budget every admission uses unless its options name another: 256 MiB
 * shared by all requests (REST and MCP Streamable HTTP alike) in this process, whichever copy
 * of the package (ESM or CJS) they were admitted by.
 */
export const defaultInFlightBudget: InFlightBudget = (registry[DEFAULT_BUDGET_KEY] ??=
  createInFlightBudget(DEFAULT_IN_FLIGHT_BYTES))
