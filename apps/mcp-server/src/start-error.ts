/**
 * The one line the reference server writes when it cannot start. A listen failure names its
 * cause (`EADDRINUSE`, `EACCES`, `EADDRNOTAVAIL`), the host and port and the flag that changes
 * them, because "start-up failed" sent people to read source for a port already taken.
 * Option errors (TypeError, from the command line or the config) keep their own message.
 */
export function describeStartError(error: unknown): string {
  if (error instanceof TypeError) return error.message
  const e = error as { code?: unknown; syscall?: unknown; port?: unknown; address?: unknown }
  if (e !== null && typeof e === 'object' && e.syscall === 'listen') {
    const where = typeof e.address === 'string' ? `${e.address}:${String(e.port)}` : 'the address'
    if (e.code === 'EADDRINUSE') {
      return `port ${String(e.port)} is already in use (EADDRINUSE on ${where}); stop the other process or choose another port with --port <n> (0 picks a free one)`
    }
    if (e.code === 'EACCES') {
      return `not allowed to listen on ${where} (EACCES); choose a port above 1023 with --port <n>`
    }
    if (e.code === 'EADDRNOTAVAIL') {
      return `cannot listen on ${where} (EADDRNOTAVAIL): no interface has that address; choose another with --host`
    }
    if (typeof e.code === 'string') return `cannot listen on ${where} (${e.code})`
  }
  return 'start-up failed'
}
