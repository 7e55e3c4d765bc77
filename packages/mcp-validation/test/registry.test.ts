import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  createSchemaRegistry,
  DRAFT_2020_12,
  loadSchemaRegistry,
  readSchemaDirectory,
  type SchemaDocument,
  toolNameForFile,
} from '../src/index.js'
import { FIXTURE_SCHEMAS } from './fixtures/test-server.js'

const ID = 'https://schemas.tollgate.dev/t/'
const doc = (file: string, schema: Record<string, unknown>): SchemaDocument => ({
  file,
  source: file,
  schema: { $schema: DRAFT_2020_12, $id: `${ID}${file}`, ...schema },
})
const closed = { type: 'object', additionalProperties: false }

describe('toolNameForFile', () => {
  it('maps a file to its name minus .schema.json, verbatim', () => {
    expect(toolNameForFile('knowledge.search.schema.json')).toBe('knowledge.search')
    expect(toolNameForFile('Weird Name_1.schema.json')).toBe('Weird Name_1')
  })

  it('maps the tool-context, non-schema files and an empty name to no tool', () => {
    expect(toolNameForFile('tool-context.schema.json')).toBeUndefined()
    expect(toolNameForFile('knowledge.search.json')).toBeUndefined()
    expect(toolNameForFile('README.md')).toBeUndefined()
    expect(toolNameForFile('.schema.json')).toBeUndefined()
  })
})

