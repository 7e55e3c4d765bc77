// The registry and routes the tests share: the reference server's shapes (a group dispatcher
// `knowledge`, a class dispatcher `admin`, `continuation.fetch`) and three routes, two of them
// with the same `read` ceiling and different surfaces. Built through the public API only.

import {
  createRouteView,
  createToolRegistry,
  type Permissions,
  type ResolvedTarget,
  type RouteView,
  resolveScoped,
  type ScopedRequest,
  type ToolRegistry,
} from '../src/index.js'

// Built inside a function and caught, so that a mutant breaking construction fails the tests
// that use these (they receive objects that are not views) instead of failing the file at load,
// which the mutation runner would not count as a kill.
function build() {
  const registry = createToolRegistry([
    { name: 'knowledge', tier: 'read' },
    { name: 'knowledge.documents.get', tier: 'read' },
    { name: 'knowledge.documents.search', tier: 'read' },
    { name: 'knowledge.notes.list', tier: 'read', capabilities: ['notes:read'] },
    { name: 'knowledge.notes.create', tier: 'write' },
    { name: 'knowledge.projects.list', tier: 'read' },
    { name: 'admin', tier: 'read' },
    { name: 'admin.stats', tier: 'read' },
    { name: 'admin.export', tier: 'read', capabilities: ['export'] },
    { name: 'admin.reindex', tier: 'admin' },
    { name: 'continuation.fetch', tier: 'read' },
  ])

  const full = createRouteView({ name: '/mcp', registry, mount: ['**'], ceiling: 'admin' })

  const team = createRouteView({
    name: '/mcp/team',
    registry,
    ceiling: 'read',
    mount: ['knowledge', 'knowledge.**', 'admin', 'admin.*', 'continuation.fetch'],
  })

  /** Same mount and ceiling as `team` for knowledge; notes carved out by deny, no admin class. */
  const pub = createRouteView({
    name: '/mcp/public',
    registry,
    ceiling: 'read',
    mount: ['knowledge', 'knowledge.**', 'continuation.fetch'],
    deny: ['knowledge.notes.*'],
  })
  return { registry, full, team, pub }
}

function broken() {
  const notAView = Object.freeze({}) as never
  return { registry: notAView, full: notAView, team: notAView, pub: notAView }
}

let built: ReturnType<typeof build>
try {
  built = build()
} catch {
  built = broken()
}

export const registry: ToolRegistry = built.registry
export const full: RouteView = built.full
export const team: RouteView = built.team
/** Same mount and ceiling as `team` for knowledge; notes carved out by deny, no admin class. */
export const pub: RouteView = built.pub

export const ALL = new Set(['notes:read', 'export'])

export const group = (resource: unknown, action: unknown): ScopedRequest => ({
  kind: 'group',
  dispatcher: 'knowledge',
  resource,
  action,
})

export const klass = (action: unknown): ScopedRequest => ({
  kind: 'class',
  dispatcher: 'admin',
  action,
})

/** Resolves or fails the test. */
export function target(
  view: RouteView,
  request: ScopedRequest,
  permissions: Permissions = ALL,
): ResolvedTarget {
  const r = resolveScoped(view, request, permissions)
  if (!r.ok) throw new Error('fixture target did not resolve')
  return r.target
}

/** A payload above the default 64 KiB threshold, carrying a marker string. */
export const MARKER = 'MARKER-7f3a-never-echo'
export const heavyPayload = (tag = 'x') =>
  JSON.stringify({ tag, marker: MARKER, body: 'y'.repeat(70 * 1024) })

/** A clock the tests move by hand. */
export function manualClock(start = 1_800_000_000_000) {
  let t = start
  return { now: () => t, advance: (ms: number) => (t += ms) }
}
