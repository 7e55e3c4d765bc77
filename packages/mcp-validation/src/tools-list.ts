import type { SchemaRegistry } from './registry.js'

/** How {@link rewriteToolsListResult} shapes the list for the request's era. */
export interface ToolsListRewriteOptions {
  /**
   * The request was a 2026-07-28 one: the result must carry `ttlMs` and `cacheScope` (the
   * server's when valid, else `0` and `private`). Default: `false`.
   */
  readonly modern?: boolean
}

/**
 * Rewrites a `tools/list` result so each listed tool's `inputSchema` is its published schema,
 * bundled (`$ref` inlined), and leaves out tools without one and, when `surface` is given,
 * tools not on it: both are refused as unknown, so listing them would advertise a call that
 * cannot succeed (and, for another route's tool, name it). Tools come sorted by name (UTF-16
 * code units), so every instance and every registration order lists them alike. A list
 * filtered by a `surface` is `cacheScope: 'private'` whatever the server said (a shared cache
 * must not serve one route's or caller's list to another); on a 2026-07-28 request the result
 * always carries `ttlMs` and `cacheScope`. A result without a `tools` array is returned
 * unchanged.
 */
export function rewriteToolsListResult(
  result: unknown,
  registry: SchemaRegistry,
  surface?: ReadonlySet<string>,
  options: ToolsListRewriteOptions = {},
): unknown {
  if (typeof result !== 'object' || result === null) return result
  const tools = (result as { tools?: unknown }).tools
  if (!Array.isArray(tools)) return result
  const listed = tools.filter(
    (tool): tool is { name: string } =>
      typeof tool === 'object' &&
      tool !== null &&
      onSurface(surface, (tool as { name?: unknown }).name) &&
      registry.has((tool as { name?: unknown }).name),
  )
  listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const rewritten: Record<string, unknown> = {
    ...result,
    tools: listed.map((tool) => ({ ...tool, inputSchema: registry.bundled(tool.name) })),
  }
  const given = result as { ttlMs?: unknown; cacheScope?: unknown }
  const hasScope = 'cacheScope' in given
  if (options.modern === true || hasScope) {
    const scope = given.cacheScope === 'public' ? 'public' : 'private'
    rewritten.cacheScope = surface === undefined ? scope : 'private'
  }
  if (options.modern === true || 'ttlMs' in given) {
    const ttl = given.ttlMs
    rewritten.ttlMs = typeof ttl === 'number' && Number.isSafeInteger(ttl) && ttl >= 0 ? ttl : 0
  }
  return rewritten
}

function onSurface(surface: ReadonlySet<string> | undefined, name: unknown): boolean {
  return surface === undefined || (typeof name === 'string' && surface.has(name))
}
