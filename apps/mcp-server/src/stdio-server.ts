import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { buildMcpServer } from './build-server.js'
import { applyControls, type ControlOptions } from './controls.js'
import { ROUTES } from './surfaces.js'
import type { ServerContext } from './tools/context.js'

/** Options of {@link startStdioServer}. */
export interface StdioServerOptions {
  readonly credentialId: string
  readonly maxLineBytes: number
  readonly controls: ControlOptions
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
  const transport = new StdioServerTransport(process.stdin, process.stdout)
  const mcp = buildMcpServer(context, { route, credentialId: options.credentialId })
  const closed = new Promise<void>((resolve) => {
    const prior = transport.onclose
    transport.onclose = () => {
      prior?.()
      resolve()
    }
  })
  process.stdin.on('end', () => {
    void mcp.close()
  })
  await mcp.connect(applyControls(transport, options.controls))
  context.audit('stdio_ready', { route: route.name, credential: options.credentialId })
  return { closed }
}
