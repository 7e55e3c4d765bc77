// Rewrites a copy of an upstream tool's schema before it is compiled: picks its dialect, closes
// every object the schema is silent about (no `additionalProperties`, no
// `unevaluatedProperties`), drops vendor `x-` keywords, and collects what the compiler and the
// refusal renderer need (`$ref`s, `$id`s, `format` names, the property names the schema itself
// spells). The input is never modified.
//
// Closing uses `unevaluatedProperties: false`, placed only where the schema meets a new instance
// location (the root, each `properties`/`patternProperties`/`additionalProperties` value, each
// `items`/`prefixItems`/`contains` value): `unevaluatedProperties` sees the keys every in-place
// applicator beside it evaluated (`allOf`, `anyOf`, `oneOf`, `$ref`, `if`/`then`/`else`,
// `dependentSchemas`), so `allOf: [{properties: {a}}, {properties: {b}}]` still admits `a` and
// `b`. Closing each branch with `additionalProperties: false` instead would refuse every
// key of the other branch. A branch that opens its object (`additionalProperties: {}`,
// `patternProperties`) evaluates those keys too, so closing never refuses what the schema
// names.
//
// Draft-07 has no `unevaluatedProperties`, so a draft-07 schema is validated by the 2019-09
// validator after a rewrite that keeps its meaning: the siblings of a `$ref` are dropped (draft-07
// ignores them; 2019-09 would apply them), a fragment-only `$id` becomes `$anchor`, and `$schema`
// names 2019-09. Every other draft-07 keyword (`definitions`, `dependencies`, array `items` with
// `additionalItems`) means the same in 2019-09.

/** The JSON Schema dialects the gateway compiles. */
export type SchemaDialect = 'draft-07' | '2019-09' | '2020-12'

const DIALECT_OF: Readonly<Record<string, SchemaDialect>> = {
  'http://json-schema.org/draft-07/schema': 'draft-07',
  'https://json-schema.org/draft/2019-09/schema': '2019-09',
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
}

const URI_OF: Readonly<Record<SchemaDialect, string>> = {
  'draft-07': 'https://json-schema.org/draft/2019-09/schema',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
}

// Keywords only 2020-12 has: a schema without `$schema` that uses one is read as 2020-12 (the
// MCP default dialect) rather than as draft-07, where they would be unknown keywords.
const ONLY_2020 = ['prefixItems', '$dynamicRef', '$dynamicAnchor']

// Keywords that assert or apply nothing: a schema made only of these says nothing about its
// value (a free-form `{}` or `{"description": …}`), and is left open.
const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$anchor',
  '$comment',
  '$defs',
  'definitions',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
])

// Subschema keywords, by how their values are laid out and whether they apply at a new instance
// location (`entry`) or at the same one (`inPlace`).
const ENTRY_ONE = ['additionalProperties', 'unevaluatedProperties', 'additionalItems']
const ENTRY_ONE_MORE = ['unevaluatedItems', 'contains', 'propertyNames']
const ENTRY_MAP = ['properties', 'patternProperties']
const ENTRY_LIST = ['prefixItems']
const IN_PLACE_ONE = ['not', 'if', 'then', 'else']
const IN_PLACE_LIST = ['allOf', 'anyOf', 'oneOf']
const IN_PLACE_MAP = ['dependentSchemas', '$defs', 'definitions']
const REF_KEPT = new Set(['$ref', '$schema', '$defs', 'definitions'])

/** What {@link rewriteSchema} was asked to do. */
export interface RewriteRequest {
  /** Close silent objects (false: the tool opted out, or an output schema). */
  readonly close: boolean
  /** Keys admitted at the top level of a closed root (client-injected artifacts). */
  readonly allowedExtraKeys: readonly string[]
}

/** A rewritten copy of a schema, with what was collected on the way. */
export interface RewrittenSchema {
  readonly dialect: SchemaDialect
  readonly schema: Record<string, unknown> | boolean
  /** Every `$ref`, `$dynamicRef` and `$recursiveRef` value. */
  readonly refs: readonly string[]
  /** Every `$id` value. */
  readonly ids: readonly string[]
  /** Every `format` value (the compiler treats unknown ones as annotations). */
  readonly formats: ReadonlySet<string>
  /** Every key the schema names (`properties`, `required`, `dependentRequired`). */
  readonly knownKeys: ReadonlySet<string>
}

/**
 * The dialect a schema declares with `$schema` (an empty fragment and a trailing `#` ignored),
 * draft-07 when it has none (what most published servers emit) unless it uses a keyword only
 * 2020-12 has, or `undefined` for any other `$schema` (draft-04, draft-06, a custom meta-schema).
 */
