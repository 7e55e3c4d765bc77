// `x-mcp-header` declarations of a tool's published input schema: a primitive argument the
// client mirrors into an `Mcp-Param-{Name}` header so an intermediary can route on it. Read once
// from the schema the server publishes, at construction; a declaration the spec does not allow
// fails at start-up rather than at the first request.

/** One `x-mcp-header` declaration: the header's `{Name}`, the argument's path, its type. */
export interface McpParamHeader {
  /** `{Name}` of `Mcp-Param-{Name}`, as the schema spells it. */
  readonly name: string
  /** The property path under `arguments` (a chain of `properties` keys). */
  readonly path: readonly string[]
  /** The property's JSON Schema type. */
  readonly type: 'string' | 'integer' | 'number' | 'boolean'
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const TYPES = new Set(['string', 'integer', 'number', 'boolean'])
// A published schema is the server's own; the bound only keeps a cyclic object from looping.
const MAX_DEPTH = 32

type Obj = Record<string, unknown>
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The `x-mcp-header` declarations of `schema`, found on properties reachable through a chain of
 * `properties` keys (the only place the spec allows them).
 * @throws TypeError naming the tool for a declaration that is not an RFC 9110 token, sits on a
 *   property that is not a string, integer, number or boolean, or repeats another's name
 *   (case-insensitively).
 */
export function paramHeadersOf(tool: string, schema: unknown): readonly McpParamHeader[] {
  const found: McpParamHeader[] = []
  const seen = new Set<string>()
  const walk = (node: unknown, path: string[]): void => {
    if (!isObject(node) || path.length > MAX_DEPTH) return
    const declared = node['x-mcp-header']
    if (declared !== undefined && path.length > 0) {
      if (typeof declared !== 'string' || !TOKEN.test(declared)) {
        throw new TypeError(`tool ${tool}: x-mcp-header must be an RFC 9110 token`)
      }
      const type = node.type
      if (typeof type !== 'string' || !TYPES.has(type)) {
        throw new TypeError(`tool ${tool}: x-mcp-header ${declared} is not on a primitive property`)
      }
      const key = declared.toLowerCase()
      if (seen.has(key)) throw new TypeError(`tool ${tool}: x-mcp-header ${declared} repeats`)
      seen.add(key)
      found.push(
        Object.freeze({
          name: declared,
          path: Object.freeze([...path]),
          type: type as McpParamHeader['type'],
        }),
      )
    }
    const properties = node.properties
    if (!isObject(properties)) return
    for (const [key, child] of Object.entries(properties)) walk(child, [...path, key])
  }
  walk(schema, [])
  return Object.freeze(found)
}

/** The value at `path` under `root`, or `undefined`. */
export function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root
  for (const key of path) {
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined
    node = node[key]
  }
  return node
}
