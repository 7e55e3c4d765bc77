import { Ajv2020, type Ajv2020Instance, addFormats, type ValidateFunction } from './ajv-load.js'
import { bundleSchema } from './bundle.js'
import {
  readSchemaDirectory,
  type SchemaDocument,
  SHARED_SCHEMA_FILES,
  toolNameForFile,
} from './schema-files.js'
import { useBandedLengthKeywords } from './string-length.js'

/** The dialect every published schema declares in `$schema`. */
export const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema'

/** The first failing constraint of a validation: where, which keyword, and its parameters. */
export interface SchemaViolation {
  /** Ajv's JSON Pointer to the failing value (caller keys inside, unbounded: bound it). */
  readonly instancePath: string
  /** The JSON Schema keyword that failed (`unevaluatedProperties`, `maxLength`, ...). */
  readonly keyword: string
  /** Ajv's error parameters: the schema's limit, or a caller's key for key keywords. */
  readonly params: Readonly<Record<string, unknown>>
}

/** Published input schemas, compiled, by tool name. */
export interface SchemaRegistry {
  /** Every tool with a published schema, sorted. */
  readonly tools: readonly string[]
  /** True when `tool` has a published schema (own names only: `__proto__` is not a tool). */
  has(tool: unknown): boolean
  /**
   * Validates `args` against `tool`'s schema with the compiled validator (`allErrors: false`,
   * no `verbose`): `null` when valid, else the first violation.
   * @throws Error when `tool` has no published schema.
   */
  validate(tool: string, args: unknown): SchemaViolation | null
  /** The published schema as loaded (deep-frozen). @throws Error for an unknown tool. */
  schema(tool: string): unknown
  /** The published schema with every `$ref` inlined (deep-frozen). @throws Error likewise. */
  bundled(tool: string): unknown
  /** The file the tool's schema was read from. @throws Error likewise. */
  source(tool: string): string
}

/** Options of {@link createSchemaRegistry} and {@link loadSchemaRegistry}. */
export interface SchemaRegistryOptions {
  /** File names that are shared referents, not tools. Default: `['tool-context.schema.json']`. */
  readonly sharedFiles?: readonly string[]
}

interface Entry {
  readonly validate: ValidateFunction
  readonly schema: unknown
  readonly bundled: unknown
  readonly source: string
}

/**
 * Loads the schema files directly in each directory (see {@link readSchemaDirectory}) into a
 * {@link SchemaRegistry}. Offline: a `$ref` resolves by `$id` against the loaded files only.
 * @throws Error at start-up on anything {@link createSchemaRegistry} refuses.
 */
export function loadSchemaRegistry(
  directories: string | URL | readonly (string | URL)[],
  options: SchemaRegistryOptions = {},
): SchemaRegistry {
  const list = Array.isArray(directories) ? directories : [directories as string | URL]
  return createSchemaRegistry(
    list.flatMap((dir) => readSchemaDirectory(dir)),
    options,
  )
}

/**
 * Compiles schema documents into a {@link SchemaRegistry} with Ajv's draft 2020-12 validator
 * in strict mode plus `ajv-formats`. Nothing is ever fetched: Ajv is given no `loadSchema`, so
 * a `$ref` resolves by `$id` against these documents or fails. Every validator is compiled
 * here, so every fault is a start-up fault.
 * @throws Error on a document that is not an object, a `$schema` other than draft 2020-12, a
 *   missing or duplicate `$id`, a tool mapped twice (two files with one name), a missing
 *   `$ref` target, or anything Ajv's strict mode refuses.
 */
export function createSchemaRegistry(
  documents: readonly SchemaDocument[],
  options: SchemaRegistryOptions = {},
): SchemaRegistry {
  const shared = options.sharedFiles ?? SHARED_SCHEMA_FILES
  if (!Array.isArray(shared) || shared.some((f) => typeof f !== 'string')) {
    throw new TypeError('sharedFiles must be an array of file names')
  }
  const ajv = new Ajv2020({ strict: true, allErrors: false, verbose: false })
  addFormats(ajv)
  // Same verdicts and errors as Ajv's own length keywords, without counting code points in
  // strings whose UTF-16 length already decides (see string-length.ts).
  useBandedLengthKeywords(ajv)
  const byId = new Map<string, unknown>()
  const toolIds = new Map<string, { id: string; source: string }>()
  for (const doc of documents) {
    const schema = doc.schema as Record<string, unknown>
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw new Error(`${doc.source}: a schema must be a JSON object`)
    }
    if (schema.$schema !== DRAFT_2020_12) {
      throw new Error(`${doc.source}: $schema must be ${DRAFT_2020_12}`)
    }
    if (typeof schema.$id !== 'string' || !URL.canParse(schema.$id)) {
      throw new Error(`${doc.source}: $id must be an absolute URI`)
    }
    const id = new URL(schema.$id).href
    if (byId.has(id)) throw new Error(`${doc.source}: duplicate $id ${id}`)
    byId.set(id, schema)
    const tool = toolNameForFile(doc.file, shared)
    if (tool !== undefined) {
      const prior = toolIds.get(tool)
      if (prior !== undefined) {
        throw new Error(`${doc.source}: tool ${tool} is already mapped by ${prior.source}`)
      }
      toolIds.set(tool, { id, source: doc.source })
    }
    ajv.addSchema(schema, id)
  }
  // Compile the referents too, so a fault in a shared schema fails here even if unused.
  for (const id of byId.keys()) compile(ajv, id)
  const entries = new Map<string, Entry>()
  for (const [tool, { id, source }] of [...toolIds].sort(([a], [b]) => (a < b ? -1 : 1))) {
    entries.set(tool, {
      validate: compile(ajv, id),
      schema: deepFreeze(structuredClone(byId.get(id))),
      bundled: deepFreeze(bundleSchema(byId.get(id), id, byId)),
      source,
    })
  }
  return makeRegistry(entries)
}

function compile(ajv: Ajv2020Instance, id: string): ValidateFunction {
  const validate = ajv.getSchema(id)
  if (validate === undefined) throw new Error(`schema ${id} did not compile`)
  return validate
}

function makeRegistry(entries: ReadonlyMap<string, Entry>): SchemaRegistry {
  const get = (tool: string): Entry => {
    const entry = entries.get(tool)
    if (entry === undefined) throw new Error('no published schema for that tool')
    return entry
  }
  return Object.freeze({
    tools: Object.freeze([...entries.keys()]),
    has: (tool: unknown) => typeof tool === 'string' && entries.has(tool),
    validate(tool: string, args: unknown): SchemaViolation | null {
      const validate = get(tool).validate
      if (validate(args)) return null
      const first = validate.errors?.[0]
      if (first === undefined) return { instancePath: '', keyword: 'false schema', params: {} }
      return { instancePath: first.instancePath, keyword: first.keyword, params: first.params }
    },
    schema: (tool: string) => get(tool).schema,
    bundled: (tool: string) => get(tool).bundled,
    source: (tool: string) => get(tool).source,
  })
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const each of Object.values(value)) deepFreeze(each)
  }
  return value
}
