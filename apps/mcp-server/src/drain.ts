// The graceful stop of the HTTP server. On SIGTERM an orchestrator has begun to take the
// instance out of its load balancer, but traffic keeps arriving for a while and requests are
// still running: killing them would lose work and, without a drain, leave their fleet-wide
// leases in Redis until they expire (`--fleet-lease-ms`), so the caller would be held below its
// quota on every other instance meanwhile. The drain refuses new MCP requests at once (503 with
// a code and `Retry-After`, so a client retries elsewhere), lets the requests in flight finish
// within a deadline, and only then closes, so every lease is released before the exit.

import type { ServerResponse } from 'node:http'

/** Default deadline for the requests in flight after SIGTERM: 10 seconds. */
export const DEFAULT_DRAIN_MS = 10_000

/** The refusal code of a new MCP request while the server drains. */
export const SERVER_DRAINING = 'ERR_SERVER_DRAINING'

/** What {@link Drain.settled} reports: requests still running when it resolved. */
export interface DrainOutcome {
  /** 0 when every request finished before the deadline. */
  readonly inFlight: number
}

/**
 * The drain state of one HTTP server, held by the server and by `main`: who is in flight, and
 * whether new requests are still taken. Create with {@link createDrain}.
 */
export interface Drain {
  /** True once {@link Drain.begin} ran: `/readyz` answers 503 and new MCP requests are refused. */
  readonly draining: boolean
  /** Requests counted in flight now. */
  readonly inFlight: number
  /**
   * Counts one MCP request in flight until its response closes. Returns false, counting
   * nothing, once draining: the caller refuses the request.
   */
  admit(res: ServerResponse): boolean
  /** Stops taking new requests (idempotent). */
  begin(): void
  /**
   * Resolves once no request is in flight, or after `deadlineMs`, whichever comes first, with
   * how many were left. Never rejects.
   */
  settled(deadlineMs: number): Promise<DrainOutcome>
}

/** Builds the drain state of one server: taking requests, none in flight. */
export function createDrain(): Drain {
  let draining = false
  let inFlight = 0
  const waiters = new Set<() => void>()
  const wake = () => {
    if (inFlight > 0) return
    for (const w of waiters) w()
    waiters.clear()
  }
  return Object.freeze({
    get draining() {
      return draining
    },
    get inFlight() {
      return inFlight
    },
    admit(res: ServerResponse): boolean {
      if (draining) return false
      inFlight += 1
      // 'close' fires once per response, whether it finished or the socket went away.
      res.once('close', () => {
        inFlight -= 1
        wake()
      })
      return true
    },
    begin() {
      draining = true
    },
    settled(deadlineMs: number): Promise<DrainOutcome> {
      if (inFlight === 0) return Promise.resolve({ inFlight: 0 })
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer)
          waiters.delete(done)
          resolve({ inFlight })
        }
        const timer = setTimeout(done, deadlineMs)
        waiters.add(done)
      })
    },
  })
}
