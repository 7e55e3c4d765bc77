import { type McpRouteHead, type McpRouteTool, mcpRouteHead } from '@tollgate/mcp-transport'
import type { ToolCatalog } from './tool-catalog.js'
import type { UpstreamTool } from './tool-guard.js'

/**
 * The 2026-07-28 head control of the catalog's served tools, rebuilt when the catalog's served
 * list changes. A tool whose `x-mcp-header` declarations the control refuses is left off the
 * surface (its calls are refused from the head) rather than failing the whole route.
 * @returns a function giving the current head control.
 */
export function servedSurface(catalog: ToolCatalog): () => McpRouteHead {
  let surface: { served: readonly UpstreamTool[] | undefined; head: McpRouteHead } = {
    served: undefined,
    head: mcpRouteHead(),
  }
  return () => {
    const served = catalog.served
    if (surface.served !== served) surface = { served, head: surfaceOf(served) }
    return surface.head
  }
}

function surfaceOf(served: readonly UpstreamTool[]): McpRouteHead {
  const tools: Record<string, McpRouteTool> = {}
  for (const tool of served) {
    try {
      mcpRouteHead({ tools: { [tool.name]: { inputSchema: tool.inputSchema } } })
      tools[tool.name] = { inputSchema: tool.inputSchema }
    } catch {
      // Left off the surface.
    }
  }
  return mcpRouteHead({ tools })
}
