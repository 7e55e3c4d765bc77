// The relation keyword by keyword, on hand-written schema pairs: each rule that can fire, fires
// on the smallest drift, and stays quiet on the smallest agreement.
import { describe, expect, it } from 'vitest'
import { checkSchemaAgreement } from '../src/agreement.js'

type Schema = Record<string, unknown>
const obj = (a: Schema): Schema => ({ type: 'object', properties: { a } })
const found = (published: Schema, derived: unknown) =>
  checkSchemaAgreement(
    obj(published),
    derived === undefined ? obj({}) : obj(derived as Schema),
  ).findings.map((f) => `${f.rule} ${f.pointer}`)

describe('checkSchemaAgreement, keyword by keyword', () => {
  it.each([
    // [published, derived, findings]
    [{ type: 'string', minLength: 2 }, { type: 'string', minLength: 2 }, []],
    [{ type: 'string', minLength: 1 }, { type: 'string', minLength: 2 }, ['published-wider /a']],
    [{ type: 'string' }, { type: 'string', minLength: 0 }, []],
    [{ type: 'string' }, { type: 'string', minLength: 1 }, ['published-wider /a']],
    [{ type: 'string', maxLength: 5 }, { type: 'string', maxLength: 5 }, []],
    [{ type: 'string', maxLength: 6 }, { type: 'string', maxLength: 5 }, ['published-wider /a']],
    [{ type: 'string', pattern: '^a$' }, { type: 'string', pattern: '^a$' }, []],
    [
      { type: 'string', pattern: '^b$' },
      { type: 'string', pattern: '^a$' },
      ['published-wider /a'],
    ],
    [{ type: 'string', format: 'uuid' }, { type: 'string', format: 'uuid' }, []],
    [
      { type: 'string', format: 'email' },
      { type: 'string', format: 'uuid' },
      ['published-wider /a'],
    ],
    [{ type: 'integer', minimum: 1 }, { type: 'integer', minimum: 1 }, []],
    [{ type: 'integer', minimum: 0 }, { type: 'integer', minimum: 1 }, ['published-wider /a']],
    [{ type: 'integer', exclusiveMinimum: 0 }, { type: 'integer', minimum: 0 }, []],
    [
      { type: 'integer', minimum: 0 },
      { type: 'integer', exclusiveMinimum: 0 },
      ['published-wider /a'],
    ],
    [{ type: 'integer', exclusiveMinimum: 0 }, { type: 'integer', exclusiveMinimum: 0 }, []],
    [{ type: 'integer', minimum: 5, exclusiveMinimum: 1 }, { type: 'integer', minimum: 4 }, []],
    [{ type: 'integer', maximum: 9 }, { type: 'integer', maximum: 9 }, []],
    [{ type: 'integer', maximum: 10 }, { type: 'integer', maximum: 9 }, ['published-wider /a']],
    [{ type: 'integer', exclusiveMaximum: 9 }, { type: 'integer', maximum: 9 }, []],
    [
      { type: 'integer', maximum: 9 },
      { type: 'integer', exclusiveMaximum: 9 },
      ['published-wider /a'],
    ],
    [{ type: 'integer', maximum: 3, exclusiveMaximum: 9 }, { type: 'integer', maximum: 4 }, []],
    [{ type: 'number' }, { type: 'number', maximum: 1 }, ['published-wider /a']],
    [{ type: 'number' }, { type: 'number', minimum: 1 }, ['published-wider /a']],
    [
      { type: 'integer', minimum: 1, exclusiveMinimum: 1 },
      { type: 'integer', exclusiveMinimum: 1 },
      [],
    ],
    [
      { type: 'integer', maximum: 9, exclusiveMaximum: 9 },
      { type: 'integer', exclusiveMaximum: 9 },
      [],
    ],
    // A keyword of another type constrains nothing the published type admits.
    [{ type: 'integer' }, { type: ['string', 'integer'], maxLength: 3 }, []],
    [{ type: 'string' }, { type: ['string', 'number'], maximum: 3 }, []],
    [{ type: 'string' }, { type: ['string', 'array'], minItems: 1 }, []],
    [{ type: 'string' }, { type: ['string', 'object'], required: ['x'] }, []],
    // A finite published domain is what Ajv admits of it: 'bb' is not, so nothing is wider.
    [{ type: 'string', enum: ['a', 'bb'], maxLength: 1 }, { type: 'string', maxLength: 1 }, []],
    [{ type: 'string', enum: ['a@b.c'], format: 'email' }, { type: 'string' }, []],
    // A finite domain is judged by a lax Ajv, so a handler's schema that Ajv strict mode would
    // refuse (a keyword without its type, a keyword Ajv does not know) is judged, not thrown.
    [{ type: 'string', enum: ['a'] }, { minLength: 1 }, []],
    [{ type: 'string', enum: ['a'] }, { type: 'string', 'x-note': 1 }, ['unsupported /a']],
    [{ type: 'number', multipleOf: 4 }, { type: 'number', multipleOf: 2 }, []],
    [{ type: 'number', multipleOf: 3 }, { type: 'number', multipleOf: 2 }, ['published-wider /a']],
    [{ type: 'number' }, { type: 'number', multipleOf: 2 }, ['published-wider /a']],
    [{ type: 'integer' }, { type: 'number' }, []],
    [{ type: 'number' }, { type: 'integer' }, ['published-wider /a']],
    [
      { type: 'number', allOf: [{ type: 'integer', maximum: 10 }] },
      { type: 'integer', maximum: 5 },
      ['published-wider /a'],
    ],
    [{ maxLength: 3 }, { type: 'string' }, ['published-wider /a']],
    [{ type: 'boolean' }, {}, []],
    [{ type: 'boolean' }, true, []],
    [{ type: 'boolean' }, false, ['published-wider /a']],
    [false, { type: 'string' }, []],
  ])('%j against %j finds %j', (published, derived, findings) => {
    const p =
      published === false ? { type: 'object', properties: { a: false } } : obj(published as Schema)
    const d =
      typeof derived === 'boolean'
        ? { type: 'object', properties: { a: derived } }
        : obj(derived as Schema)
    expect(checkSchemaAgreement(p, d).findings.map((f) => `${f.rule} ${f.pointer}`)).toEqual(
      findings,
    )
  })

  it('compares arrays: bounds, uniqueItems and items', () => {
    const d = {
      type: 'array',
      minItems: 1,
      maxItems: 3,
      uniqueItems: true,
      items: { type: 'string' },
    }
    expect(found({ ...d, items: { type: 'string', maxLength: 2 } }, d)).toEqual([])
    expect(found({ ...d, minItems: 0 }, d)).toEqual(['published-wider /a'])
    const { minItems: _minItems, ...noMin } = d
    expect(found(noMin, { ...d, minItems: 1 })).toEqual(['published-wider /a'])
    expect(found({ ...d, maxItems: 4 }, d)).toEqual(['published-wider /a'])
    expect(found({ ...d, uniqueItems: false }, d)).toEqual(['published-wider /a'])
    expect(found({ ...d, items: { type: ['string', 'null'] } }, d)).toEqual([
      'published-wider /a/items',
    ])
    const { items: _items, ...noItems } = d
    expect(found(noItems, d)).toEqual(['published-wider /a/items'])
    expect(
      found({ type: 'array', maxItems: 0 }, { type: 'array', items: { type: 'string' } }),
    ).toEqual([])
    expect(found({ type: 'array', items: {} }, { type: 'array', minItems: 0, items: {} })).toEqual(
      [],
    )
    expect(
      found(
        { type: 'array', items: { type: 'string' } },
        { type: 'array', items: [{ type: 'string' }] },
      ),
    ).toEqual(['unsupported /a'])
  })

  it('compares nested objects in both directions, and reads items of allOf conjuncts', () => {
    const d = { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] }
    expect(
      found({ type: 'object', properties: { x: { type: 'string' } }, required: ['x'] }, d),
    ).toEqual([])
    expect(found({ type: 'object', properties: { x: { type: 'string' } } }, d)).toEqual([
      'required-differs /a/x',
    ])
    expect(
      found(
        {
          type: 'object',
          properties: { x: { type: 'string' }, y: { type: 'string' } },
          required: ['x', 'y'],
        },
        d,
      ),
    ).toEqual(['published-key-unhandled /a/y', 'required-differs /a/y'])
    const conj = {
      type: 'object',
      allOf: [{ properties: { x: { maxLength: 3 } } }],
      properties: { x: { type: 'string' } },
      required: ['x'],
    }
    expect(found(conj, d)).toEqual([])
  })

  it('checks a published key against an open derived additionalProperties schema', () => {
    const empty = { type: 'object', additionalProperties: {} }
    expect(found({ type: 'object', properties: { k: { type: 'string' } } }, empty)).toEqual([
      'published-key-unhandled /a/k',
    ])
    const d = { type: 'object', additionalProperties: { type: 'string' } }
    expect(found({ type: 'object', properties: { k: { type: 'string' } } }, d)).toEqual([])
    expect(found({ type: 'object', properties: { k: { type: 'number' } } }, d)).toEqual([
      'published-wider /a/k',
    ])
  })

  it('escapes / and ~ in finding pointers', () => {
    const p = { type: 'object', properties: { 'a/b~c': { type: 'string' } } }
    expect(checkSchemaAgreement(p, { type: 'object' }).findings[0]?.pointer).toBe('/a~1b~0c')
  })

  it('relates a derived allOf branch by branch, and a const like a one-value enum', () => {
    expect(
      found({ type: 'string', maxLength: 2 }, { allOf: [{ type: 'string' }, { maxLength: 2 }] }),
    ).toEqual([])
    expect(found({ type: 'string' }, { allOf: [{ type: 'string' }, { maxLength: 2 }] })).toEqual([
      'published-wider /a',
    ])
    expect(found({ const: 'x' }, { type: 'string', enum: ['x'] })).toEqual([])
    expect(found({ const: 'y' }, { const: 'x' })).toEqual([
      'published-wider /a',
      'enum-narrower /a',
    ])
    expect(found({ type: 'string' }, { const: 'x' })).toEqual(['published-wider /a'])
    expect(
      found({ enum: ['x', 'y'], allOf: [{ enum: ['y', 'z'] }] }, { type: 'string', enum: ['y'] }),
    ).toEqual([])
  })

  it('fails on a union branch no published type fits', () => {
    const d = { anyOf: [{ type: 'string' }, { type: 'integer' }] }
    expect(found({ type: ['string', 'integer'], maxLength: 3 }, d)).toEqual([])
    expect(found({ type: 'string' }, d)).toEqual([])
    const numbers = { anyOf: [{ type: 'string' }, { type: 'number' }] }
    expect(found({ type: ['string', 'number'] }, numbers)).toEqual([])
    const split = { anyOf: [{ type: 'string', maxLength: 3 }, { type: 'number' }] }
    expect(found({ type: ['string', 'number'], maxLength: 5 }, split)).toEqual([
      'published-wider /a',
    ])
    expect(found({ type: 'number' }, d)).toEqual(['published-wider /a'])
  })

  // A finite published domain is judged with the handler's formats loaded: an Ajv without
  // them ignores `format`, and an enum value the handler's format refuses would agree.
  it('reports an enum value the handler’s format refuses', () => {
    expect(found({ type: 'string', enum: ['x'] }, { type: 'string', format: 'uuid' })).toEqual([
      'published-wider /a',
    ])
  })

  it('agrees when every enum value passes the handler’s format', () => {
    const id = '123e4567-e89b-12d3-a456-426614174000'
    expect(found({ type: 'string', enum: [id] }, { type: 'string', format: 'uuid' })).toEqual([])
  })

  it('reports a derived schema that is not a schema', () => {
    expect(found({ type: 'string' }, 7)).toEqual(['unsupported /a'])
    expect(found({ type: 'string' }, null)).toEqual(['unsupported /a'])
  })

  it('is ok exactly when there is no finding, and lists the excluded keys it applied sorted', () => {
    const drift = checkSchemaAgreement(obj({ type: 'string' }), obj({ type: 'integer' }))
    expect(drift.findings.map((f) => f.rule)).toEqual(['published-wider'])
    expect(drift.ok).toBe(false)
    const top = { type: 'object', properties: { z: { type: 'string' }, a: { type: 'string' } } }
    const report = checkSchemaAgreement(top, { type: 'object' }, { excludedKeys: ['z', 'a'] })
    expect(report).toEqual({ ok: true, findings: [], excludedApplied: ['a', 'z'] })
  })

  it('validates excludedKeys and applies them at the top level only', () => {
    for (const excludedKeys of ['a', [1], ['q', 1]]) {
      expect(() => checkSchemaAgreement({}, {}, { excludedKeys: excludedKeys as never })).toThrow(
        TypeError,
      )
      expect(() => checkSchemaAgreement({}, {}, { excludedKeys: excludedKeys as never })).toThrow(
        /excludedKeys/,
      )
    }
    const top = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }
    const report = checkSchemaAgreement(top, { type: 'object' }, { excludedKeys: ['q'] })
    expect(report).toEqual({ ok: true, findings: [], excludedApplied: ['q'] })
    expect(
      found({ type: 'object', properties: { q: { type: 'string' } } }, { type: 'object' }),
    ).toEqual(['published-key-unhandled /a/q'])
    // The default exclusion (snapshotId, agentId, taskId) too: a nested key is compared.
    expect(
      found({ type: 'object', properties: { snapshotId: { type: 'string' } } }, { type: 'object' }),
    ).toEqual(['published-key-unhandled /a/snapshotId'])
    expect(() => checkSchemaAgreement(7, {})).toThrow(TypeError)
  })
})
