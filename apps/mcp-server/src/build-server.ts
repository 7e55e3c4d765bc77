import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { registerPrompts } from './prompts.js'
import { registerResources } from './resources.js'
import type { ServerContext, SessionContext } from './tools/context.js'
import { createHandlers } from './tools/handlers.js'
import {
  ADMIN_SHAPE,
  EMPTY_SHAPE,
  FETCH_SHAPE,
  GET_SHAPE,
  KNOWLEDGE_SHAPE,
  SEARCH_SHAPE,
  STATUS_SHAPE,
} from './tools/shapes.js'

/** Server name and version announced at `initialize`. */
export const SERVER_INFO = Object.freeze({ name: 'tollgate-reference', version: '0.0.0' })

/** The name of the test-only tool registered without a published schema. */
export const UNPUBLISHED_PROBE_TOOL = 'probe.unpublished'

/**
 * Builds the `McpServer` of one session: only the tools mounted on the session's route are
 * registered, so `tools/list` shows the route's surface and an unmounted tool does not exist;
 * the documents and notes the route mounts are served as resources (`resources.ts`), and
 * `logging/setLevel` is answered (the SDK keeps the level per session).
 */
export function buildMcpServer(server: ServerContext, session: SessionContext): McpServer {
  const mcp = new McpServer(SERVER_INFO, {
    capabilities: { tools: {}, resources: {}, prompts: {}, logging: {} },
  })
  registerResources(mcp, server, session)
  registerPrompts(mcp)
  const h = createHandlers(server, session)
  const mounted = (name: string) => session.route.view.get(name) !== undefined

  if (mounted('project.list')) {
    mcp.registerTool(
      'project.list',
      { description: 'Lists the projects of the knowledge store.', inputSchema: EMPTY_SHAPE },
      () => h['project.list'](),
    )
  }
  if (mounted('system.capabilities')) {
    mcp.registerTool(
      'system.capabilities',
      {
        description: "This route's surface and the caller's current capabilities.",
        inputSchema: EMPTY_SHAPE,
      },
      () => h['system.capabilities'](),
    )
  }
  if (mounted('knowledge.search')) {
    mcp.registerTool(
      'knowledge.search',
      {
        description:
          'Searches the resources this route mounts (query <= 2,000 characters, limit 1-50).',
        inputSchema: SEARCH_SHAPE,
      },
      (a) => h['knowledge.search'](a),
    )
  }
  if (mounted('knowledge.get')) {
    mcp.registerTool(
      'knowledge.get',
      {
        description: 'Reads one document; over 64 KiB it answers a continuation token.',
        inputSchema: GET_SHAPE,
      },
      (a) => h['knowledge.get'](a),
    )
  }
  if (mounted('knowledge.status')) {
    mcp.registerTool(
      'knowledge.status',
      { description: 'Counts the documents and notes of a project.', inputSchema: STATUS_SHAPE },
      (a) => h['knowledge.status'](a),
    )
  }
  if (mounted('knowledge')) {
    mcp.registerTool(
      'knowledge',
      {
        description:
          'Group dispatcher: resource (documents, notes) + action (list, get), resolved against this route.',
        inputSchema: KNOWLEDGE_SHAPE,
      },
      (a) => h.knowledge(a),
    )
  }
  if (mounted('admin')) {
    mcp.registerTool(
      'admin',
      {
        description: 'Class dispatcher: action (stats, export, revoke, grant) + params.',
        inputSchema: ADMIN_SHAPE,
      },
      (a) => h.admin(a),
    )
  }
  if (mounted('continuation.fetch')) {
    mcp.registerTool(
      'continuation.fetch',
      {
        description: 'Redeems a continuation token for its heavy result.',
        inputSchema: FETCH_SHAPE,
      },
      (a) => h['continuation.fetch'](a),
    )
  }
  if (server.registerUnpublishedProbe) {
    mcp.registerTool(
      UNPUBLISHED_PROBE_TOOL,
      {
        description: 'Test-only: a tool with no published input schema.',
        inputSchema: EMPTY_SHAPE,
      },
      () => {
        server.audit('tool_invoked', { tool: UNPUBLISHED_PROBE_TOOL, route: session.route.name })
        return { content: [{ type: 'text', text: '{"probe":"ran"}' }] }
      },
    )
  }
  return mcp
}
