import pino from 'pino'

/** The gateway's operational log: one JSON line per event on stderr (stdout may be JSON-RPC). */
export type GatewayLog = (
  event: string,
  fields?: Record<string, string | number | boolean | undefined>,
) => void

/**
 * Creates the log: pino writing synchronously to file descriptor 2, each line with `event` and
 * the fields given; fields are server-resolved identifiers and counts, never a caller's bytes.
 */
export function gatewayLog(): GatewayLog {
  const logger = pino(
    { base: { service: 'tollgate-gateway' }, messageKey: 'msg' },
    pino.destination({ fd: 2, sync: true }),
  )
  return (event, fields = {}) => logger.info({ event, ...fields })
}
