import { fc, test } from '@fast-check/vitest'
import Ajv2020Import from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import {
  bundleSchema,
  DRAFT_2020_12,
  InputValidationTransport,
  rewriteToolsListResult,
} from '../src/index.js'
import { fixtureRegistry, inMemorySession, type Json } from './helpers/raw-clients.js'
import { SDK_DERIVED_DIALECT } from './helpers/sdk-line.js'

type Ajv = InstanceType<typeof import('ajv/dist/2020.js').default>
const Ajv2020 = ((Ajv2020Import as { default?: unknown }).default ?? Ajv2020Import) as new (
  o: object,
) => Ajv
const registry = fixtureRegistry()

describe('withInputValidation on tools/list', () => {
  it('publishes each bundled schema and leaves out the tool without one', async () => {
    const session = await inMemorySession(true)
    try {
      const { parsed } = await session.request({ jsonrpc: '2.0', id: 9, method: 'tools/list' })
      const tools = ((parsed[0] as Json).result as { tools: Json[] }).tools
      // Sorted by name, not in the server's registration order (search, get, batch, ping).
      expect(tools.map((t) => t.name)).toEqual([
        'notes.batch',
        'notes.get',
        'notes.search',
        'system.ping',
      ])
      for (const tool of tools) {
        expect(tool.inputSchema).toEqual(registry.bundled(tool.name as string))
        expect(tool.description).toBeTypeOf('string')
      }
    } finally {
      await session.close()
    }
  })

  it('leaves tools/list as the SDK derives it when rewriteToolsList is false', async () => {
    const session = await inMemorySession(true, { rewriteToolsList: false })
    try {
      const { parsed } = await session.request({ jsonrpc: '2.0', id: 9, method: 'tools/list' })
      const tools = ((parsed[0] as Json).result as { tools: Json[] }).tools
      expect(tools).toHaveLength(5)
      // The dialect each SDK line derives from zod: 1.32 draft-07, 2.x draft 2020-12.
      expect(((tools[0] as Json).inputSchema as Json).$schema).toBe(SDK_DERIVED_DIALECT)
    } finally {
      await session.close()
    }
  })
})

describe('rewriteToolsListResult', () => {
  it('returns a result without a tools array unchanged', () => {
    const result = { content: [] }
    expect(rewriteToolsListResult(result, registry)).toBe(result)
    expect(rewriteToolsListResult(null, registry)).toBeNull()
    expect(rewriteToolsListResult(undefined, registry)).toBeUndefined()
    expect(rewriteToolsListResult(3, registry)).toBe(3)
  })

  it('leaves out entries that are not tool objects instead of failing on them', () => {
    const result = { tools: [null, 3, 'notes.search', { name: 'notes.search' }], nextCursor: 'c' }
    expect(rewriteToolsListResult(result, registry)).toEqual({
      tools: [{ name: 'notes.search', inputSchema: registry.bundled('notes.search') }],
      nextCursor: 'c',
    })
  })
})

describe('rewriteToolsListResult cache fields (2026-07-28)', () => {
  const tools = [{ name: 'system.ping' }, { name: 'notes.get' }]

  it('keeps a public list public when no surface filters it, and makes it private when one does', () => {
    const given = { tools, ttlMs: 60_000, cacheScope: 'public' }
    expect(rewriteToolsListResult(given, registry, undefined, { modern: true })).toMatchObject({
      ttlMs: 60_000,
      cacheScope: 'public',
    })
    expect(
      rewriteToolsListResult(given, registry, new Set(['notes.get', 'system.ping']), {
        modern: true,
      }),
    ).toMatchObject({ ttlMs: 60_000, cacheScope: 'private' })
    // A server's cacheScope is overridden on a filtered list whatever the era of the request.
    expect(rewriteToolsListResult(given, registry, new Set(['notes.get']))).toMatchObject({
      cacheScope: 'private',
    })
  })

  it('adds ttlMs 0 and cacheScope private to a 2026 list that lacks or mangles them, and nothing to a 2025 one', () => {
    for (const given of [
      { tools },
      { tools, ttlMs: -1, cacheScope: 'shared' },
      { tools, ttlMs: 1.5 },
    ]) {
      expect(rewriteToolsListResult(given, registry, undefined, { modern: true })).toMatchObject({
        ttlMs: 0,
        cacheScope: 'private',
      })
    }
    const legacy = rewriteToolsListResult({ tools }, registry) as Json
    expect('ttlMs' in legacy || 'cacheScope' in legacy).toBe(false)
  })

  test.prop([
    fc.shuffledSubarray(['notes.search', 'notes.get', 'notes.batch', 'system.ping', 'zz.none']),
  ])(
    'lists the same tools in the same order whatever order the server registered them in',
    (names) => {
      const out = rewriteToolsListResult({ tools: names.map((name) => ({ name })) }, registry) as {
        tools: Json[]
      }
      const listed = out.tools.map((t) => t.name as string)
      expect(listed).toEqual(names.filter((n) => registry.has(n)).sort())
    },
  )
})

