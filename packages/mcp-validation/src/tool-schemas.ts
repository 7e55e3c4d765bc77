// Published input schemas written from a server's own tool definitions, so the schema files are
// generated rather than restated by hand. A definition converts through the Standard JSON
// Schema interface (`schema['~standard'].jsonSchema.input`), which zod 4 implements: nothing of
// zod or either SDK line is imported here, and the zod that built the shapes converts them.

import { DRAFT_2020_12 } from './registry.js'
import { registeredToolNames } from './unpublished-tools.js'

/** Where the tool definitions come from (see {@link toolInputSchemas}). */
export type ToolDefinitionSource =
  | { readonly connect: unknown }
  | Iterable<{ readonly name: string; readonly inputSchema?: unknown }>
  | Readonly<Record<string, unknown>>

/** Options of {@link toolInputSchemas}. */
export interface ToolInputSchemaOptions {
  /**
   * The absolute URI each schema's `$id` starts with, followed by the file name
   * (`<tool>.schema.json`). Default: `urn:tollgate:mcp:`.
   */
  readonly idBase?: string | undefined
}

/** The default `idBase`: a URN, since a published schema needs an absolute `$id`. */
export const DEFAULT_SCHEMA_ID_BASE = 'urn:tollgate:mcp:'

interface ZodLike {
  readonly _zod?: { readonly def?: Record<string, unknown> }
}

interface ZodOverrideContext {
  readonly zodSchema: ZodLike
  readonly jsonSchema: Record<string, unknown>
}

// The schemas that are a side of an intersection, found by walking the definition tree: they
// stay open, and the intersection closes them together with `unevaluatedProperties: false` (each
// side closed alone would refuse the other side's keys).
function intersectionSides(root: unknown): ReadonlySet<unknown> {
  const sides = new Set<unknown>()
  const seen = new Set<unknown>()
  const visit = (node: unknown, depth: number): void => {
    if (typeof node !== 'object' || node === null || seen.has(node) || depth > 64) return
    seen.add(node)
    const def = (node as ZodLike)._zod?.def
    const children = def === undefined ? Object.values(node) : Object.values(def)
    if (def?.type === 'intersection') {
      sides.add(def.left)
      sides.add(def.right)
    }
    for (const child of children) {
      if (Array.isArray(child)) for (const c of child) visit(c, depth + 1)
      else visit(child, depth + 1)
    }
  }
  visit(root, 0)
  return sides
}

// A reference to a published schema document (an absolute URI, not a `#` pointer), set on a
// shape with `.meta({ $ref })`: the shape is the compiler's view of a shared schema file.
function publishedRef(json: Record<string, unknown>): string | undefined {
  const ref = json.$ref
  return typeof ref === 'string' && !ref.startsWith('#') && URL.canParse(ref) ? ref : undefined
}

// Closes each object zod leaves open on input: a default (stripping) `z.object` says nothing of
// extra keys on the input side, and a published schema that says nothing admits them. A strict
// object is already closed; a passthrough (`.loose()`, `.catchall()`) one keeps what it says.
function closer(sides: ReadonlySet<unknown>): (ctx: ZodOverrideContext) => void {
  return (ctx) => {
    const def = ctx.zodSchema._zod?.def
    const json = ctx.jsonSchema
    const ref = def?.type === 'object' ? publishedRef(json) : undefined
    if (ref !== undefined) {
      // Published as the reference alone: the document it names states the shape.
      for (const key of Object.keys(json)) if (key !== '$ref') delete json[key]
      return
    }
    if (sides.has(ctx.zodSchema)) return
    if (def?.type === 'intersection') {
      json.type ??= 'object'
      json.unevaluatedProperties ??= false
      return
    }
    if (def?.type !== 'object' || def.catchall !== undefined) return
    json.additionalProperties ??= false
  }
}

const HOISTABLE = new Set(['type', 'properties', 'required'])

// An intersection closed as a whole keeps its own keys beside the `allOf`, as a hand-written
// composition does (`allOf: [{ $ref: context }]`, `properties`, `unevaluatedProperties: false`):
// the one plain object side (keys `type`, `properties`, `required` only) moves up into the node.
// Same verdicts: `unevaluatedProperties` sees properties evaluated in `allOf` and beside it alike.
function hoistOwnKeys(node: unknown): void {
  if (typeof node !== 'object' || node === null) return
  for (const child of Object.values(node)) hoistOwnKeys(child)
  const json = node as Record<string, unknown>
  const allOf = json.allOf
  if (!Array.isArray(allOf) || json.unevaluatedProperties !== false || 'properties' in json) return
  const plain = allOf.filter(
    (side) =>
      typeof side === 'object' &&
      side !== null &&
      (side as { type?: unknown }).type === 'object' &&
      Object.keys(side).every((key) => HOISTABLE.has(key)),
  ) as Record<string, unknown>[]
  if (plain.length !== 1 || allOf.length < 2) return
  const [own] = plain as [Record<string, unknown>]
  json.allOf = allOf.filter((side) => side !== own)
  delete json.unevaluatedProperties
  json.properties = own.properties ?? {}
  if (own.required !== undefined) json.required = own.required
  json.unevaluatedProperties = false
}

