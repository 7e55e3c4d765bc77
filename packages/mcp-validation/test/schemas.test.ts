// Repository-wide checks over every published schema in schemas/mcp/ (read in place from the
// repository root), plus the $ref composition table reproduced as an executable test.
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import Ajv2020Import from 'ajv/dist/2020.js'
import addFormatsImport from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { DRAFT_2020_12, loadSchemaRegistry, toolNameForFile } from '../src/index.js'

type Ajv = InstanceType<typeof import('ajv/dist/2020.js').default>
const Ajv2020 = ((Ajv2020Import as { default?: unknown }).default ?? Ajv2020Import) as new (
  o: object,
) => Ajv
const addFormats = ((addFormatsImport as { default?: unknown }).default ?? addFormatsImport) as (
  a: Ajv,
) => void

type Schema = Record<string, unknown>
const DIR = new URL('../../../schemas/mcp/', import.meta.url)
const CONTEXT_FILE = 'tool-context.schema.json'
const CONTEXT_ID = 'https://schemas.tollgate.dev/mcp/tool-context.schema.json'
const files = readdirSync(fileURLToPath(DIR))
  .filter((f) => f.endsWith('.json'))
  .sort()
const schemas = new Map<string, Schema>(
  files.map((f) => [f, JSON.parse(readFileSync(new URL(f, DIR), 'utf8')) as Schema]),
)

/** Every subschema with its location, walking the applicator keywords. */
function* subschemas(schema: unknown, at = ''): Generator<[string, Schema]> {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return
  const s = schema as Schema
  yield [at, s]
  for (const key of ['properties', '$defs', 'patternProperties'] as const) {
    const map = s[key]
    if (typeof map === 'object' && map !== null) {
      for (const [name, sub] of Object.entries(map)) yield* subschemas(sub, `${at}/${key}/${name}`)
    }
  }
  for (const key of ['items', 'additionalProperties', 'unevaluatedProperties', 'not', 'contains']) {
    if (typeof s[key] === 'object') yield* subschemas(s[key], `${at}/${key}`)
  }
  for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const) {
    const list = s[key]
    if (Array.isArray(list))
      for (const [i, sub] of list.entries()) yield* subschemas(sub, `${at}/${key}/${i}`)
  }
}

function isObjectSchema(s: Schema): boolean {
  return s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object'))
}

function isClosed(s: Schema): boolean {
  return s.additionalProperties === false || s.unevaluatedProperties === false
}

function refersToContext(s: Schema): boolean {
  return Array.isArray(s.allOf) && s.allOf.some((b) => (b as Schema | null)?.$ref === CONTEXT_ID)
}

describe('schemas/mcp', () => {
  it('holds the tool-context schema', () => {
    expect(files).toContain(CONTEXT_FILE)
  })

  it.each(files)(
    '%s compiles under Ajv 2020 strict mode with every $ref resolved offline',
    (file) => {
      const ajv = new Ajv2020({ strict: true, allErrors: false })
      addFormats(ajv)
      for (const schema of schemas.values()) ajv.addSchema(schema)
      expect(() => ajv.getSchema((schemas.get(file) as Schema).$id as string)).not.toThrow()
    },
  )

  it.each(files)('%s declares draft 2020-12, a title and the $id its file name gives', (file) => {
    const schema = schemas.get(file) as Schema
    expect(schema.$schema).toBe(DRAFT_2020_12)
    expect(schema.$id).toBe(`https://schemas.tollgate.dev/mcp/${file}`)
    expect(typeof schema.title).toBe('string')
  })

  it.each(files)('%s closes every object schema, the tool-context alone by delegation', (file) => {
    for (const [at, sub] of subschemas(schemas.get(file))) {
      if (!isObjectSchema(sub)) continue
      if (file === CONTEXT_FILE && at === '') continue // asserted as a delegation below
      expect(isClosed(sub), `${file}#${at}`).toBe(true)
    }
  })

  it('leaves the tool-context open, and its referrers exist and each closes itself', () => {
    const context = schemas.get(CONTEXT_FILE) as Schema
    expect(isClosed(context)).toBe(false)
    const referrers = [...schemas].filter(([, s]) => refersToContext(s))
    expect(referrers.length).toBeGreaterThan(0)
    for (const [file, schema] of referrers) {
      expect(schema.unevaluatedProperties, file).toBe(false)
      // additionalProperties: false here would refuse the very context keys the $ref admits.
      expect(schema.additionalProperties, file).toBeUndefined()
      expect(schema.type, file).toBe('object')
    }
  })

  it.each(files)('%s bounds every string with maxLength or a finite enum', (file) => {
    for (const [at, sub] of subschemas(schemas.get(file))) {
      if (sub.type !== 'string') continue
      const bounded = typeof sub.maxLength === 'number' || Array.isArray(sub.enum) || 'const' in sub
      expect(bounded, `${file}#${at}`).toBe(true)
    }
  })

  it('publishes projectId as required with its pattern, and the optional context keys', () => {
    const context = schemas.get(CONTEXT_FILE) as Schema
    const props = context.properties as Record<string, Schema>
    expect(context.required).toEqual(['projectId'])
    expect(props.projectId?.pattern).toBe('^[a-z0-9][a-z0-9-]{0,62}$')
    expect(props.snapshotId?.pattern).toBe('^snap-[a-z0-9]{1,32}$')
    expect(props.agentId?.pattern).toBe('^[A-Za-z0-9._:-]{1,64}$')
    expect(props.taskId?.pattern).toBe('^[A-Za-z0-9._:-]{1,64}$')
  })

  it('maps every file but the tool-context to a tool by the file-name rule, and loads as a registry', () => {
    const tools = files.map((f) => toolNameForFile(f)).filter((t) => t !== undefined)
    expect(tools).toHaveLength(files.length - 1)
    expect(loadSchemaRegistry(DIR).tools).toEqual([...tools].sort())
  })
})