describe('bundleSchema', () => {
  const ctx = {
    $schema: DRAFT_2020_12,
    $id: 'https://x.test/ctx.json',
    type: 'object',
    $defs: { id: { type: 'string', maxLength: 4 } },
    properties: { projectId: { $ref: '#/$defs/id' } },
    required: ['projectId'],
  }
  const tool = {
    $schema: DRAFT_2020_12,
    $id: 'https://x.test/tool.json',
    type: 'object',
    allOf: [{ $ref: 'ctx.json' }],
    properties: { q: { type: 'string', maxLength: 5, enum: ['a', { $ref: 'not-a-ref' }] } },
    unevaluatedProperties: false,
  }
  const docs = new Map<string, unknown>([
    [ctx.$id, ctx],
    [tool.$id, tool],
  ])
  const bundled = bundleSchema(tool, tool.$id, docs) as Json

  it('inlines every $ref, local ones inside the referent too, and leaves data keywords alone', () => {
    const text = JSON.stringify(bundled)
    expect(text.match(/"\$ref"/g)).toHaveLength(1) // the one inside `enum`, which is data
    expect((bundled.allOf as Json[])[0]).not.toHaveProperty('$id')
  })

  const validate = new Ajv2020({ strict: false }).addSchema(ctx).compile(tool)
  const validateBundled = new Ajv2020({ strict: false }).compile(bundled)
  const doc = fc.dictionary(
    fc.constantFrom('projectId', 'q', 'x'),
    fc.oneof(fc.constantFrom('a', 'abcd', 'abcde', 'abcdef'), fc.integer()),
  )

  test.prop([doc], { numRuns: 300 })('validates exactly as the schema it bundles', (d) => {
    expect(validateBundled(d)).toBe(validate(d))
  })

  it('resolves a $ref against the nearest $id, an embedded one included', () => {
    const leaf = { $id: 'https://x.test/sub/leaf.json', type: 'string', maxLength: 2 }
    const outer = {
      $id: 'https://x.test/outer.json',
      properties: { a: { $id: 'https://x.test/sub/inner.json', $ref: 'leaf.json' } },
    }
    const all = new Map<string, unknown>([...docs, [leaf.$id, leaf], [outer.$id, outer]])
    const out = bundleSchema(outer, outer.$id, all) as { properties: Json }
    expect(out.properties).toEqual({
      a: { $id: 'https://x.test/sub/inner.json', allOf: [{ type: 'string', maxLength: 2 }] },
    })
  })

  it('decodes ~1 and ~0 in a $ref pointer', () => {
    const odd = {
      $id: 'https://x.test/odd.json',
      $defs: { 'a/b': { maxLength: 1 }, 'c~d': { minLength: 1 }, never: false },
    }
    const all = new Map<string, unknown>([[odd.$id, odd]])
    expect(bundleSchema({ $ref: 'odd.json#/$defs/a~1b' }, odd.$id, all)).toEqual({ maxLength: 1 })
    expect(bundleSchema({ $ref: 'odd.json#/$defs/c~0d' }, odd.$id, all)).toEqual({ minLength: 1 })
    // A boolean target stays a boolean: false still admits nothing.
    expect(bundleSchema({ $ref: 'odd.json#/$defs/never' }, odd.$id, all)).toBe(false)
  })

  it('copies const, default and examples as data, a $ref inside them included', () => {
    const data = { $ref: 'ctx.json#/nope' }
    const schema = { $id: 'https://x.test/data.json', const: data, default: data, examples: [data] }
    expect(bundleSchema(schema, schema.$id, docs)).toEqual(schema)
  })

  it('keeps the keywords beside a $ref and adds its target to their allOf', () => {
    const beside = {
      $id: 'https://x.test/beside.json',
      type: 'object',
      properties: {
        projectId: { $ref: 'ctx.json#/$defs/id', description: 'the project' },
        snapshotId: { $ref: 'ctx.json#/$defs/id', allOf: [{ minLength: 2 }] },
      },
    }
    const out = bundleSchema(beside, beside.$id, docs) as { properties: Json }
    expect(out.properties).toEqual({
      projectId: { description: 'the project', allOf: [{ type: 'string', maxLength: 4 }] },
      snapshotId: { allOf: [{ minLength: 2 }, { type: 'string', maxLength: 4 }] },
    })
  })

  it('refuses a recursive $ref and a target that is not loaded', () => {
    const loop = { $id: 'https://x.test/loop.json', $ref: '#' }
    expect(() => bundleSchema(loop, loop.$id, new Map([[loop.$id, loop]]))).toThrow(/recursive/)
    expect(() => bundleSchema({ $ref: 'https://x.test/none.json' }, tool.$id, docs)).toThrow(
      /is not loaded/,
    )
    expect(() => bundleSchema({ $ref: 'ctx.json#/nope' }, tool.$id, docs)).toThrow(
      /points at nothing/,
    )
    expect(() => bundleSchema({ $ref: 'ctx.json#anchor' }, tool.$id, docs)).toThrow(/anchor/)
    // An anchor whose tail names a key of the document is still refused, not read as a pointer.
    expect(() => bundleSchema({ $ref: 'ctx.json#x$defs' }, tool.$id, docs)).toThrow(
      /anchor fragments are not supported/,
    )
    expect(() => bundleSchema({ $dynamicRef: '#x' }, tool.$id, docs)).toThrow(/\$dynamicRef/)
  })
})

