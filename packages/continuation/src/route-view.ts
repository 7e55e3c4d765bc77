// A route's surface: the tools mounted on one route, narrowed by the
// allow/deny carve-outs and the tier ceiling, then by the caller's capabilities per request.
// Built once from a registry and frozen; a configuration change is a new view.

import { defineOptions, type OptionsOf, oneOfOption, option } from '@tollgate/json-budget'
import { compilePatterns, matchesAny, type NamePattern } from './patterns.js'
import { TIERS, type Tier, type ToolDescriptor, type ToolRegistry, tierRank } from './registry.js'

/**
 * The capabilities the caller holds on this request, as a `Set` or an array. A missing value is
 * read as "holds none" (fail closed), never as "skip the capability check": a caller whose
 * capabilities could not be read must not be served more than one holding none.
 */
export type Permissions = ReadonlySet<string> | readonly string[]

/**
 * The options of {@link createRouteView}, declared once: the table in docs/continuation.md is
 * `ROUTE_VIEW_OPTIONS.markdown()`. `name`, `registry`, `mount` and `ceiling` are required.
 */
export const ROUTE_VIEW_OPTIONS = defineOptions('createRouteView', {
  name: option<string | undefined>({
    default: undefined,
    check: (value, name) => {
      if (typeof value !== 'string' || value.length === 0 || value.length > 256) {
        throw new TypeError(`${name} must be a string of 1–256 characters`)
      }
    },
    shown: 'required',
    doc: "the route's name, used in audit events only (e.g. `/mcp/team`): 1–256 characters",
  }),
  registry: option<ToolRegistry | undefined>({
    default: undefined,
    check: (value, name) => {
      const registry = value as { get?: unknown } | null
      if (typeof registry !== 'object' || registry === null || typeof registry.get !== 'function') {
        throw new TypeError(`${name} must come from createToolRegistry()`)
      }
    },
    shown: 'required',
    doc: 'the registry the view is built from (`createToolRegistry()`)',
  }),
  mount: option<readonly string[] | undefined>({
    default: undefined,
    check: patternList,
    shown: 'required',
    doc: 'patterns of the tools mounted on the route (see the pattern grammar)',
  }),
  allow: option<readonly string[]>({
    default: Object.freeze([]),
    check: patternList,
    doc: 'carve-in: when non-empty, only mounted tools matching one of these stay',
  }),
  deny: option<readonly string[]>({
    default: Object.freeze([]),
    check: patternList,
    doc: 'carve-out: mounted tools matching one of these are removed',
  }),
  ceiling: option<Tier | undefined>({
    default: undefined,
    // The README promises a TypeError naming the option: `ceiling`, not the registry's `tier`.
    check: oneOfOption(TIERS),
    shown: 'required',
    doc: "the highest tier the route serves: `'read'` < `'write'` < `'admin'`",
  }),
})

/** Options of {@link createRouteView} (see {@link ROUTE_VIEW_OPTIONS}). */
export type RouteViewOptions = OptionsOf<typeof ROUTE_VIEW_OPTIONS.rows> & {
  readonly name: string
  readonly registry: ToolRegistry
  readonly mount: readonly string[]
  readonly ceiling: Tier
}

/** Why a name is not on a route's surface; recorded in audit events, never answered. */
export type SurfaceDimension = 'membership' | 'carve_out' | 'ceiling' | 'capability'

/** The immutable surface of one route. Create with {@link createRouteView}. */
export interface RouteView {
  /** The route's name (audit only). */
  readonly name: string
  /** The tier ceiling. */
  readonly ceiling: Tier
  /** The mount, allow and deny patterns as written (frozen). */
  readonly mount: readonly string[]
  readonly allow: readonly string[]
  readonly deny: readonly string[]
  /** Names on the surface before capabilities: mounted, carved in, within the ceiling (frozen). */
  readonly names: readonly string[]
  /**
   * The descriptor of `name` when it is on the route's surface, else `undefined`. This is the
   * route's own table: a name mounted on another route and a name that exists nowhere take the
   * same single `Map` lookup and both answer `undefined`.
   */
  get(name: string): ToolDescriptor | undefined
  /** The tools a caller holding `permissions` sees (for `tools/list`), in registry order. */
  list(permissions: Permissions | undefined): readonly ToolDescriptor[]
}

interface ViewInternals {
  readonly excluded: ReadonlyMap<string, SurfaceDimension>
}

const internals = new WeakMap<RouteView, ViewInternals>()

