import pino from 'pino'

/** The audit sink: one JSON line per event on stderr, so stdout stays JSON-RPC only in stdio mode. */
export type Audit = (event: string, fields?: Record<string, unknown>) => void

/**
 * Creates the audit logger: pino writing synchronously to file descriptor 2. Each event is a
 * line with `event` and the fields given; no caller-supplied value is ever logged beyond
 * bounded identifiers the server itself resolved.
 */
export function createAudit(): { audit: Audit; logger: pino.Logger } {
  const logger = pino(
    { base: { service: 'tollgate-mcp-server' }, messageKey: 'msg' },
    pino.destination({ fd: 2, sync: true }),
  )
  const audit: Audit = (event, fields = {}) => logger.info({ event, ...fields })
  return { audit, logger }
}
