// Test helper: a user's SDK 2.4 server, `createMcpHandler` of `@modelcontextprotocol/server`
// (both eras: the 2026-07-28 path and the stateless 2025 fallback) through `toNodeHandler` of
// `@modelcontextprotocol/node`, as the target of mcpHttpHandler. Two tools: `echo`, and
// `route`, whose `region` and `count` arguments are mirrored into `Mcp-Param-*` headers. The
// counters are the sentinels of the refusal tests.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { toNodeHandler } from '@modelcontextprotocol/node'
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server'

/** The published input schemas of the fixture's tools (what its `tools/list` returns). */
export const MODERN_SCHEMAS = Object.freeze({
  echo: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
  },
  route: {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      count: { type: 'integer', 'x-mcp-header': 'Count' },
    },
  },
})

/** What the server ran: instances built (one per request), and tool calls. */
export interface ModernSeen {
  servers: number
  echo: number
  route: number
}

/** A fresh SDK 2.4 target and its counters. */
export function modernTarget() {
  const seen: ModernSeen = { servers: 0, echo: 0, route: 0 }
  const handler = createMcpHandler(
    () => {
      seen.servers++
      const server = new McpServer({ name: 'modern-fixture', version: '1.0.0' })
      server.registerTool(
        'echo',
        { inputSchema: fromJsonSchema<{ text: string }>(MODERN_SCHEMAS.echo) },
        async ({ text }) => {
          seen.echo++
          return { content: [{ type: 'text' as const, text: `len:${text.length}` }] }
        },
      )
      server.registerTool(
        'route',
        { inputSchema: fromJsonSchema<Record<string, unknown>>(MODERN_SCHEMAS.route) },
        async (args) => {
          seen.route++
          return { content: [{ type: 'text' as const, text: `route:${JSON.stringify(args)}` }] }
        },
      )
      return server
    },
    { responseMode: 'json' },
  )
  const node = toNodeHandler(handler)
  const target = {
    handleRequest: (req: IncomingMessage, res: ServerResponse, body?: unknown) =>
      node(req, res, body),
  }
  return { seen, target, close: () => handler.close() }
}

/** `_meta` of a 2026-07-28 request. */
export function envelope(version = '2026-07-28'): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw-client', version: '1.0.0' },
  }
}

/** A 2026-07-28 `tools/call` body. */
export function modernCall(name: string, args: Record<string, unknown>, id = 1, version?: string) {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, _meta: envelope(version) },
  })
}

/** The headers a 2026-07-28 client sends with a `tools/call` of `name`. */
export function modernHeaders(name: string, extra: Record<string, string> = {}) {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': name,
    ...extra,
  }
}
