// A real http.Server on 127.0.0.1, port 0: the production path the security tests go through
// (never an in-process fake), closed with every socket it still holds.
import { createServer, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A listening server and how to reach and stop it. */
export interface Running {
  /** The server listening on 127.0.0.1. */
  readonly server: Server
  /** The port the kernel chose. */
  readonly port: number
  /** `http://127.0.0.1:<port>` followed by the `path` given to `listen()` (none by default). */
  readonly url: string
  /** Closes every connection (idle or not) and the server; resolves once it is closed. */
  close(): Promise<void>
}

/** Options of `listen()`. */
export interface ListenOptions {
  /** Appended to `url`, e.g. `'/mcp'`. Default: `''` (the origin alone). */
  readonly path?: string
}

/**
 * Listens with `handler` (a request listener, or a server already built) on 127.0.0.1 and a
 * port the kernel picks, so parallel test files never collide on a port.
 */
export async function listen(
  handler: RequestListener | Server,
  options: ListenOptions = {},
): Promise<Running> {
  const server = typeof handler === 'function' ? createServer(handler) : handler
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}${options.path ?? ''}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
