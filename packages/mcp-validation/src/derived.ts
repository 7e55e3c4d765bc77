import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'

/**
 * Obtains each enabled tool's SDK-derived input schema (the zod-derived draft-07 JSON Schema
 * the SDK publishes) through public API only: connects an in-memory client to `server`, pages
 * through `tools/list`, and closes. `server` must not be connected to another transport (the
 * SDK allows one at a time); connect the real transport afterwards. Returns a map from tool
 * name to schema, sorted by name.
 * @throws Error when the server is already connected or the listing fails.
 */
export async function deriveToolSchemas(server: McpServer): Promise<Map<string, unknown>> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'tollgate-schema-probe', version: '1.0.0' })
  try {
    await client.connect(clientSide)
    const found: [string, unknown][] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor })
      for (const tool of page.tools) found.push([tool.name, tool.inputSchema])
      cursor = page.nextCursor
    } while (cursor !== undefined)
    found.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return new Map(found)
  } finally {
    await client.close()
    await server.close()
  }
}
