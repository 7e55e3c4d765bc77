import type { IncomingMessage, ServerResponse } from 'node:http'
import { type AuthInfo, createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server'
import {
  closeEarlyAnswers,
  type McpHeadAuditEvent,
  type McpRouteHead,
  type McpRouteTool,
  mcpRouteHead,
  type WebHandover,
  webHandover,
} from '@tollgate/mcp-transport'
import type { SchemaRegistry } from '@tollgate/mcp-validation'
import type { Principal } from './auth.js'
import { buildMcpServer, type PublishedTools } from './build-server.js'
import type { MessageControls } from './controls.js'
import { mountedResourceTemplates } from './resources.js'
import type { Route } from './surfaces.js'
import type { ServerContext } from './tools/context.js'
import { TOOL_TABLE } from './tools/table.js'

/**
 * The head admission of one route's 2026-07-28 requests (`mcpRouteHead`): its surface is the
 * rows of the tool table the route mounts, each with its published schema (for `Mcp-Param-*`)
 * and its byte cap, when the row sets one; no prompt; the URI templates of the resource kinds it
 * mounts. A name off the surface gets, before a body byte is read, the bytes the server answers
 * an unknown tool, prompt or resource with.
 */
export function routeHead(
  route: Route,
  schemas: SchemaRegistry,
  audit: (event: McpHeadAuditEvent) => void,
): McpRouteHead {
  const tools: Record<string, McpRouteTool> = {}
  for (const row of TOOL_TABLE) {
    if (route.view.get(row.name) === undefined) continue
    tools[row.name] = {
      inputSchema: schemas.bundled(row.name),
      ...(row.maxRequestBytes === undefined ? {} : { maxBodyBytes: row.maxRequestBytes }),
    }
  }
  // Named, so every refusal event of this route's steps reports `route` (never the request path).
  // The server serves no prompt, and only the resource kinds the route mounts: any other name
  // is refused from the head, with the bytes the server answers an unknown one with.
  return mcpRouteHead({
    name: route.name,
    tools,
    prompts: [],
    resources: mountedResourceTemplates(route.view),
    audit,
  })
}

// The principal travels to the server factory as the SDK's pass-through `authInfo` (the
// handler never derives it from headers): the one per-request input its factory receives.
const PRINCIPAL = 'tollgate.principal'

/** Serves one admitted 2026-07-28 request on its route. */
export type ModernServe = (
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  route: Route,
  principal: Principal,
) => Promise<void>

/**
 * The stateless leg: one SDK `createMcpHandler` per route, strict (`legacy: 'reject'`: 2025
 * traffic is served by the session leg, never here), whose factory builds the same
 * `McpServer` as a 2025 session (the same table, surface and controls) for the request's
 * principal. The SDK answers `server/discover`, checks the per-request `_meta` envelope and the
 * mirrored headers; the request reaches it with its body already admitted (`body`), so it
 * reads nothing again. Returns the serve function and a `close` for shutdown.
 */
export function createModernLeg(
  context: ServerContext,
  routes: readonly Route[],
  published: PublishedTools,
  controls: MessageControls,
): { serve: ModernServe; close: () => Promise<void> } {
  const handlers = new Map<Route, { handler: McpHttpHandler; handover: WebHandover }>()
  for (const route of routes) {
    const handler = createMcpHandler(
      (ctx) => {
        const principal = ctx.authInfo?.extra?.[PRINCIPAL] as Principal | undefined
        // Unreachable: every request reaching the handler carries the principal set below.
        if (principal === undefined) throw new Error('no principal')
        const session = principal.anonymous
          ? { route, credentialId: principal.id, quotaKey: principal.quotaKey }
          : { route, credentialId: principal.id }
        return buildMcpServer(context, session, published, controls)
      },
      {
        legacy: 'reject',
        onerror: (error) =>
          context.audit('modern_refused', { route: route.name, error: error.name }),
      },
    )
    // The admitted body goes to the handler as `parsedBody` on a bodiless request, never
    // serialized again (`toNodeHandler` would, for a body the handler does not read).
    handlers.set(route, { handler, handover: webHandover(handler) })
  }
  const serve: ModernServe = async (req, res, body, route, principal) => {
    const authInfo: AuthInfo = {
      token: '',
      clientId: principal.id,
      scopes: [],
      extra: { [PRINCIPAL]: principal },
    }
    // The SDK's own error answers close like tollgate's (a lingering close after a 4xx/5xx).
    closeEarlyAnswers(req, res)
    await handlers.get(route)!.handover.handleRequest(req, res, body, { authInfo })
  }
  return {
    serve,
    close: async () => {
      await Promise.all([...handlers.values()].map((h) => h.handler.close()))
    },
  }
}
