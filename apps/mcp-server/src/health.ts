// `/healthz` and `/readyz` for an orchestrator or a load balancer. They sit beside the MCP
// routes, not under them: no credential, no Host/Origin check (a kubelet probes by the pod's
// address), GET or HEAD only, and a body of a few fixed bytes that never names a key, a URL or
// anything a caller sent.
//
// Readiness and the shared Redis (`--redis-url`). Every instance of a fleet shares the one
// Redis, so a probe that failed while Redis is away would take every instance out of the
// balancer at the same moment: the fleet would answer nothing at all (or the balancer's own
// page, with no code and no `Retry-After`), where the server itself still serves the 2025
// sessions and the requests in flight on their local shares, and refuses the rest with a stable
// code (`ERR_QUOTA_UNAVAILABLE`, 503, `Retry-After`) that tells the client what happened. So a
// Redis outage does not make an instance unready: `/readyz` stays 200 and says `degraded`. It
// answers 503 only for what is this instance's own: while it drains (SIGTERM).

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Drain } from './drain.js'

/** The probe paths: served on the HTTP listener, outside the MCP routes. */
export const PROBE_PATHS = Object.freeze(['/healthz', '/readyz'] as const)

/** How long a store probe's answer is reused: at most one PING per second, however many probes. */
export const STORE_PROBE_INTERVAL_MS = 1000

/** How long a store probe waits for its PING before counting the store as not answering. */
export const STORE_PROBE_TIMEOUT_MS = 1000

/** Whether the shared store answered recently; ask with {@link StoreHealth.answering}. */
export interface StoreHealth {
  /** True when the last PING (at most {@link STORE_PROBE_INTERVAL_MS} old) was answered. */
  answering(): Promise<boolean>
}

/**
 * Builds the {@link StoreHealth} of one store over its `ping` (a node-redis `client.ping()`):
 * one PING in flight at a time, its verdict reused for {@link STORE_PROBE_INTERVAL_MS}, a PING
 * not answered within {@link STORE_PROBE_TIMEOUT_MS} counted as a failure.
 */
export function storeHealth(ping: () => Promise<unknown>, now = () => Date.now()): StoreHealth {
  let checkedAt = Number.NEGATIVE_INFINITY
  let verdict = false
  let running: Promise<boolean> | undefined
  const check = async (): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), STORE_PROBE_TIMEOUT_MS)
    })
    try {
      return await Promise.race([ping().then(() => true), late])
    } catch {
      return false
    } finally {
      clearTimeout(timer)
    }
  }
  return Object.freeze({
    answering(): Promise<boolean> {
      if (now() - checkedAt < STORE_PROBE_INTERVAL_MS) return Promise.resolve(verdict)
      running ??= check().then((ok) => {
        verdict = ok
        checkedAt = now()
        running = undefined
        return ok
      })
      return running
    },
  })
}

const send = (req: IncomingMessage, res: ServerResponse, status: number, body: object) => {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-store',
    'Content-Length': String(Buffer.byteLength(text)),
  })
  res.end(req.method === 'HEAD' ? undefined : text)
}

/**
 * Answers a probe when `path` is one of {@link PROBE_PATHS}; returns false (answering nothing)
 * for any other path. `/healthz`: 200 `{"status":"ok"}` while the process serves, draining
 * included (a liveness probe must not kill a drain). `/readyz`: 503
 * `{"status":"not_ready","reason":"draining"}` once the drain began; else 200
 * `{"status":"ready"}`, or with a shared store that did not answer its last PING 200
 * `{"status":"degraded","reason":"limit_store_unavailable"}` (see the file's comment). Another
 * method than GET or HEAD is answered 405.
 */
export async function answerProbe(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  drain: Drain,
  store: StoreHealth | undefined,
): Promise<boolean> {
  if (!(PROBE_PATHS as readonly string[]).includes(path)) return false
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD')
    send(req, res, 405, { status: 'method_not_allowed' })
    return true
  }
  if (path === '/healthz') {
    send(req, res, 200, { status: 'ok' })
    return true
  }
  if (drain.draining) {
    send(req, res, 503, { status: 'not_ready', reason: 'draining' })
    return true
  }
  if (store !== undefined && !(await store.answering())) {
    send(req, res, 200, { status: 'degraded', reason: 'limit_store_unavailable' })
    return true
  }
  send(req, res, 200, { status: 'ready' })
  return true
}
