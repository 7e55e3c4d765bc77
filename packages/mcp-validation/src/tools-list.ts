import type { SchemaRegistry } from './registry.js'

/**
 * Rewrites a `tools/list` result so each listed tool's `inputSchema` is its published schema,
 * bundled (`$ref` inlined), and leaves out tools without one and, when `surface` is given,
 * tools not on it: both are refused as unknown, so listing them would advertise a call that
 * cannot succeed (and, for another route's tool, name it). A result without a `tools` array
 * is returned unchanged.
 */
export function rewriteToolsListResult(
  result: unknown,
  registry: SchemaRegistry,
  surface?: ReadonlySet<string>,
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
  return {
    ...result,
    tools: listed.map((tool) => ({ ...tool, inputSchema: registry.bundled(tool.name) })),
  }
}

function onSurface(surface: ReadonlySet<string> | undefined, name: unknown): boolean {
  return surface === undefined || (typeof name === 'string' && surface.has(name))
}