/**
 * The JSON Schema (draft 2020-12) of one tool's input definition: a zod 4 schema (or any
 * Standard JSON Schema), or `undefined` for a tool that takes no arguments (a closed empty
 * object). Every object is closed (`additionalProperties: false`) unless the shape is
 * passthrough; an intersection (`a.and(b)`) is closed as a whole (`unevaluatedProperties:
 * false`, its sides open), and a shape with `.meta({ $ref: uri })` is written as that reference
 * alone (a shared schema file such as a tool context, composed with `z.intersection`).
 * `$schema`, `$id` (`idBase` + `<tool>.schema.json`) and `title` (`<tool> input` unless the
 * definition gives one) come first.
 * @throws TypeError naming the tool when the definition has no JSON Schema (a zod 3 shape) or
 *   is not an object schema.
 */
export function toolInputSchema(
  tool: string,
  definition: unknown,
  options: ToolInputSchemaOptions = {},
): Record<string, unknown> {
  const idBase = options.idBase ?? DEFAULT_SCHEMA_ID_BASE
  if (!URL.canParse(idBase)) throw new TypeError('idBase must be an absolute URI')
  let body: Record<string, unknown>
  if (definition === undefined) {
    body = { type: 'object', properties: {}, additionalProperties: false }
  } else {
    const input = (
      definition as {
        '~standard'?: { jsonSchema?: { input?: (params: unknown) => Record<string, unknown> } }
      } | null
    )?.['~standard']?.jsonSchema?.input
    if (typeof input !== 'function') {
      throw new TypeError(
        `tool ${tool}: its input definition has no JSON Schema (use a zod 4 schema or a Standard JSON Schema)`,
      )
    }
    try {
      body = input({
        target: 'draft-2020-12',
        libraryOptions: {
          override: closer(intersectionSides(definition)),
          unrepresentable: 'throw',
        },
      })
    } catch (error) {
      throw new TypeError(`tool ${tool}: ${(error as Error).message}`)
    }
  }
  hoistOwnKeys(body)
  if (body.type !== 'object') {
    throw new TypeError(`tool ${tool}: an input schema must describe an object`)
  }
  const { $schema: _dialect, $id: _id, title, type, ...rest } = body
  return {
    $schema: DRAFT_2020_12,
    $id: `${idBase}${tool}.schema.json`,
    title: typeof title === 'string' ? title : `${tool} input`,
    type,
    ...rest,
  }
}

/**
 * The definitions of `source`, by tool name: an `McpServer` of SDK 1.32 or 2.x (each tool it
 * registers), an iterable of `{ name, inputSchema }` rows (a tool table), or a record of
 * definitions by name.
 * @throws TypeError on a source of none of these shapes, or a tool named twice.
 */
export function toolDefinitions(source: unknown): ReadonlyMap<string, unknown> {
  const out = new Map<string, unknown>()
  const names = registeredToolNames(source)
  if (names !== undefined) {
    const tools = (source as { _registeredTools: Record<string, { inputSchema?: unknown }> })
      ._registeredTools
    for (const name of names) out.set(name, tools[name]?.inputSchema)
    return out
  }
  if (typeof source !== 'object' || source === null) {
    throw new TypeError('tool definitions must be an McpServer, a tool table or a record')
  }
  if (Symbol.iterator in source) {
    for (const row of source as Iterable<unknown>) {
      const name = (row as { name?: unknown } | null)?.name
      if (typeof name !== 'string') throw new TypeError('each tool row must have a string name')
      if (out.has(name)) throw new TypeError(`tool ${name} is defined twice`)
      out.set(name, (row as { inputSchema?: unknown }).inputSchema)
    }
    return out
  }
  for (const [name, definition] of Object.entries(source)) out.set(name, definition)
  return out
}

/**
 * The published input schema of every tool `source` defines (see {@link toolDefinitions} and
 * {@link toolInputSchema}), sorted by name.
 * @throws TypeError as those two do.
 */
export function toolInputSchemas(
  source: unknown,
  options: ToolInputSchemaOptions = {},
): ReadonlyMap<string, Record<string, unknown>> {
  const definitions = toolDefinitions(source)
  const out = new Map<string, Record<string, unknown>>()
  for (const name of [...definitions.keys()].sort()) {
    out.set(name, toolInputSchema(name, definitions.get(name), options))
  }
  return out
}
