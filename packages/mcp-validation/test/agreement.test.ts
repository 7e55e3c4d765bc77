import { describe, expect, it } from 'vitest'
import { checkSchemaAgreement, deriveToolSchemas, UNREAD_CONTEXT_KEYS } from '../src/agreement.js'
import { assertToolPopulation, checkToolPopulation } from '../src/index.js'
import { createTestServer, type HandlerCall } from './fixtures/test-server.js'
import { fixtureRegistry } from './helpers/raw-clients.js'

type Schema = Record<string, unknown>
const registry = fixtureRegistry()
const derived = await deriveToolSchemas(createTestServer([] as HandlerCall[]))
const published = (tool: string) => structuredClone(registry.bundled(tool)) as Schema
const derivedOf = (tool: string) => structuredClone(derived.get(tool)) as Schema
const rules = (report: ReturnType<typeof checkSchemaAgreement>) =>
  report.findings.map((f) => `${f.rule} ${f.pointer}`)

describe('deriveToolSchemas', () => {
  it("returns each registered tool's SDK-derived draft-07 schema, which carries no closure", () => {
    expect([...derived.keys()]).toEqual([
      'notes.batch',
      'notes.get',
      'notes.search',
      'notes.unpublished',
      'system.ping',
    ])
    for (const schema of derived.values()) {
      expect((schema as Schema).additionalProperties).toBeUndefined()
    }
  })
})

describe('checkSchemaAgreement', () => {
  it.each(registry.tools)('holds for the test server tool %s', (tool) => {
    const report = checkSchemaAgreement(published(tool), derivedOf(tool))
    expect(report.findings).toEqual([])
    expect(report.ok).toBe(true)
  })

  it('excludes exactly the unread context keys, which are published and underived', () => {
    const applied = new Set(
      registry.tools.flatMap(
        (tool) => checkSchemaAgreement(published(tool), derivedOf(tool)).excludedApplied,
      ),
    )
    // snapshotId is a handler parameter on the test server, so it is compared, not excluded.
    expect([...applied].sort()).toEqual(['agentId', 'taskId'])
    expect(UNREAD_CONTEXT_KEYS).toEqual(['snapshotId', 'agentId', 'taskId'])
  })

  it('catches a dropped required key in the published schema', () => {
    const p = published('notes.get')
    p.required = []
    expect(rules(checkSchemaAgreement(p, derivedOf('notes.get')))).toEqual([
      'required-differs /noteId',
    ])
  })

  it('catches a handler parameter the published schema does not name', () => {
    const d = derivedOf('notes.get')
    ;(d.properties as Schema).verbose = { type: 'boolean' }
    expect(rules(checkSchemaAgreement(published('notes.get'), d))).toEqual([
      'unpublished-parameter /verbose',
    ])
  })

  it('catches a published type wider than the handler takes', () => {
    const p = published('notes.search')
    ;(p.properties as Record<string, Schema>).limit = { type: 'number', minimum: 1, maximum: 50 }
    expect(rules(checkSchemaAgreement(p, derivedOf('notes.search')))).toEqual([
      'published-wider /limit',
    ])
  })

  it('catches a published key with no handler parameter, and a looser bound', () => {
    const p = published('notes.search')
    const props = p.properties as Record<string, Schema>
    props.cursor = { type: 'string', maxLength: 10 }
    props.query = { type: 'string', minLength: 1, maxLength: 500 }
    expect(rules(checkSchemaAgreement(p, derivedOf('notes.search')))).toEqual([
      'published-wider /query',
      'published-key-unhandled /cursor',
    ])
  })

  it('lets the published schema narrow a value domain the handler leaves open', () => {
    const p = published('notes.get')
    expect((p.properties as Record<string, Schema>).noteId?.pattern).toBeDefined()
    expect((derivedOf('notes.get').properties as Record<string, Schema>).noteId).toEqual({
      type: 'string',
    })
    expect(checkSchemaAgreement(p, derivedOf('notes.get')).ok).toBe(true)
  })

  it('catches an enum that admits a value the handler refuses, and one that drops a served value', () => {
    const wider = published('notes.search')
    ;(wider.properties as Record<string, Schema>).mode = {
      type: 'string',
      enum: ['fast', 'full', 'deep'],
    }
    expect(rules(checkSchemaAgreement(wider, derivedOf('notes.search')))).toEqual([
      'published-wider /mode',
    ])
    const narrower = published('notes.search')
    ;(narrower.properties as Record<string, Schema>).mode = { type: 'string', enum: ['fast'] }
    expect(rules(checkSchemaAgreement(narrower, derivedOf('notes.search')))).toEqual([
      'enum-narrower /mode',
    ])
  })

  it('compares nullable unions branch by branch', () => {
    const d = {
      type: 'object',
      properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
    }
    const ok = { type: 'object', properties: { a: { type: ['string', 'null'], maxLength: 3 } } }
    expect(checkSchemaAgreement(ok, d).ok).toBe(true)
    const wide = { type: 'object', properties: { a: { type: ['string', 'integer'] } } }
    expect(rules(checkSchemaAgreement(wide, d))).toEqual(['published-wider /a'])
  })

  it('reports a derived keyword it cannot compare rather than agreeing', () => {
    const d = { type: 'object', properties: { a: { type: 'string', not: { const: 'x' } } } }
    const p = { type: 'object', properties: { a: { type: 'string', maxLength: 3 } } }
    expect(rules(checkSchemaAgreement(p, d))).toEqual(['unsupported /a'])
  })

  it('refuses a published schema that still holds a $ref', () => {
    expect(() =>
      checkSchemaAgreement(registry.schema('notes.get'), derivedOf('notes.get')),
    ).toThrow(/pass it bundled/)
  })
})

describe('checkToolPopulation', () => {
  it('finds the registered tool without a schema on the test server', () => {
    expect(checkToolPopulation(derived.keys(), registry.tools)).toEqual({
      ok: false,
      unpublished: ['notes.unpublished'],
      unregistered: [],
    })
  })

  it('fails on a schema for a tool the server does not register, and passes on equal sets', () => {
    expect(checkToolPopulation(['a'], ['a', 'b'])).toMatchObject({ ok: false, unregistered: ['b'] })
    expect(checkToolPopulation(['b', 'a'], ['a', 'b']).ok).toBe(true)
    expect(() => assertToolPopulation(['a'], ['b'])).toThrow(
      /unpublished \[a\], unregistered \[b\]/,
    )
    expect(() => assertToolPopulation(['a'], ['a'])).not.toThrow()
  })
})

describe('the package entries', () => {
  it('keeps deriveToolSchemas, which loads the SDK client, off the root entry', async () => {
    const root = await import('../src/index.js')
    const agreement = await import('../src/agreement.js')
    expect('deriveToolSchemas' in root).toBe(false)
    expect(agreement.deriveToolSchemas).toBeTypeOf('function')
    expect('checkSchemaAgreement' in root).toBe(false)
  })
})
