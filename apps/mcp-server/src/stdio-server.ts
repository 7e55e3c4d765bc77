import { BoundedStdioServerTransport } from '@tollgate/mcp-transport'
import { buildMcpServer, type PublishedTools } from './build-server.js'
import type { ControlOptions } from './controls.js'
import { ROUTES } from './surfaces.js'
import type { ServerContext } from './tools/context.js'

/** Options of {@link startStdioServer}. */
export interface StdioServerOptions {
  readonly credentialId: string
  readonly maxLineBytes: number
  readonly controls: ControlOptions
  readonly published: PublishedTools
}

/**
 * Serves one MCP session on stdin/stdout with the full route's surface, as the configured stdio
 * credential. stdout carries JSON-RPC only; the audit stream is on stderr.
 */
export async function startStdioServer(
  context: ServerContext,
  options: StdioServerOptions,
): Promise<{ closed: Promise<void> }> {
  const route = ROUTES[0]!
  const transport = new BoundedStdioServerTransport(process.stdin, process.stdout, {
    maxLineBytes: options.maxLineBytes,
  })
  const mcp = buildMcpServer(
    context,
    { route, credentialId: options.credentialId },
    options.published,
    options.controls,
  )
  const closed = new Promise<void>((resolve) => {
    const prior = transport.onclose
    transport.onclose = () => {
      prior?.()
      resolve()
    }
  })
  // The server connects through the message controls (see buildMcpServer).
  await mcp.connect(transport)
  context.audit('stdio_ready', { route: route.name, credential: options.credentialId })
  return { closed }
}
