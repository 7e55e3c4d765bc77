import { describe, expect, it } from 'vitest'
import {
  bundleSchema,
  createSchemaRegistry,
  DRAFT_2020_12,
  type SchemaDocument,
} from '../src/index.js'

// A JSON Pointer (RFC 6901) steps only into objects and arrays: a `$ref` whose fragment walks
// through a string names nothing, and the registry promises a missing `$ref` target is a
// start-up fault. A string has own properties (`length`, its indices), so a walk that asked
// only `Object.hasOwn` would step into it and publish a number or a character as a schema.
const ID = 'https://schemas.tollgate.dev/audit/'
const withRef = (ref: string): SchemaDocument => ({
  file: 't.schema.json',
  source: 't.schema.json',
  schema: {
    $schema: DRAFT_2020_12,
    $id: `${ID}t.schema.json`,
    type: 'object',
    properties: { a: { type: 'string', description: 'xyz' }, b: { $ref: ref } },
  },
})

describe('a $ref whose pointer walks through a string', () => {
  it('fails at start-up on a $ref into the length of a string, which Ajv itself compiles', () => {
    expect(() => createSchemaRegistry([withRef('#/properties/a/description/length')])).toThrow(
      /\$ref .*#\/properties\/a\/description\/length points at nothing/,
    )
  })

  it('is refused by bundleSchema, never inlined as a character or a number', () => {
    for (const ref of ['#/properties/a/description/0', '#/properties/a/description/length']) {
      const { schema } = withRef(ref)
      const id = `${ID}t.schema.json`
      expect(() => bundleSchema(schema, id, new Map([[id, schema]]))).toThrow(
        `$ref ${id}${ref} points at nothing`,
      )
    }
  })
})