describe('InputValidationTransport', () => {
  // A helper test: a stand-in inner transport records what the decorator sends, so the
  // outbound bookkeeping can be driven message by message.
  function harness() {
    const sent: Json[] = []
    const inner = {
      onmessage: undefined as ((m: unknown) => void) | undefined,
      start: async () => {},
      close: async () => {},
      send: async (m: unknown) => {
        sent.push(m as Json)
      },
    }
    const decorated = new InputValidationTransport(inner as never, registry)
    decorated.onmessage = () => {}
    return { sent, inner, decorated }
  }
  const listing = {
    tools: [
      { name: 'notes.unpublished', inputSchema: { type: 'object' } },
      { name: 'system.ping', inputSchema: { type: 'object' } },
    ],
  }

  it('rewrites only the response to a pending tools/list, not a server request reusing its id', async () => {
    const { sent, inner, decorated } = harness()
    inner.onmessage?.({ jsonrpc: '2.0', id: 5, method: 'tools/list' })
    await decorated.send({ jsonrpc: '2.0', id: 5, method: 'ping' } as never)
    expect(sent[0]).toEqual({ jsonrpc: '2.0', id: 5, method: 'ping' })
    await decorated.send({ jsonrpc: '2.0', id: 5, result: listing } as never)
    expect(((sent[1] as Json).result as { tools: Json[] }).tools).toEqual([
      { name: 'system.ping', inputSchema: registry.bundled('system.ping') },
    ])
    // Settled: a later result under the same id is not a tools/list answer.
    await decorated.send({ jsonrpc: '2.0', id: 5, result: listing } as never)
    expect(sent[2]?.result).toBe(listing)
  })

  it('settles a pending tools/list on an error response without rewriting', async () => {
    const { sent, inner, decorated } = harness()
    inner.onmessage?.({ jsonrpc: '2.0', id: 'a', method: 'tools/list' })
    const error = { jsonrpc: '2.0', id: 'a', error: { code: -32603, message: 'x' } }
    await decorated.send(error as never)
    await decorated.send({ jsonrpc: '2.0', id: 'a', result: listing } as never)
    expect(sent).toEqual([error, { jsonrpc: '2.0', id: 'a', result: listing }])
  })

  it('drops a tools/call that is not a well-formed request and delivers other messages', () => {
    const { inner, decorated } = harness()
    const delivered: unknown[] = []
    decorated.onmessage = (m) => delivered.push(m)
    inner.onmessage?.({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'system.ping' } })
    inner.onmessage?.({
      jsonrpc: '2.0',
      id: null,
      method: 'tools/call',
      params: { name: 'system.ping' },
    })
    const note = { jsonrpc: '2.0', method: 'notifications/initialized' }
    inner.onmessage?.(note)
    expect(delivered).toEqual([note])
  })
})
