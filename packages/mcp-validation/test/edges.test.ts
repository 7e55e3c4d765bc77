// Edges of the public surface that the wire and unit suites do not reach on their own: the
// construction-time checks, ordering, and the shapes a caller may hand in.
import { describe, expect, it } from 'vitest'
import {
  checkToolPopulation,
  createSchemaRegistry,
  DRAFT_2020_12,
  resolveInputValidationOptions,
  withInputValidation,
} from '../src/index.js'
import { fixtureRegistry } from './helpers/raw-clients.js'

const transport = { send: async () => {}, start: async () => {}, close: async () => {} }
const doc = (file: string) => ({
  file,
  source: file,
  schema: {
    $schema: DRAFT_2020_12,
    $id: `https://x.test/${file}`,
    type: 'object',
    additionalProperties: false,
  },
})

describe('withInputValidation', () => {
  const none = (): null => null
  const empty = (): object => ({})
  const yes = (): boolean => true
  it.each<[string, unknown]>([
    ['null', null],
    ['a registry without has', { validate: none, bundled: empty }],
    ['a registry without validate', { has: yes, bundled: empty }],
    ['a registry without bundled', { has: yes, validate: none }],
  ])('throws a TypeError at construction on %s', (_label, registry) => {
    expect(() => withInputValidation(transport, registry as never)).toThrow(/SchemaRegistry/)
  })

  it('accepts a registry-shaped object', () => {
    const registry = { has: () => false, validate: () => null, bundled: () => ({}) }
    expect(() => withInputValidation(transport, registry as never)).not.toThrow()
  })
})

describe('resolveInputValidationOptions', () => {
  it('throws a TypeError on options that are not an object', () => {
    expect(() => resolveInputValidationOptions(null as never)).toThrow(/options must be an object/)
    expect(() => resolveInputValidationOptions(3 as never)).toThrow(/options must be an object/)
  })

  it('names the unknown option, cut to 64 characters', () => {
    expect(() => resolveInputValidationOptions({ ['x'.repeat(100)]: 1 } as never)).toThrow(
      `unknown option ${'x'.repeat(64)}`,
    )
  })

  it('accepts rewriteToolsList false', () => {
    expect(resolveInputValidationOptions({ rewriteToolsList: false }).rewriteToolsList).toBe(false)
  })
})

describe('createSchemaRegistry', () => {
  it('sorts tools by name whatever order the documents come in', () => {
    const registry = createSchemaRegistry([
      doc('c.schema.json'),
      doc('a.schema.json'),
      doc('b.schema.json'),
    ])
    expect(registry.tools).toEqual(['a', 'b', 'c'])
    expect(Object.isFrozen(registry.tools)).toBe(true)
  })

  it('throws for schema, bundled and source of an unknown tool', () => {
    const registry = fixtureRegistry()
    for (const read of [registry.schema, registry.bundled, registry.source]) {
      expect(() => read('nope')).toThrow(/no published schema/)
    }
  })
})

describe('checkToolPopulation', () => {
  it('sorts both lists and freezes the report', () => {
    const report = checkToolPopulation(['z', 'y', 'a'], ['a', 'c', 'b'])
    expect(report.unpublished).toEqual(['y', 'z'])
    expect(report.unregistered).toEqual(['b', 'c'])
    expect(Object.isFrozen(report)).toBe(true)
    expect(Object.isFrozen(report.unpublished)).toBe(true)
  })
})
