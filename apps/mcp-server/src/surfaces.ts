import { createRouteView, createToolRegistry, type RouteView } from '@tollgate/continuation'
import { TOOL_TABLE } from './tools/table.js'

/**
 * Every target the server can serve under its server-resolved name: the MCP tools of
 * {@link TOOL_TABLE} (flat tools and the two dispatchers, which register as `read` so they stay
 * visible; what they reach is authorized per target), then what the dispatchers reach, which
 * are not MCP tools: `knowledge.documents.get` (a child of the group dispatcher `knowledge`),
 * `admin.export` (an action of the class dispatcher `admin`, which resolves no child).
 * Continuations record these names, never the outer dispatcher name.
 */
export const TOOL_REGISTRY = createToolRegistry([
  ...TOOL_TABLE.map((t) => ({
    name: t.name,
    tier: t.tier,
    ...(t.capabilities === undefined ? {} : { capabilities: [...t.capabilities] }),
  })),
  { name: 'knowledge.documents.list', tier: 'read', capabilities: ['documents'] },
  { name: 'knowledge.documents.get', tier: 'read', capabilities: ['documents'] },
  { name: 'knowledge.notes.list', tier: 'read', capabilities: ['notes'] },
  { name: 'knowledge.notes.get', tier: 'read', capabilities: ['notes'] },
  { name: 'admin.stats', tier: 'read', capabilities: ['read'] },
  { name: 'admin.export', tier: 'read', capabilities: ['export'] },
  { name: 'admin.revoke', tier: 'admin', capabilities: ['admin'] },
  { name: 'admin.grant', tier: 'admin', capabilities: ['admin'] },
])

/** One route: its HTTP path and its surface. */
export interface Route {
  readonly name: 'full' | 'team' | 'public'
  readonly path: string
  readonly view: RouteView
}

const SHARED_MOUNT = [
  'project.list',
  'system.capabilities',
  'knowledge',
  'knowledge.**',
  'continuation.fetch',
]

/**
 * The three routes. `/mcp/team` and `/mcp/public` share the `read` ceiling and differ in
 * surface: `team` mounts the `documents` resource, `knowledge.get` (which reads documents) and
 * the `admin` class dispatcher (its read-tier actions only, by ceiling); `public` carves the
 * documents out. One credential reaches all three.
 */
export const ROUTES: readonly Route[] = Object.freeze([
  {
    name: 'full',
    path: '/mcp',
    view: createRouteView({
      name: '/mcp',
      registry: TOOL_REGISTRY,
      mount: ['**'],
      ceiling: 'admin',
    }),
  },
  {
    name: 'team',
    path: '/mcp/team',
    view: createRouteView({
      name: '/mcp/team',
      registry: TOOL_REGISTRY,
      mount: [...SHARED_MOUNT, 'admin', 'admin.*'],
      ceiling: 'read',
    }),
  },
  {
    name: 'public',
    path: '/mcp/public',
    view: createRouteView({
      name: '/mcp/public',
      registry: TOOL_REGISTRY,
      mount: SHARED_MOUNT,
      deny: ['knowledge.documents.*', 'knowledge.get'],
      ceiling: 'read',
    }),
  },
])
