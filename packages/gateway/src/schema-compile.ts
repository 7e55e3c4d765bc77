import { chargeJson, isAdmissionError } from '@tollgate/json-budget'
import { Ajv2019, Ajv2020, type AjvInstance, addFormats } from './ajv-classes.js'
import {
  type RewriteRequest,
  rewriteSchema,
  type SchemaDialect,
  schemaDialect,
} from './schema-rewrite.js'

/** A compiled validator: `errors` holds the first failure after a `false`. */
export interface CompiledSchema {
  (value: unknown): boolean
  errors?: readonly AjvError[] | null | undefined
}

/** The part of an Ajv error the refusal renderer reads. */
export interface AjvError {
  readonly keyword: string
  readonly instancePath: string
  readonly params: Readonly<Record<string, unknown>>
}

/** Why a schema was not compiled: the reason code a quarantined tool carries. */
export type SchemaReason =
  | 'ERR_SCHEMA_MISSING'
  | 'ERR_SCHEMA_DIALECT'
  | 'ERR_SCHEMA_TOO_LARGE'
  | 'ERR_SCHEMA_REMOTE_REF'
  | 'ERR_SCHEMA_INVALID'
  | 'ERR_SCHEMA_COMPILE_TIME'

/** The compile budget and policy of one {@link SchemaCompiler}. */
export interface CompileBudget {
  readonly maxSchemaBytes: number
  readonly maxSchemaNodes: number
  readonly maxSchemaDepth: number
  readonly maxCompileMs: number
  readonly strictKeywords: boolean
  readonly now: () => number
}

/** A compiled schema, or the reason it was refused. */
export type CompileOutcome =
  | {
      readonly ok: true
      readonly validate: CompiledSchema
      readonly knownKeys: ReadonlySet<string>
    }
  | { readonly ok: false; readonly reason: SchemaReason }

/** Compiles the schemas of one `tools/list` (one Ajv instance per dialect, made on first use). */
export interface SchemaCompiler {
  compile(schema: unknown, request: RewriteRequest): CompileOutcome
}

const LOCAL_BASE = 'tollgate:/schema'

/**
 * A compiler for one load of a tool list. Its Ajv instances add no compiled schema to
 * themselves (`addUsedSchema: false`), so two tools that reuse one `$id` do not collide, and
 * they are dropped with the compiler when the next list is loaded.
 */
export function schemaCompiler(budget: CompileBudget): SchemaCompiler {
  const instances = new Map<SchemaDialect, AjvInstance>()
  const instance = (dialect: SchemaDialect): AjvInstance => {
    let ajv = instances.get(dialect)
    if (ajv === undefined) {
      const Class = dialect === '2020-12' ? Ajv2020 : Ajv2019
      ajv = new Class({
        // Unknown keywords quarantine the tool (a misspelt `maxLength` would otherwise be
        // ignored and the gateway would admit what the upstream meant to refuse).
        strictSchema: budget.strictKeywords,
        strictTypes: false,
        strictTuples: false,
        strictRequired: false,
        allowUnionTypes: true,
        allErrors: false,
        addUsedSchema: false,
        logger: false,
      })
      addFormats(ajv)
      // The meta-schema is compiled once here, outside any tool's compile-time budget.
      ajv.validateSchema({})
      instances.set(dialect, ajv)
    }
    return ajv
  }

  return {
    compile(schema, request) {
      if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
        return { ok: false, reason: 'ERR_SCHEMA_MISSING' }
      }
      try {
        chargeJson(schema, {
          maxBytes: budget.maxSchemaBytes,
          maxNodes: budget.maxSchemaNodes,
          maxDepth: budget.maxSchemaDepth,
        })
      } catch (error) {
        if (isAdmissionError(error)) return { ok: false, reason: 'ERR_SCHEMA_TOO_LARGE' }
        return { ok: false, reason: 'ERR_SCHEMA_INVALID' }
      }
      const dialect = schemaDialect(schema)
      if (dialect === undefined) return { ok: false, reason: 'ERR_SCHEMA_DIALECT' }
      const rewritten = rewriteSchema(schema as Record<string, unknown>, dialect, request)
      if (namesOtherDocument(rewritten.refs, rewritten.ids)) {
        return { ok: false, reason: 'ERR_SCHEMA_REMOTE_REF' }
      }
      const ajv = instance(dialect)
      // An unknown `format` is an annotation in every dialect the gateway reads: registered as
      // one (always true) rather than failing the compile.
      for (const format of rewritten.formats) {
        if (ajv.formats[format] === undefined) ajv.addFormat(format, true)
      }
      const started = budget.now()
      let validate: CompiledSchema
      try {
        validate = ajv.compile(rewritten.schema) as CompiledSchema
      } catch {
        return { ok: false, reason: 'ERR_SCHEMA_INVALID' }
      }
      // Ajv's compile is synchronous and cannot be interrupted: the byte, node and depth caps
      // bound it; this check quarantines a schema that still took longer than the budget.
      if (budget.now() - started > budget.maxCompileMs) {
        return { ok: false, reason: 'ERR_SCHEMA_COMPILE_TIME' }
      }
      return { ok: true, validate, knownKeys: rewritten.knownKeys }
    },
  }
}

// A `$ref` that does not point inside the document (a fragment, or a URI one of its own `$id`s
// names) would need another document. The gateway never fetches one: MCP forbids
// dereferencing a network `$ref`, and a relative one would resolve against a URI the
// upstream controls.
function namesOtherDocument(refs: readonly string[], ids: readonly string[]): boolean {
  if (refs.every((ref) => ref.startsWith('#'))) return false
  const base = resolve(ids[0] ?? LOCAL_BASE, LOCAL_BASE) ?? LOCAL_BASE
  const local = new Set<string>([base, LOCAL_BASE])
  for (const id of ids) {
    const resolved = resolve(id, base)
    if (resolved !== undefined) local.add(resolved)
  }
  return refs.some((ref) => {
    if (ref.startsWith('#')) return false
    const resolved = resolve(ref, base)
    return resolved === undefined || !local.has(resolved)
  })
}

function resolve(ref: string, base: string): string | undefined {
  try {
    const url = new URL(ref, base)
    url.hash = ''
    return url.href
  } catch {
    return undefined
  }
}
