// Test helper: the transport factory the HTTP tests put behind mcpHttpHandler, an SDK McpServer
// with one `echo` tool on a stateless StreamableHTTPServerTransport (JSON responses, one per
// request), counting what ran. The sentinel of a refusal test: `seen` stays at zero.
import { z } from 'zod'
import { McpServer, StreamableHTTPServerTransport } from './sdk-line.js'

/** What the target ran: transports made (one per admitted request) and tool calls. */
export interface EchoSeen {
  transports: number
  echo: number
}

/** A fresh target and its counters; `name` is the server's name in `initialize` answers. */
export function echoTarget(name = 'http-fixture') {
  const seen: EchoSeen = { transports: 0, echo: 0 }
  const target = async () => {
    seen.transports++
    const server = new McpServer({ name, version: '1.0.0' })
    server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => {
      seen.echo++
      return { content: [{ type: 'text' as const, text: `len:${text.length}` }] }
    })
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    await server.connect(transport)
    return transport
  }
  return { seen, target }
}
