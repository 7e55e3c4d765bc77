// The same fixture behind every tollgate control that applies to it. HTTP steps, in
// mcp-transport's order: Host/Origin, the protocol version of either era, the 2026-07-28 head
// (method, tool name against the route's surface: the published tools, before any body byte),
// body admission (4 MiB cap, JSON structure preflight), header/body agreement, then the
// hand-over of the admitted body to the SDK's handler (`webHandover`: a bodiless request and the
// parsed body). The message controls on every
// per-request transport the SDK connects, in mcp-validation's fixed order: input validation
// against the published schemas in `schemas/` (raw arguments, unknown keys refused, fail
// closed), then the result budget on what goes back. The SDK's own handler, factory and tools
// are the bare ones.
import { createMcpHandler } from '@modelcontextprotocol/server'
import {
  createMcpHttpAdmission,
  createResultBudget,
  type McpRouteTool,
  mcpHttpHandler,
  mcpProtocolEras,
  mcpRouteHead,
  webHandover,
} from '@tollgate/mcp-transport'
import { inputValidation, loadSchemaRegistry, mcpMessageControls } from '@tollgate/mcp-validation'
import type { RouteHandler } from './bare.js'
import { fixtureServerFactory } from './fixture-server.js'
import type { FixtureNotifier } from './tools.js'

/** The directory of the fixture tools' published input schemas. */
export const FIXTURE_SCHEMAS = new URL('../schemas/', import.meta.url)

/**
 * The guarded fixture: {@link bareFixtureHandler}'s server behind `mcpHttpHandler` holding a
 * `createMcpHttpAdmission` control (default options for a 127.0.0.1 listener, both eras, the route's surface being the tools with a
 * published schema) and the message controls `inputValidation` and `createResultBudget`
 * (default options) composed by `mcpMessageControls`.
 */
export function guardedFixtureHandler(): RouteHandler {
  const registry = loadSchemaRegistry(FIXTURE_SCHEMAS)
  const notifier: FixtureNotifier = {
    toolsChanged: () => handler.notify.toolsChanged(),
    promptsChanged: () => handler.notify.promptsChanged(),
  }
  const factory = fixtureServerFactory(notifier)
  const controls = mcpMessageControls({
    validation: inputValidation(registry),
    resultBudget: createResultBudget(),
  })
  // `createMcpHandler` connects each per-request server itself: `guard` makes its `connect`
  // connect the transport wrapped in the controls.
  const handler = createMcpHandler((ctx) => controls.guard(factory(ctx)))
  const tools: Record<string, McpRouteTool> = {}
  for (const tool of registry.tools) tools[tool] = { inputSchema: registry.bundled(tool) }
  return mcpHttpHandler(
    // The admitted body reaches the handler as `parsedBody`, never serialized again.
    webHandover(handler),
    createMcpHttpAdmission({
      host: '127.0.0.1',
      eras: mcpProtocolEras(),
      route: mcpRouteHead({ tools }),
    }),
  )
}