// Three compositions of a per-tool schema with the context, each with the
// referent closed and open, driven against a valid document and one carrying an unknown key.
const TEST_CTX = 'https://schemas.tollgate.dev/test/ctx.schema.json'
const ctx = (closed: boolean): Schema => ({
  $id: TEST_CTX,
  type: 'object',
  properties: { projectId: { type: 'string', maxLength: 63 } },
  required: ['projectId'],
  ...(closed ? { additionalProperties: false } : {}),
})
const own = { body: { type: 'string', maxLength: 100 }, itemId: { type: 'string', maxLength: 20 } }
const FORMS: Record<string, Schema> = {
  '$ref with sibling properties + additionalProperties: false': {
    type: 'object',
    $ref: TEST_CTX,
    properties: own,
    additionalProperties: false,
  },
  'allOf: [{$ref}] + additionalProperties: false': {
    type: 'object',
    allOf: [{ $ref: TEST_CTX }],
    properties: own,
    additionalProperties: false,
  },
  'allOf: [{$ref}] + unevaluatedProperties: false': {
    type: 'object',
    allOf: [{ $ref: TEST_CTX }],
    properties: own,
    unevaluatedProperties: false,
  },
}
const VALID_DOC = { projectId: 'acme', body: 'b', itemId: 'i' }
const UNKNOWN_DOC = { ...VALID_DOC, dryRun: true }
const TABLE: [string, boolean, boolean, boolean][] = [
  // form, referent closed, admits the valid document, refuses the unknown key
  ['$ref with sibling properties + additionalProperties: false', true, false, true],
  ['$ref with sibling properties + additionalProperties: false', false, false, true],
  ['allOf: [{$ref}] + additionalProperties: false', true, false, true],
  ['allOf: [{$ref}] + additionalProperties: false', false, false, true],
  ['allOf: [{$ref}] + unevaluatedProperties: false', true, false, true],
  ['allOf: [{$ref}] + unevaluatedProperties: false', false, true, true],
]

describe('the $ref composition table', () => {
  it.each(TABLE)(
    '%s, referent closed: %s, admits the valid document: %s',
    (form, closed, admits, refuses) => {
      const ajv = new Ajv2020({ strict: true })
      ajv.addSchema(ctx(closed))
      const validate = ajv.compile(FORMS[form] as Schema)
      expect(validate(VALID_DOC)).toBe(admits)
      expect(validate(UNKNOWN_DOC)).toBe(!refuses)
    },
  )

  it('has exactly one working cell: allOf with unevaluatedProperties over an open referent', () => {
    const working = TABLE.filter(([, , admits, refuses]) => admits && refuses)
    expect(working).toEqual([['allOf: [{$ref}] + unevaluatedProperties: false', false, true, true]])
  })
})
