// The MCP SDK line the wire tests run on, one adapter per line: TOLLGATE_SDK_LINE=2 (set by the
// `sdk2` vitest project, inherited by the stdio child) loads @modelcontextprotocol/server 2.x
// and @modelcontextprotocol/node; anything else loads @modelcontextprotocol/sdk 1.32. The test
// server, the raw clients and the stdio child import the SDK only from here, so one test body
// runs on both lines. Typed as 1.32's classes: only the surface both lines share is used.
import type { InMemoryTransport as V1InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { McpServer as V1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { StdioServerTransport as V1StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { StreamableHTTPServerTransport as V1StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'

interface SdkLine {
  readonly line: '1' | '2'
  readonly McpServer: typeof V1McpServer
  readonly InMemoryTransport: typeof V1InMemoryTransport
  readonly StreamableHTTPServerTransport: typeof V1StreamableHTTPServerTransport
  readonly StdioServerTransport: typeof V1StdioServerTransport
}

async function loadV1(): Promise<SdkLine> {
  const [mcp, memory, http, stdio] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/inMemory.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ])
  return {
    line: '1',
    McpServer: mcp.McpServer,
    InMemoryTransport: memory.InMemoryTransport,
    StreamableHTTPServerTransport: http.StreamableHTTPServerTransport,
    StdioServerTransport: stdio.StdioServerTransport,
  }
}

async function loadV2(): Promise<SdkLine> {
  const [server, node, stdio] = await Promise.all([
    import('@modelcontextprotocol/server'),
    import('@modelcontextprotocol/node'),
    import('@modelcontextprotocol/server/stdio'),
  ])
  return {
    line: '2',
    McpServer: server.McpServer as unknown as typeof V1McpServer,
    InMemoryTransport: server.InMemoryTransport as unknown as typeof V1InMemoryTransport,
    StreamableHTTPServerTransport:
      node.NodeStreamableHTTPServerTransport as unknown as typeof V1StreamableHTTPServerTransport,
    StdioServerTransport: stdio.StdioServerTransport as unknown as typeof V1StdioServerTransport,
  }
}

/** The SDK line of this test run. */
export const SDK: SdkLine = process.env.TOLLGATE_SDK_LINE === '2' ? await loadV2() : await loadV1()

export const { McpServer, InMemoryTransport, StreamableHTTPServerTransport, StdioServerTransport } =
  SDK

/**
 * The JSON Schema dialect this SDK line derives a zod `inputSchema` in (1.32 draft-07, 2.x draft
 * 2020-12): what an unrewritten `tools/list` carries.
 */
export const SDK_DERIVED_DIALECT =
  SDK.line === '2'
    ? 'https://json-schema.org/draft/2020-12/schema'
    : 'http://json-schema.org/draft-07/schema#'