describe('loadSchemaRegistry', () => {
  it('loads the fixture directory with the tool-context as a referent, not a tool', () => {
    const registry = loadSchemaRegistry(FIXTURE_SCHEMAS)
    expect(registry.tools).toEqual(['notes.batch', 'notes.get', 'notes.search', 'system.ping'])
    expect(registry.has('tool-context')).toBe(false)
    expect(registry.source('notes.get')).toMatch(/notes\.get\.schema\.json$/)
  })

  it('fails at start-up when two directories map one tool twice', () => {
    expect(() => loadSchemaRegistry([FIXTURE_SCHEMAS, FIXTURE_SCHEMAS])).toThrow(/duplicate \$id/)
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-reg-'))
    try {
      writeFileSync(
        join(dir, 'system.ping.schema.json'),
        JSON.stringify({ $schema: DRAFT_2020_12, $id: `${ID}other-ping`, ...closed }),
      )
      expect(() => loadSchemaRegistry([FIXTURE_SCHEMAS, dir])).toThrow(
        /tool system\.ping is already mapped/,
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('reads only the .json files of the directory, in name order', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-reg-'))
    try {
      writeFileSync(join(dir, 'README.md'), '# not a schema')
      writeFileSync(join(dir, 'b.schema.json'), '{"title":"b"}')
      writeFileSync(join(dir, 'a.schema.json'), '{"title":"a"}')
      expect(readSchemaDirectory(dir).map((d) => [d.file, d.schema])).toEqual([
        ['a.schema.json', { title: 'a' }],
        ['b.schema.json', { title: 'b' }],
      ])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('refuses a .json file without the .schema.json suffix and a file that is not JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-reg-'))
    try {
      writeFileSync(join(dir, 'notes.json'), '{}')
      expect(() => readSchemaDirectory(dir)).toThrow(/must be named <tool name>\.schema\.json/)
      rmSync(join(dir, 'notes.json'))
      writeFileSync(join(dir, 'notes.schema.json'), '{nope')
      expect(() => readSchemaDirectory(dir)).toThrow(/not valid JSON/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('createSchemaRegistry', () => {
  it('fails at start-up on a $ref whose target is not loaded, and fetches nothing', () => {
    const docs = [
      doc('a.schema.json', {
        type: 'object',
        allOf: [{ $ref: 'https://example.invalid/remote.schema.json' }],
        unevaluatedProperties: false,
      }),
    ]
    expect(() => createSchemaRegistry(docs)).toThrow(/can't resolve reference/)
  })

  it('fails at start-up on a duplicate $id', () => {
    const a = doc('a.schema.json', closed)
    const b = { ...doc('b.schema.json', closed), schema: a.schema }
    expect(() => createSchemaRegistry([a, b])).toThrow(/duplicate \$id/)
  })

  it('fails at start-up on a tool mapped twice', () => {
    const a = doc('a.schema.json', closed)
    const again = { ...doc('a.schema.json', closed), source: 'other/a.schema.json' }
    ;(again.schema as Record<string, unknown>).$id = `${ID}elsewhere`
    expect(() => createSchemaRegistry([a, again])).toThrow(/tool a is already mapped/)
  })

  it('fails at start-up on a dialect other than 2020-12, a missing $id and a non-object', () => {
    const d7 = {
      file: 'a.schema.json',
      source: 'a',
      schema: { $schema: 'http://json-schema.org/draft-07/schema#', $id: `${ID}a` },
    }
    expect(() => createSchemaRegistry([d7])).toThrow(/\$schema must be/)
    const noId = { file: 'a.schema.json', source: 'a', schema: { $schema: DRAFT_2020_12 } }
    expect(() => createSchemaRegistry([noId])).toThrow(/\$id must be an absolute URI/)
    const relative = { ...noId, schema: { $schema: DRAFT_2020_12, $id: 'a.schema.json' } }
    expect(() => createSchemaRegistry([relative])).toThrow(/\$id must be an absolute URI/)
    const list = { file: 'a.schema.json', source: 'a', schema: [] }
    expect(() => createSchemaRegistry([list])).toThrow(/must be a JSON object/)
  })

  it('fails at start-up on what Ajv strict mode refuses (an unknown keyword or format)', () => {
    expect(() => createSchemaRegistry([doc('a.schema.json', { ...closed, maxLenght: 3 })])).toThrow(
      /strict mode: unknown keyword/,
    )
    const format = { type: 'string', maxLength: 9, format: 'no-such-format' }
    expect(() => createSchemaRegistry([doc('a.schema.json', format)])).toThrow(/unknown format/)
    // strictTypes too: a number keyword on a property that does not say it is a number.
    const untyped = { ...closed, properties: { a: { minimum: 1 } } }
    expect(() => createSchemaRegistry([doc('a.schema.json', untyped)])).toThrow(/strict mode/)
  })

  it('fails at start-up on a fault in a shared referent no tool uses', () => {
    const shared = doc('tool-context.schema.json', { type: 'object', bogus: 1 })
    expect(() => createSchemaRegistry([shared, doc('a.schema.json', closed)])).toThrow(/bogus/)
  })

  it('validates with the first violation only, and answers has() for own names only', () => {
    const registry = createSchemaRegistry([doc('a.schema.json', closed)])
    expect(registry.validate('a', {})).toBeNull()
    expect(registry.validate('a', { x: 1, y: 2 })).toEqual({
      instancePath: '',
      keyword: 'additionalProperties',
      params: { additionalProperty: 'x' },
    })
    for (const name of ['__proto__', 'constructor', 'toString', 1, undefined]) {
      expect(registry.has(name)).toBe(false)
    }
    expect(() => registry.validate('b', {})).toThrow(/no published schema/)
  })

  it('loads and freezes a schema holding null as data', () => {
    const nullable = { ...closed, properties: { a: { enum: ['x', null], default: null } } }
    const registry = createSchemaRegistry([doc('a.schema.json', nullable)])
    expect(registry.validate('a', { a: null })).toBeNull()
    expect(Object.isFrozen(registry.schema('a'))).toBe(true)
  })

  it('holds deep-frozen published and bundled schemas', () => {
    const registry = loadSchemaRegistry(FIXTURE_SCHEMAS)
    expect(Object.isFrozen(registry.schema('notes.search'))).toBe(true)
    const bundled = registry.bundled('notes.search') as { allOf: Record<string, unknown>[] }
    expect(Object.isFrozen(bundled.allOf[0])).toBe(true)
    expect(JSON.stringify(bundled)).not.toContain('$ref')
  })

  it('refuses a sharedFiles option that is not a list of names', () => {
    for (const sharedFiles of ['x', ['tool-context.schema.json', 3], [3]]) {
      const create = () => createSchemaRegistry([], { sharedFiles: sharedFiles as string[] })
      expect(create).toThrow(TypeError)
      expect(create).toThrow(/sharedFiles/)
    }
  })
})
