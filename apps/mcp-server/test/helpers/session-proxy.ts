// Test support (not a test file): a loopback reverse proxy in front of several server
// instances, routing the way a deployment must (the SDK keeps Streamable HTTP sessions in
// process): a request without `Mcp-Session-Id` goes to the next instance in turn, a request
// with one goes to the instance whose answer created it.
import { request } from 'node:http'
import { listen } from '@tollgate/test-kit/listen'

export interface SessionProxy {
  url(path: string): string
  /** The index (in the ports given) of the instance that created `sessionId`. */
  instanceOf(sessionId: string): number | undefined
  close(): Promise<void>
}

export async function startSessionProxy(ports: readonly number[]): Promise<SessionProxy> {
  const owners = new Map<string, number>()
  let next = 0
  const server = await listen((req, res) => {
    const sid = req.headers['mcp-session-id']
    const owner = typeof sid === 'string' ? owners.get(sid) : undefined
    if (typeof sid === 'string' && owner === undefined) {
      // A session no instance behind this proxy created: nowhere to route it.
      res.writeHead(404).end()
      return
    }
    const index = owner ?? next++ % ports.length
    const upstream = request(
      {
        host: '127.0.0.1',
        port: ports[index],
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        const created = answer.headers['mcp-session-id']
        if (typeof created === 'string' && !owners.has(created)) owners.set(created, index)
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502)
      res.end()
    })
    req.pipe(upstream)
  })
  return {
    url: (path) => `${server.url}${path}`,
    instanceOf: (sessionId) => owners.get(sessionId),
    close: () => server.close(),
  }
}