export function schemaDialect(schema: unknown): SchemaDialect | undefined {
  if (typeof schema !== 'object' || schema === null) return 'draft-07'
  const declared = (schema as { $schema?: unknown }).$schema
  if (declared === undefined) {
    return ONLY_2020.some((k) => Object.hasOwn(schema, k)) ? '2020-12' : 'draft-07'
  }
  if (typeof declared !== 'string') return undefined
  return DIALECT_OF[declared.replace(/#$/, '')]
}

/**
 * Rewrites a copy of `schema` (already charged against the schema budget, so its depth is
 * bounded and the recursion here is too) for `dialect`.
 */
export function rewriteSchema(
  schema: Record<string, unknown> | boolean,
  dialect: SchemaDialect,
  request: RewriteRequest,
): RewrittenSchema {
  const refs: string[] = []
  const ids: string[] = []
  const formats = new Set<string>()
  const knownKeys = new Set<string>()

  const visit = (node: unknown, entry: boolean, root: boolean): unknown => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return node
    const source = node as Record<string, unknown>
    let keys = Object.keys(source)
    // Draft-07 ignores every sibling of `$ref` (section 8.3); 2019-09 would apply them. The
    // definition containers stay, unapplied, so pointers into them still resolve.
    if (dialect === 'draft-07' && typeof source.$ref === 'string') {
      keys = keys.filter((k) => REF_KEPT.has(k))
    }
    const out: Record<string, unknown> = {}
    for (const key of keys) {
      if (!Object.hasOwn(source, key)) continue
      const value = source[key]
      if (key.startsWith('x-')) continue
      if (key === '$schema') {
        out.$schema = URI_OF[dialect]
      } else if (ENTRY_ONE.includes(key) || ENTRY_ONE_MORE.includes(key)) {
        out[key] = visit(value, true, false)
      } else if (key === 'items') {
        out.items = Array.isArray(value)
          ? value.map((v) => visit(v, true, false))
          : visit(value, true, false)
      } else if (ENTRY_LIST.includes(key) || IN_PLACE_LIST.includes(key)) {
        out[key] = Array.isArray(value)
          ? value.map((v) => visit(v, ENTRY_LIST.includes(key), false))
          : value
      } else if (ENTRY_MAP.includes(key) || IN_PLACE_MAP.includes(key) || key === 'dependencies') {
        out[key] = visitMap(value, ENTRY_MAP.includes(key))
        if (key === 'properties' && isMap(value))
          for (const k of Object.keys(value)) knownKeys.add(k)
      } else if (IN_PLACE_ONE.includes(key)) {
        out[key] = visit(value, false, false)
      } else {
        if (
          (key === '$ref' || key === '$dynamicRef' || key === '$recursiveRef') &&
          typeof value === 'string'
        ) {
          refs.push(value)
        }
        if (key === '$id' && typeof value === 'string') {
          if (dialect === 'draft-07' && value.startsWith('#')) {
            out.$anchor = value.slice(1)
            continue
          }
          ids.push(value)
        }
        if (key === 'format' && typeof value === 'string') formats.add(value)
        if ((key === 'required' || key === 'dependentRequired') && value !== null) {
          collectNames(value, knownKeys)
        }
        out[key] = value
      }
    }
    if (entry && request.close && isSilentObject(out, root)) {
      out.unevaluatedProperties = false
      if (root) admitExtraKeys(out, request.allowedExtraKeys)
    }
    return out
  }

  const visitMap = (value: unknown, entry: boolean): unknown => {
    if (!isMap(value)) return value
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(value)) {
      const v = value[k]
      // `dependencies` holds either a schema or a list of names.
      if (Array.isArray(v)) {
        collectNames(v, knownKeys)
        out[k] = v
      } else out[k] = visit(v, entry, false)
    }
    return out
  }

  const rewritten = visit(schema, true, true) as Record<string, unknown> | boolean
  return { dialect, schema: rewritten, refs, ids, formats, knownKeys }
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function collectNames(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const v of value) if (typeof v === 'string') into.add(v)
  } else if (isMap(value)) {
    for (const k of Object.keys(value)) {
      into.add(k)
      collectNames(value[k], into)
    }
  }
}

// An object-capable schema that says nothing about extra keys and asserts something.
// The root is the `arguments` object itself, so a root that asserts nothing still declares
// no parameters and is closed; `enum` and `const` fix the whole value and are left as they are.
function isSilentObject(schema: Record<string, unknown>, root: boolean): boolean {
  if (Object.hasOwn(schema, 'additionalProperties')) return false
  if (Object.hasOwn(schema, 'unevaluatedProperties')) return false
  if (Object.hasOwn(schema, 'enum') || Object.hasOwn(schema, 'const')) return false
  const type = schema.type
  if (typeof type === 'string' && type !== 'object') return false
  if (Array.isArray(type) && !type.includes('object')) return false
  return root || Object.keys(schema).some((k) => !ANNOTATIONS.has(k))
}

// The allowance list: named keys some clients add to every call's arguments. Marking them
// evaluated at the root (an always-true `properties` entry) admits them where the schema is
// silent; a schema that names the key keeps its own subschema for it, and one that closes its
// root itself (`additionalProperties: false`) is never reached here, so it still refuses them.
function admitExtraKeys(root: Record<string, unknown>, allowed: readonly string[]): void {
  if (allowed.length === 0) return
  const properties = isMap(root.properties) ? { ...root.properties } : {}
  for (const key of allowed) if (!Object.hasOwn(properties, key)) properties[key] = true
  root.properties = properties
}
