import { createRepeatWindow, type RefusalEvent, type RefusalHook } from '@tollgate/json-budget'
import pino from 'pino'

/** The audit sink: one JSON line per event on stderr, so stdout stays JSON-RPC only in stdio mode. */
export type Audit = (event: string, fields?: Record<string, unknown>) => void

/**
 * The refusals a caller can repeat without having identified itself (no credential, no route,
 * no session yet): each one is written once per window and then counted, so a burst of them
 * costs a bounded number of lines.
 */
export const AGGREGATED_EVENTS: ReadonlySet<string> = new Set([
  'auth_refused',
  'body_refused',
  'http_refused',
  'session_refused',
])

/** Default window in which identical aggregated lines are counted instead of written: 10 s. */
export const DEFAULT_AUDIT_REPEAT_WINDOW_MS = 10_000

/** Most distinct aggregated lines counted at once; past it, lines of one event share a count. */
const MAX_KEYS = 256

/** Options of {@link createAudit}. */
export interface AuditOptions {
  /**
   * Milliseconds during which a repeat of an identical {@link AGGREGATED_EVENTS} line (same event,
   * same fields) is counted rather than written; at the end of the window one line with
   * `repeated: <count>` and `windowMs` is written if any were counted. `0` writes every line.
   * Default: 10,000.
   */
  readonly repeatWindowMs?: number
}

/**
 * Creates the audit logger: pino writing synchronously to file descriptor 2. Each event is a
 * line with `event` and the fields given; no caller-supplied value is ever logged beyond
 * bounded identifiers the server itself resolved. Repeats of the pre-authentication refusals
 * ({@link AGGREGATED_EVENTS}) are aggregated per window (see {@link AuditOptions}).
 * @throws TypeError on a `repeatWindowMs` that is not a non-negative safe integer.
 */
export function createAudit(options: AuditOptions = {}): { audit: Audit; logger: pino.Logger } {
  const windowMs = options.repeatWindowMs ?? DEFAULT_AUDIT_REPEAT_WINDOW_MS
  if (!Number.isSafeInteger(windowMs) || windowMs < 0) {
    throw new TypeError('repeatWindowMs must be a non-negative safe integer')
  }
  const logger = pino(
    { base: { service: 'tollgate-mcp-server' }, messageKey: 'msg' },
    pino.destination({ fd: 2, sync: true }),
  )
  const write: Audit = (event, fields = {}) => logger.info({ event, ...fields })
  if (windowMs === 0) return { audit: write, logger }
  return { audit: aggregateRepeats(write, windowMs), logger }
}

/**
 * Wraps `write` so that, per window, the first {@link AGGREGATED_EVENTS} line of a kind is
 * written at once and its repeats are counted into one closing line. Other events pass through.
 * The window is json-budget's `createRepeatWindow`, the one the MCP packages report through.
 */
export function aggregateRepeats(write: Audit, windowMs: number): Audit {
  const window = createRepeatWindow<{ event: string; fields: Record<string, unknown> }>(
    (r) => {
      // Past MAX_KEYS kinds the overflow count names no fields (they differ).
      const shown = r.overflow ? { overflow: true } : r.event.fields
      write(
        r.event.event,
        r.repeated === undefined ? shown : { ...shown, repeated: r.repeated, windowMs },
      )
    },
    { windowMs, maxKinds: MAX_KEYS },
  )
  return (event, fields = {}) => {
    if (!AGGREGATED_EVENTS.has(event)) return write(event, fields)
    // Fields here are server-resolved (route names, reason codes), so the key set is small;
    // the cap keeps it so even if a future field were not.
    window.note(`${event}\u0000${JSON.stringify(fields)}`, { event, fields })
  }
}

/**
 * The `onRefusal` hook that writes one `body_refused` line per refused request body (413, 415,
 * 422, 408, 503, and 400 for a body the MCP step refuses after parsing it), aggregated per window
 * like the other pre-authentication refusals: `code`, `status`, `limit` and the `control` that
 * refused, fields the server chose, never the caller's bytes. `accept` picks the events that are
 * body refusals (a path hook also sees refusals the server audits as `http_refused`).
 */
export function bodyRefusalAudit(
  audit: Audit,
  accept: (event: RefusalEvent) => boolean = () => true,
): RefusalHook {
  return (event) => {
    if (!accept(event)) return
    const fields: Record<string, unknown> = { code: event.code, control: event.control }
    if (event.status !== undefined) fields.status = event.status
    if (event.limit !== undefined) fields.limit = event.limit
    // The route's configured name (never the request path); 2026-07-28 requests carry it.
    if (event.route !== undefined) fields.route = event.route
    audit('body_refused', fields)
  }
}