/** Whether `value` is a view made by {@link createRouteView} in this copy of the package. */
export function isRouteView(value: unknown): value is RouteView {
  return typeof value === 'object' && value !== null && internals.has(value as RouteView)
}

// The pattern lists are compiled (and each pattern checked) once, below; here only their shape.
function patternList(value: unknown, name: string): void {
  if (!Array.isArray(value)) throw new TypeError(`${name} must be an array of patterns`)
}

/**
 * Builds a route's immutable surface from a registry. Throws a `TypeError` at construction on
 * an unknown option, a missing name or registry, a pattern outside the grammar, or an unknown
 * ceiling. Patterns that match nothing are allowed (a route may mount a tool a later registry
 * adds).
 */
export function createRouteView(options: RouteViewOptions): RouteView {
  if (options === undefined) throw new TypeError('createRouteView: options must be an object')
  const o = ROUTE_VIEW_OPTIONS.resolve(options)
  // The table checks the options given; a required one left out fails its own check, by name.
  for (const required of ['name', 'registry', 'mount', 'ceiling'] as const) {
    if (o[required] === undefined) ROUTE_VIEW_OPTIONS.rows[required].check(undefined, required)
  }
  const { name, registry, ceiling } = o as RouteViewOptions
  const ceilingRank = tierRank(ceiling)
  const mount = compilePatterns(o.mount as readonly string[], 'mount')
  const allow = compilePatterns(o.allow, 'allow')
  const deny = compilePatterns(o.deny, 'deny')

  const surface = new Map<string, ToolDescriptor>()
  const excluded = new Map<string, SurfaceDimension>()
  for (const toolName of registry.names) {
    const tool = registry.get(toolName)
    if (tool === undefined) continue
    const dimension = exclusion(tool, mount, allow, deny, ceilingRank)
    if (dimension === undefined) surface.set(toolName, tool)
    else excluded.set(toolName, dimension)
  }

  const view: RouteView = Object.freeze({
    name,
    ceiling,
    mount: Object.freeze(mount.map((p) => p.source)),
    allow: Object.freeze(allow.map((p) => p.source)),
    deny: Object.freeze(deny.map((p) => p.source)),
    names: Object.freeze([...surface.keys()]),
    get: (toolName: string) => surface.get(toolName),
    list: (permissions: Permissions | undefined) =>
      Object.freeze([...surface.values()].filter((t) => holdsAll(t, permissions))),
  })
  internals.set(view, Object.freeze({ excluded }))
  return view
}

// The static dimensions, each evaluated on its own: membership by the mount patterns, the
// allow/deny carve-outs, then the ceiling. A ceiling-only check is not sufficient: two
// routes with one ceiling may expose different surfaces.
function exclusion(
  tool: ToolDescriptor,
  mount: readonly NamePattern[],
  allow: readonly NamePattern[],
  deny: readonly NamePattern[],
  ceilingRank: number,
): SurfaceDimension | undefined {
  if (!matchesAny(mount, tool.name)) return 'membership'
  if (allow.length > 0 && !matchesAny(allow, tool.name)) return 'carve_out'
  if (matchesAny(deny, tool.name)) return 'carve_out'
  if (tierRank(tool.tier) > ceilingRank) return 'ceiling'
  return undefined
}

/** Whether a caller holding `permissions` holds every capability `tool` requires. */
export function holdsAll(tool: ToolDescriptor, permissions: Permissions | undefined): boolean {
  const required = tool.capabilities ?? []
  if (required.length === 0) return true
  if (permissions === undefined || permissions === null) return false
  const has =
    permissions instanceof Set
      ? (c: string) => permissions.has(c)
      : Array.isArray(permissions)
        ? (c: string) => (permissions as readonly string[]).includes(c)
        : () => false
  for (const cap of required) if (!has(cap)) return false
  return true
}

/**
 * Evaluates all four dimensions for `name` on `view` for a caller holding `permissions`:
 * membership, allow/deny, ceiling (all three fixed when the view was built) and capability
 * (per call). Returns `undefined` when authorized, else the dimension that refused — for audit
 * events only, never for a response.
 */
export function authorizeOnRoute(
  view: RouteView,
  name: string,
  permissions: Permissions | undefined,
): SurfaceDimension | undefined {
  const inner = internals.get(view)
  if (inner === undefined) throw new TypeError('route must come from createRouteView()')
  const tool = view.get(name)
  if (tool === undefined) return inner.excluded.get(name) ?? 'membership'
  if (!holdsAll(tool, permissions)) return 'capability'
  return undefined
}
