import { serveStdio } from '@modelcontextprotocol/server/stdio'
import { BoundedStdioServerTransport } from '@tollgate/mcp-transport'
import { buildMcpServer, type PublishedTools } from './build-server.js'
import type { MessageControls } from './controls.js'
import { ROUTES } from './surfaces.js'
import type { ServerContext } from './tools/context.js'

/** Options of {@link startStdioServer}. */
export interface StdioServerOptions {
  readonly credentialId: string
  readonly maxLineBytes: number
  readonly controls: MessageControls
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
    // A repeated key (JSON.parse keeps the last, a schema check may have seen the first) and a
    // `__proto__` key are refused on this server whatever the transport's default.
    duplicateKeys: 'refuse',
    protoKeys: 'refuse',
  })
  // Both eras on one stream: the SDK's stdio entry decides the era from the opening message
  // (an `initialize`, or a 2026-07-28 request with its `_meta`) and pins one server from the
  // factory; that server connects through the message controls (see buildMcpServer).
  const handle = serveStdio(
    () =>
      buildMcpServer(
        context,
        { route, credentialId: options.credentialId },
        options.published,
        options.controls,
      ),
    { transport },
  )
  // The entry owns the transport's callbacks; the end of the input is seen on the stream.
  const closed = new Promise<void>((resolve) => {
    process.stdin.once('close', resolve)
    process.stdin.once('end', resolve)
  }).then(() => handle.close().catch(() => undefined))
  context.audit('stdio_ready', { route: route.name, credential: options.credentialId })
  return { closed }
}
