// The tool registry: every tool the server implements, with its tier and the capabilities a
// caller must hold. Routes are built from it; requests never consult it directly.

import { isToolName } from './names.js'

/** A tool's privilege tier. Ordered `read` < `write` < `admin`. */
export type Tier = 'read' | 'write' | 'admin'

/** The tiers in ascending order. */
export const TIERS: readonly Tier[] = Object.freeze(['read', 'write', 'admin'] as const)

/** The rank of a tier: `read` 0, `write` 1, `admin` 2. Throws a `TypeError` on anything else. */
export function tierRank(tier: Tier): number {
  const rank = TIERS.indexOf(tier)
  if (rank < 0) throw new TypeError('tier must be one of read, write, admin')
  return rank
}

/** One tool as the registry knows it. */
export interface ToolDescriptor {
  /** The full tool name in the name grammar, e.g. `knowledge.documents.get` or `admin.reindex`. */
  readonly name: string
  /** The tool's tier; a route serves it only when the tier is at or below the route's ceiling. */
  readonly tier: Tier
  /** Capabilities a caller must hold, all of them, to see or call the tool. Default: none. */
  readonly capabilities?: readonly string[]
}

/** An immutable set of tool descriptors keyed by name. */
export interface ToolRegistry {
  /** Number of tools. */
  readonly size: number
  /** Every tool name, in registration order (frozen). */
  readonly names: readonly string[]
  /** The descriptor of `name`, or `undefined`. */
  get(name: string): ToolDescriptor | undefined
}

const CAPABILITY = /^[A-Za-z0-9_.:/-]{1,128}$/

/**
 * Builds an immutable registry. Throws a `TypeError` at construction on a name outside the
 * grammar, an unknown tier, a capability that is not 1–128 characters of `[A-Za-z0-9_.:/-]`,
 * or a duplicate name. Descriptors are copied and frozen.
 */
export function createToolRegistry(tools: Iterable<ToolDescriptor>): ToolRegistry {
  const byName = new Map<string, ToolDescriptor>()
  let i = 0
  for (const tool of tools) {
    const where = `tools[${i++}]`
    if (tool === null || typeof tool !== 'object') throw new TypeError(`${where} must be an object`)
    if (!isToolName(tool.name)) throw new TypeError(`${where}.name is outside the name grammar`)
    tierRank(tool.tier)
    const caps = tool.capabilities ?? []
    if (!Array.isArray(caps)) throw new TypeError(`${where}.capabilities must be an array`)
    for (const cap of caps) {
      if (typeof cap !== 'string' || !CAPABILITY.test(cap)) {
        throw new TypeError(`${where}.capabilities holds an invalid capability`)
      }
    }
    if (byName.has(tool.name)) throw new TypeError(`${where}.name is registered twice`)
    byName.set(
      tool.name,
      Object.freeze({ name: tool.name, tier: tool.tier, capabilities: Object.freeze([...caps]) }),
    )
  }
  const names = Object.freeze([...byName.keys()])
  return Object.freeze({
    size: byName.size,
    names,
    get: (name: string) => byName.get(name),
  })
}
