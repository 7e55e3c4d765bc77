import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { toolGuard, type UpstreamTool } from '../src/tool-guard.js'
import { DEFAULT_ALLOWED_EXTRA_KEYS } from '../src/tool-guard-options.js'
import { MAX_REFUSAL_TEXT } from '../src/tool-refusal.js'

// The tools list `@modelcontextprotocol/server-everything` 2026.8.31 answered over stdio to a
// raw JSON-RPC client (initialize, then tools/list), kept as it arrived.
const everything = JSON.parse(
  readFileSync(new URL('./fixtures/policy-server-everything-tools.json', import.meta.url), 'utf8'),
) as { tools: UpstreamTool[] }

const S2020 = 'https://json-schema.org/draft/2020-12/schema'
const S2019 = 'https://json-schema.org/draft/2019-09/schema'
const S07 = 'http://json-schema.org/draft-07/schema#'

function guardFor(inputSchema: unknown, options?: Parameters<typeof toolGuard>[0]) {
  const guard = toolGuard(options)
  const load = guard.load([{ name: 't', inputSchema }])
  return { guard, load }
}

function textOf(refusal: { result: { content: [{ text: string }] } } | undefined): string {
  return refusal?.result.content[0].text ?? ''
}

describe('toolGuard', () => {
  it('compiles every tool server-everything publishes and admits its documented calls', () => {
    const guard = toolGuard()
    const load = guard.load(everything.tools)
    expect(load.quarantined).toEqual([])
    expect(load.served.map((t) => t.name)).toEqual(everything.tools.map((t) => t.name))
    const calls: [string, unknown][] = [
      ['echo', { message: 'hello' }],
      ['get-annotated-message', { messageType: 'error', includeImage: true }],
      ['get-env', {}],
      ['get-env', undefined],
      ['get-resource-links', { count: 3 }],
      ['get-structured-content', { location: 'Chicago' }],
      ['get-sum', { a: 1, b: 2.5 }],
      ['get-tiny-image', {}],
      [
        'gzip-file-as-resource',
        { name: 'x.gz', data: 'https://example.com/x', outputType: 'resource' },
      ],
      ['trigger-long-running-operation', { duration: 1, steps: 2 }],
      ['simulate-research-query', { topic: 'tides', ambiguous: false }],
    ]
    for (const [name, args] of calls) expect(guard.checkArguments(name, args)).toBeUndefined()
  })

  it('refuses an unknown key with ERR_TOOL_ARGUMENTS, naming its length, never the key or value', () => {
    const guard = toolGuard()
    guard.load(everything.tools)
    const refusal = guard.checkArguments('echo', { message: 'hi', secretKeyName: 'secretValue' })
    expect(refusal?.code).toBe('ERR_TOOL_ARGUMENTS')
    expect(refusal?.result.isError).toBe(true)
    const text = textOf(refusal)
    expect(text).toContain('/<key of 13 chars> fails unevaluatedProperties')
    expect(text).not.toContain('secretKeyName')
    expect(text).not.toContain('secretValue')
  })

  it('admits the unknown key once the tool opts out of closing (the control removed)', () => {
    const guard = toolGuard({ openTools: ['echo'] })
    guard.load(everything.tools)
    expect(guard.checkArguments('echo', { message: 'hi', secretKeyName: 'x' })).toBeUndefined()
    // Its declared constraints still hold.
    expect(guard.checkArguments('echo', { secretKeyName: 'x' })?.code).toBe('ERR_TOOL_ARGUMENTS')
  })

  it('admits the allowance list at the top level only, and nothing once the list is empty', () => {
    expect(DEFAULT_ALLOWED_EXTRA_KEYS).toEqual(['_meta', 'toolCallId', 'tool_call_description'])
    const schema = {
      type: 'object',
      properties: { message: { type: 'string' }, opts: { type: 'object', properties: {} } },
    }
    const { guard } = guardFor(schema)
    expect(guard.checkArguments('t', { message: 'm', toolCallId: 'c1', _meta: {} })).toBeUndefined()
    expect(textOf(guard.checkArguments('t', { opts: { toolCallId: 'c1' } }))).toContain(
      '/opts/<key of 10 chars> fails unevaluatedProperties',
    )
    const strict = guardFor(schema, { allowedExtraKeys: [] }).guard
    expect(strict.checkArguments('t', { message: 'm', toolCallId: 'c1' })?.code).toBe(
      'ERR_TOOL_ARGUMENTS',
    )
  })

  it('keeps a root the schema closed itself closed to the allowance list', () => {
    const { guard } = guardFor({ type: 'object', properties: {}, additionalProperties: false })
    expect(textOf(guard.checkArguments('t', { toolCallId: 'c' }))).toContain(
      'fails additionalProperties',
    )
  })

  it('closes silent objects at every depth, inside arrays too', () => {
    const { guard } = guardFor({
      $schema: S2020,
      type: 'object',
      properties: {
        list: { type: 'array', items: { type: 'object', properties: { a: { type: 'number' } } } },
      },
    })
    expect(guard.checkArguments('t', { list: [{ a: 1 }, { a: 2 }] })).toBeUndefined()
    expect(textOf(guard.checkArguments('t', { list: [{ a: 1 }, { a: 2, zz: 3 }] }))).toContain(
      '/list/1/<key of 2 chars> fails unevaluatedProperties',
    )
  })

  it('closes an allOf composition as a whole: every branch’s keys admitted, others refused', () => {
    const schema = {
      $schema: S2020,
      type: 'object',
      allOf: [
        { properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { b: { type: 'number' } } },
      ],
    }
    const { guard } = guardFor(schema)
    expect(guard.checkArguments('t', { a: 'x', b: 1 })).toBeUndefined()
    expect(guard.checkArguments('t', { a: 'x', b: 1, c: 2 })?.code).toBe('ERR_TOOL_ARGUMENTS')
  })

  it('closes oneOf and $ref compositions in 2019-09 by what the matching branch evaluated', () => {
    const { guard } = guardFor({
      $schema: S2019,
      $defs: { base: { properties: { kind: { type: 'string' } }, required: ['kind'] } },
      $ref: '#/$defs/base',
      oneOf: [
        { properties: { kind: { const: 'a' }, a: { type: 'number' } } },
        { properties: { kind: { const: 'b' }, b: { type: 'number' } } },
      ],
    })
    expect(guard.checkArguments('t', { kind: 'a', a: 1 })).toBeUndefined()
    expect(guard.checkArguments('t', { kind: 'b', b: 1 })).toBeUndefined()
    expect(guard.checkArguments('t', { kind: 'a', b: 1 })?.code).toBe('ERR_TOOL_ARGUMENTS')
  })

  it('closes draft-07 compositions (allOf over a $ref to definitions)', () => {
    const { guard } = guardFor({
      $schema: S07,
      definitions: { base: { type: 'object', properties: { a: { type: 'string' } } } },
      allOf: [{ $ref: '#/definitions/base' }, { properties: { b: { type: 'number' } } }],
    })
    expect(guard.checkArguments('t', { a: 'x', b: 1 })).toBeUndefined()
    expect(guard.checkArguments('t', { a: 'x', c: 1 })?.code).toBe('ERR_TOOL_ARGUMENTS')
  })

  it('reads draft-07 $ref siblings as draft-07 does (ignored) and 2019-09 ones as applied', () => {
    const schema = {
      type: 'object',
      properties: { a: { $ref: '#/definitions/s', maxLength: 1 } },
      definitions: { s: { type: 'string' } },
    }
    expect(guardFor({ $schema: S07, ...schema }).guard.checkArguments('t', { a: 'long' })).toBe(
      undefined,
    )
    expect(guardFor(schema).guard.checkArguments('t', { a: 'long' })).toBeUndefined()
    const refusal = guardFor({ $schema: S2019, ...schema }).guard.checkArguments('t', { a: 'long' })
    expect(textOf(refusal)).toContain('/a fails maxLength 1')
  })

  it('leaves objects the schema opens, enumerations and free-form values as published', () => {
    const { guard } = guardFor({
      type: 'object',
      properties: {
        map: { type: 'object', additionalProperties: { type: 'string' } },
        patterned: { type: 'object', patternProperties: { '^x-': { type: 'number' } } },
        fixed: { enum: [{ k: 1 }] },
        free: { description: 'anything' },
      },
    })
    expect(
      guard.checkArguments('t', { map: { any: 'v' }, fixed: { k: 1 }, free: { deep: { x: 1 } } }),
    ).toBeUndefined()
    expect(guard.checkArguments('t', { patterned: { 'x-a': 1 } })).toBeUndefined()
    expect(guard.checkArguments('t', { patterned: { y: 1 } })?.code).toBe('ERR_TOOL_ARGUMENTS')
    expect(guard.checkArguments('t', { map: { any: 1 } })?.code).toBe('ERR_TOOL_ARGUMENTS')
  })

  it('refuses arguments that are not an object, and reads missing arguments as {}', () => {
    const { guard } = guardFor({
      type: 'object',
      properties: { m: { type: 'string' } },
      required: ['m'],
    })
    expect(textOf(guard.checkArguments('t', [1]))).toContain('(root) fails type object')
    expect(guard.checkArguments('t', 'x')?.code).toBe('ERR_TOOL_ARGUMENTS')
    expect(textOf(guard.checkArguments('t', undefined))).toContain('/m fails required')
  })

  it('shows a numeric object key by its length, and an array index as is', () => {
    const { guard } = guardFor({
      type: 'object',
      properties: { l: { type: 'array', items: { type: 'object', properties: {} } } },
    })
    expect(textOf(guard.checkArguments('t', { 123456: 1 }))).toContain('/<key of 6 chars>')
    expect(textOf(guard.checkArguments('t', { l: [{}, { 7: 1 }] }))).toContain(
      '/l/1/<key of 1 chars>',
    )
  })

  it('bounds the refusal whatever the key length or the depth', () => {
    let schema: Record<string, unknown> = { type: 'object', properties: {} }
    let args: Record<string, unknown> = { ['k'.repeat(10_000)]: 1 }
    // 20 levels stay within the default schema depth (48); the pointer they make does not fit.
    for (let i = 0; i < 20; i++) {
      const name = `level${i}-${'p'.repeat(50)}`
      schema = { type: 'object', properties: { [name]: schema } }
      args = { [name]: args }
    }
    const { guard } = guardFor(schema)
    const text = textOf(guard.checkArguments('t', args))
    expect(text).toContain('fails unevaluatedProperties')
    expect(text.length).toBeLessThanOrEqual(MAX_REFUSAL_TEXT)
    expect(text).not.toContain('kkkk')
    expect(text).toContain('/…')
  })

  it('quarantines a tool without a schema; its call gets the unknown tool’s bytes', () => {
    const guard = toolGuard()
    const load = guard.load([{ name: 'bare' }, { name: 'ok', inputSchema: { type: 'object' } }])
    expect(load.served.map((t) => t.name)).toEqual(['ok'])
    expect(load.quarantined).toEqual([
      { name: 'bare', reason: 'ERR_SCHEMA_MISSING', schema: 'input' },
    ])
    const quarantined = guard.checkArguments('bare', {})
    const unknown = guard.checkArguments('nowhere', {})
    expect(quarantined?.code).toBe('ERR_TOOL_QUARANTINED')
    expect(unknown?.code).toBe('ERR_TOOL_UNKNOWN')
    expect(JSON.stringify(quarantined?.result)).toBe(JSON.stringify(unknown?.result))
  })

  it('quarantines a network $ref, a relative one, and keeps one to its own $id', () => {
    const reasons = (inputSchema: unknown) => guardFor(inputSchema).load.quarantined
    expect(reasons({ $ref: 'https://schemas.example.com/x.json' })[0]?.reason).toBe(
      'ERR_SCHEMA_REMOTE_REF',
    )
    expect(reasons({ properties: { a: { $ref: 'other.json#/x' } } })[0]?.reason).toBe(
      'ERR_SCHEMA_REMOTE_REF',
    )
    const local = {
      $schema: S2020,
      $id: 'https://example.com/tool.json',
      type: 'object',
      properties: { a: { $ref: 'https://example.com/tool.json#/$defs/s' } },
      $defs: { s: { type: 'string' } },
    }
    expect(reasons(local)).toEqual([])
  })

  it('quarantines an unsupported dialect, an invalid schema and an unknown keyword', () => {
    const reason = (inputSchema: unknown, options?: Parameters<typeof toolGuard>[0]) =>
      guardFor(inputSchema, options).load.quarantined[0]?.reason
    expect(reason({ $schema: 'http://json-schema.org/draft-04/schema#' })).toBe(
      'ERR_SCHEMA_DIALECT',
    )
    expect(reason({ type: 'object', properties: { a: { type: 'strin' } } })).toBe(
      'ERR_SCHEMA_INVALID',
    )
    expect(reason({ type: 'object', properties: { a: { maxlength: 3 } } })).toBe(
      'ERR_SCHEMA_INVALID',
    )
    expect(
      reason({ type: 'object', properties: { a: { maxlength: 3 } } }, { strictKeywords: false }),
    ).toBe(undefined)
    expect(
      reason({ type: 'object', 'x-mcp-header': 'H', properties: { a: { format: 'color' } } }),
    ).toBe(undefined)
  })

  it('quarantines a schema over the byte, node or depth budget, or over the compile time', () => {
    const big = {
      type: 'object',
      properties: { a: { type: 'string', description: 'd'.repeat(2000) } },
    }
    expect(guardFor(big, { maxSchemaBytes: 1000 }).load.quarantined[0]?.reason).toBe(
      'ERR_SCHEMA_TOO_LARGE',
    )
    expect(guardFor(big, { maxSchemaBytes: 4000 }).load.quarantined).toEqual([])
    let deep: unknown = { type: 'string' }
    for (let i = 0; i < 30; i++) deep = { type: 'object', properties: { a: deep } }
    expect(guardFor(deep, { maxSchemaDepth: 20 }).load.quarantined[0]?.reason).toBe(
      'ERR_SCHEMA_TOO_LARGE',
    )
    expect(guardFor(big, { maxSchemaNodes: 5 }).load.quarantined[0]?.reason).toBe(
      'ERR_SCHEMA_TOO_LARGE',
    )
    let clock = 0
    const now = () => (clock += 50)
    expect(guardFor(big, { maxCompileMs: 10, now }).load.quarantined[0]?.reason).toBe(
      'ERR_SCHEMA_COMPILE_TIME',
    )
    expect(guardFor(big, { maxCompileMs: 100, now }).load.quarantined).toEqual([])
  })

  it('quarantines both definitions of a duplicated name and compiles tools sharing an $id', () => {
    const guard = toolGuard()
    const schema = { $schema: S2020, $id: 'urn:example:same', type: 'object' }
    const load = guard.load([
      { name: 'a', inputSchema: schema },
      { name: 'b', inputSchema: { ...schema, properties: { x: {} } } },
      { name: 'dup', inputSchema: { type: 'object' } },
      { name: 'dup', inputSchema: { type: 'object', properties: { y: {} } } },
    ])
    expect(load.served.map((t) => t.name)).toEqual(['a', 'b'])
    expect(load.quarantined).toEqual([{ name: 'dup', reason: 'ERR_TOOL_DUPLICATE' }])
    expect(guard.checkArguments('b', { x: 1 })).toBeUndefined()
    expect(guard.checkArguments('dup', {})?.code).toBe('ERR_TOOL_QUARANTINED')
  })

  it('replaces the compiled set on every load', () => {
    const guard = toolGuard()
    guard.load([{ name: 'old', inputSchema: { type: 'object' } }])
    guard.load([{ name: 'new', inputSchema: { type: 'object' } }])
    expect(guard.checkArguments('old', {})?.code).toBe('ERR_TOOL_UNKNOWN')
    expect(guard.checkArguments('new', {})).toBeUndefined()
  })

  it('checks structuredContent against the outputSchema; a missing one is refused', () => {
    const guard = toolGuard()
    guard.load(everything.tools)
    const ok = { content: [], structuredContent: { temperature: 1, conditions: 'c', humidity: 2 } }
    expect(guard.checkResult('get-structured-content', ok)).toBeUndefined()
    const missing = guard.checkResult('get-structured-content', { content: [] })
    expect(missing?.code).toBe('ERR_TOOL_RESULT')
    expect(textOf(missing)).toContain('structuredContent is missing')
    const wrong = {
      content: [],
      structuredContent: { temperature: 'hot', conditions: 'c', humidity: 2 },
    }
    const refusal = guard.checkResult('get-structured-content', wrong)
    expect(textOf(refusal)).toContain('/temperature fails type number')
    expect(textOf(refusal)).not.toContain('hot')
    expect(
      guard.checkResult('get-structured-content', { content: [], isError: true }),
    ).toBeUndefined()
    expect(guard.checkResult('echo', { content: [] })).toBeUndefined()
  })

  it('quarantines a tool whose outputSchema cannot be compiled', () => {
    const load = toolGuard().load([
      { name: 'o', inputSchema: { type: 'object' }, outputSchema: { $ref: 'http://x.test/s' } },
    ])
    expect(load.quarantined).toEqual([
      { name: 'o', reason: 'ERR_SCHEMA_REMOTE_REF', schema: 'output' },
    ])
  })

  it('throws at construction on a bad option', () => {
    expect(() => toolGuard({ bogus: 1 } as never)).toThrow(TypeError)
    expect(() => toolGuard({ maxSchemaDepth: 65 })).toThrow(TypeError)
    expect(() => toolGuard({ openTools: 'echo' as never })).toThrow(TypeError)
  })
})
