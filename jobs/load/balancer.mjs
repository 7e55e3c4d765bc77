// A small round-robin HTTP balancer for the fleet row (jobs/load/fleet.mjs): each request goes
// to the next backend in turn, with no affinity (the 2026-07-28 path needs none). The body is
// streamed, not buffered, so a request held back after its first bytes holds its backend's
// lease as it would behind a real balancer. A backend that fails before answering (refused
// connection, reset) is skipped for `downMs` (a passive health check, as nginx's `max_fails`);
// that request is answered 502 and not retried, since part of its body may have gone. Listens on
// 127.0.0.1 only.
import { Agent, createServer, request } from 'node:http'

/**
 * Starts the balancer over `backends` (an array of ports, which the caller may change while it
 * runs: a restarted instance replaces its old port). Resolves `{ port, counts, close() }`;
 * `counts` holds the requests forwarded to each port and the 502s answered.
 */
export async function startBalancer(backends, { downMs = 5_000 } = {}) {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 })
  const downUntil = new Map()
  const counts = { forwarded: {}, badGateway: 0 }
  let next = 0
  const pick = () => {
    const now = Date.now()
    for (let i = 0; i < backends.length; i++) {
      const port = backends[next++ % backends.length]
      if ((downUntil.get(port) ?? 0) <= now) return port
    }
    return undefined
  }
  const server = createServer((req, res) => {
    const port = pick()
    if (port === undefined) {
      counts.badGateway++
      res.writeHead(502, { 'content-type': 'application/json', connection: 'close' })
      res.end('{"balancer":"no backend up"}')
      req.resume()
      return
    }
    counts.forwarded[port] = (counts.forwarded[port] ?? 0) + 1
    let answered = false
    const upstream = request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        answered = true
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
        answer.on('error', () => res.destroy())
      },
    )
    upstream.on('error', () => {
      if (answered) return res.destroy()
      downUntil.set(port, Date.now() + downMs)
      counts.badGateway++
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'application/json', connection: 'close' })
        res.end('{"balancer":"backend failed"}')
      } else res.destroy()
    })
    req.on('error', () => upstream.destroy())
    // A client that goes away mid-body takes its backend request with it.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy()
    })
    req.pipe(upstream)
  })
  server.keepAliveTimeout = 5_000
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: server.address().port,
    counts,
    close() {
      agent.destroy()
      server.closeAllConnections()
      return new Promise((resolve) => server.close(resolve))
    },
  }
}
