// Scoped resolution: a name composed from caller input is looked up in the route's
// own surface table and nowhere else. There is no global registry lookup and no fallback scan,
// so a name mounted on another route and a name that exists nowhere do the same work (one
// composition, one Map lookup) and get the same frozen refusal.

import { createResolvedBrand } from '@tollgate/json-budget'
import { composeToolName, isToolName } from './names.js'
import type { ToolDescriptor } from './registry.js'
import { holdsAll, isRouteView, type Permissions, type RouteView } from './route-view.js'

/** What a request asks to call, in one of the three shapes a server exposes. */
export type ScopedRequest =
  /** A group dispatcher: the name is `dispatcher.resource.action`. */
  | {
      readonly kind: 'group'
      readonly dispatcher: string
      readonly resource: unknown
      readonly action: unknown
    }
  /** A class dispatcher: no resource; the name is `dispatcher.action`. */
  | { readonly kind: 'class'; readonly dispatcher: string; readonly action: unknown }
  /** A flat tool called by its own name. */
  | { readonly kind: 'tool'; readonly name: unknown }

/** A target the server resolved on a route; the only thing a continuation may be minted for. */
export interface ResolvedTarget {
  /** The resolved tool name, e.g. `knowledge.documents.get`, `admin.reindex`. */
  readonly name: string
  /** The request shape it was resolved from. */
  readonly kind: 'group' | 'class' | 'tool'
  /** The outer dispatcher the call came through (`undefined` for a flat tool). Never recorded. */
  readonly dispatcher: string | undefined
  /** The resolved action (`undefined` for a flat tool). */
  readonly action: string | undefined
  /** The descriptor from the route's surface. */
  readonly tool: ToolDescriptor
}

/**
 * The one refusal of scoped resolution, whatever the reason: one frozen object (its `error`
 * frozen too), so its serialization is byte-identical for every reason.
 */
export const TOOL_NOT_FOUND: Readonly<{
  ok: false
  error: Readonly<{ code: 'ERR_TOOL_NOT_FOUND'; message: string }>
}> = Object.freeze({
  ok: false,
  error: Object.freeze({ code: 'ERR_TOOL_NOT_FOUND', message: 'Unknown tool.' } as const),
} as const)

/** The result of {@link resolveScoped}. */
export type ScopedResolution =
  | { readonly ok: true; readonly target: ResolvedTarget }
  | typeof TOOL_NOT_FOUND

// Only a target this function returned may be minted for: a look-alike object is never one.
const issued = createResolvedBrand<ResolvedTarget>()

/** Whether `value` is a target returned by {@link resolveScoped} in this copy of the package. */
export function isResolvedTarget(value: unknown): value is ResolvedTarget {
  return issued.has(value)
}

/**
 * Resolves a caller-composed name against `view`'s surface for a caller holding `permissions`.
 * Refuses with {@link TOOL_NOT_FOUND} — the same frozen object for every reason — when a segment
 * is outside the name grammar, the name is not on the route (not mounted, carved out, above the
 * ceiling, or nowhere at all), or the caller lacks a capability the tool requires. Throws a
 * `TypeError` only for a `view` not made by `createRouteView()`.
 */
export function resolveScoped(
  view: RouteView,
  request: ScopedRequest,
  permissions: Permissions | undefined,
): ScopedResolution {
  if (!isRouteView(view)) throw new TypeError('route must come from createRouteView()')
  let name: string | undefined
  let dispatcher: string | undefined
  let action: string | undefined
  switch (request?.kind) {
    case 'group':
      name = composeToolName([request.dispatcher, request.resource, request.action])
      dispatcher = request.dispatcher
      action = request.action as string
      break
    case 'class':
      name = composeToolName([request.dispatcher, request.action])
      dispatcher = request.dispatcher
      action = request.action as string
      break
    case 'tool':
      name = isToolName(request.name) ? request.name : undefined
      break
    default:
      return TOOL_NOT_FOUND
  }
  if (name === undefined) return TOOL_NOT_FOUND
  // Membership first: the route's own table is the only table consulted.
  const tool = view.get(name)
  if (tool === undefined) return TOOL_NOT_FOUND
  if (!holdsAll(tool, permissions)) return TOOL_NOT_FOUND
  const kind = request.kind
  const target: ResolvedTarget = Object.freeze({ name, kind, dispatcher, action, tool })
  issued.mark(target)
  return Object.freeze({ ok: true as const, target })
}
