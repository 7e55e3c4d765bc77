import type { RouteView } from '@tollgate/continuation'

/** The resources of the group dispatcher `knowledge`. */
export const RESOURCES = Object.freeze(['documents', 'notes'] as const)

/** The resources of `knowledge` a route mounts at all (before capabilities). */
export function mountedResources(view: RouteView): readonly string[] {
  return RESOURCES.filter((r) => view.names.some((n) => n.startsWith(`knowledge.${r}.`)))
}
