import { describe, expect, it } from 'vitest'
import { Ajv2020 } from '../src/ajv-load.js'
import { createSchemaRegistry, DRAFT_2020_12, type SchemaDocument } from '../src/index.js'

// What tools/list publishes is the bundle: one self-contained schema a client compiles. A
// `$defs` entry that names itself with `$id`, inlined where it is referenced, must not carry
// that `$id` there too: a 2020-12 validator refuses a schema naming one resource twice
// ("reference … resolves to more than one schema"), and the client could then validate nothing.
const ID = 'https://schemas.tollgate.dev/bundle-ids/'
const tool = (schema: Record<string, unknown>): SchemaDocument => ({
  file: 't.schema.json',
  source: 't.schema.json',
  schema: { $schema: DRAFT_2020_12, $id: `${ID}t.schema.json`, ...schema },
})
const WITH_NAMED_DEF = tool({
  type: 'object',
  properties: { a: { $ref: '#/$defs/thing' }, b: { $ref: '#/$defs/thing' } },
  additionalProperties: false,
  $defs: {
    thing: {
      $id: `${ID}thing`,
      type: 'object',
      properties: { n: { type: 'integer', maximum: 3 } },
      required: ['n'],
      additionalProperties: false,
    },
  },
})

describe('the bundle of a schema whose $defs entry has its own $id', () => {
  it('names each resource once, so a 2020-12 validator compiles it and judges as the registry does', () => {
    const registry = createSchemaRegistry([WITH_NAMED_DEF])
    const bundled = structuredClone(registry.bundled('t')) as Record<string, unknown>
    const ids = JSON.stringify(bundled).match(/"\$id"/g) ?? []
    expect(ids.length).toBe(2) // the root's and the one in $defs, never the inlined copies
    const validate = new Ajv2020({ strict: true }).compile(bundled)
    for (const args of [{ a: { n: 1 } }, { a: { n: 4 } }, { b: { n: 1, x: 1 } }, { c: 1 }, {}]) {
      expect({ args, valid: validate(args) }).toEqual({
        args,
        valid: registry.validate('t', args) === null,
      })
    }
  })
})
