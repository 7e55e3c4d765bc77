import { createRouteView, createToolRegistry, type RouteView } from '@tollgate/continuation'

/**
 * Every target the server can serve, flat tools, dispatchers, group children and class
 * actions alike, under its server-resolved name: `knowledge.get` (flat),
 * `knowledge.documents.get` (a child of the group dispatcher `knowledge`), `admin.export` (an
 * action of the class dispatcher `admin`, which resolves no child). The dispatchers register as
 * `read` so they stay visible; what they reach is authorized per target. Continuations record
 * these names, never the outer dispatcher name.
 */
export const TOOL_REGISTRY = createToolRegistry([
  { name: 'project.list', tier: 'read', capabilities: ['read'] },
  { name: 'system.capabilities', tier: 'read' },
  { name: 'knowledge.search', tier: 'read', capabilities: ['read'] },
  { name: 'knowledge.get', tier: 'read', capabilities: ['documents'] },
  { name: 'knowledge.status', tier: 'read', capabilities: ['read'] },
  { name: 'knowledge', tier: 'read' },
  { name: 'knowledge.documents.list', tier: 'read', capabilities: ['documents'] },
  { name: 'knowledge.documents.get', tier: 'read', capabilities: ['documents'] },
  { name: 'knowledge.notes.list', tier: 'read', capabilities: ['notes'] },
  { name: 'knowledge.notes.get', tier: 'read', capabilities: ['notes'] },
  { name: 'admin', tier: 'read' },
  { name: 'admin.stats', tier: 'read', capabilities: ['read'] },
  { name: 'admin.export', tier: 'read', capabilities: ['export'] },
  { name: 'admin.revoke', tier: 'admin', capabilities: ['admin'] },
  { name: 'admin.grant', tier: 'admin', capabilities: ['admin'] },
  { name: 'continuation.fetch', tier: 'read' },
])

/** The MCP tools the server registers (the rest of the registry is reached through dispatchers). */
export const TOOL_NAMES = Object.freeze([
  'project.list',
  'system.capabilities',
  'knowledge.search',
  'knowledge.get',
  'knowledge.status',
  'knowledge',
  'admin',
  'continuation.fetch',
] as const)

/** One registered MCP tool name. */
export type ToolName = (typeof TOOL_NAMES)[number]

/** The resources of the group dispatcher `knowledge`. */
export const RESOURCES = Object.freeze(['documents', 'notes'] as const)

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

/** The resources of `knowledge` a route mounts at all (before capabilities). */
export function mountedResources(view: RouteView): readonly string[] {
  return RESOURCES.filter((r) => view.names.some((n) => n.startsWith(`knowledge.${r}.`)))
}
