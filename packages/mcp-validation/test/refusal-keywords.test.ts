// What an arguments refusal says for each keyword the schemas may use, and at the edges of its
// fragments: the limit each keyword reports, the key a key keyword names, a pointer at its
// byte cap, a root pointer, keys that need JSON Pointer escapes. Through `checkToolCall` (the
// function the decorator answers from) on a registry built inside the first test, so a
// mutant of the keyword tables changes an asserted refusal.
import { describe, expect, it } from 'vitest'
import { boundedLimit } from '../src/bounded-text.js'
import {
  boundedPointer,
  checkToolCall,
  createSchemaRegistry,
  DRAFT_2020_12,
  MAX_LIMIT_BYTES,
  MAX_NAME_BYTES,
  MAX_POINTER_BYTES,
  REUSED_ID_ERROR,
  renderArgumentsRefusal,
  resolveInputValidationOptions,
  type SchemaRegistry,
  UNKNOWN_TOOL_ERROR,
} from '../src/index.js'

const TOOL = 'kw'
let built: SchemaRegistry | undefined
// Built on first use, inside a test (compiling takes seconds on a loaded machine: once).
const registry = (): SchemaRegistry =>
  (built ??= createSchemaRegistry([
    {
      file: `${TOOL}.schema.json`,
      source: `${TOOL}.schema.json`,
      schema: {
        $schema: DRAFT_2020_12,
        $id: 'https://x.test/kw.schema.json',
        type: 'object',
        properties: {
          maxItems: { type: 'array', maxItems: 1 },
          minItems: { type: 'array', minItems: 2 },
          maxProperties: { type: 'object', maxProperties: 1 },
          minProperties: { type: 'object', minProperties: 2 },
          maximum: { type: 'number', maximum: 5 },
          minimum: { type: 'number', minimum: 5 },
          exclusiveMaximum: { type: 'number', exclusiveMaximum: 5 },
          exclusiveMinimum: { type: 'number', exclusiveMinimum: 5 },
          multipleOf: { type: 'number', multipleOf: 3 },
          format: { type: 'string', format: 'email' },
          const: { const: 'x' },
          maxLength: { type: 'string', maxLength: 2 },
          minLength: { type: 'string', minLength: 2 },
          closed: { type: 'object', properties: { a: {} }, additionalProperties: false },
          dependent: { type: 'object', dependentRequired: { a: ['b'] } },
          needs: { type: 'object', properties: { r: {} }, required: ['r'] },
          names: { type: 'object', propertyNames: { maxLength: 2 } },
          open: { type: 'object', additionalProperties: { type: 'string', maxLength: 1 } },
        },
        additionalProperties: false,
      },
    },
  ]))

const options = resolveInputValidationOptions()
const refusalOf = (args: unknown, opts = options) => {
  const verdict = checkToolCall(registry(), { name: TOOL, arguments: args }, opts)
  if (verdict.ok || verdict.error.code !== 'ERR_TOOL_ARGUMENTS') throw new Error('not refused')
  return verdict.error.refusal
}

describe('checkToolCall on every limit keyword', () => {
  it.each<[string, unknown, string]>([
    ['maxItems', [1, 2], '1'],
    ['minItems', [1], '2'],
    ['maxProperties', { a: 1, b: 2 }, '1'],
    ['minProperties', { a: 1 }, '2'],
    ['maximum', 6, '5'],
    ['minimum', 4, '5'],
    ['exclusiveMaximum', 5, '5'],
    ['exclusiveMinimum', 5, '5'],
    ['multipleOf', 4, '3'],
    ['format', 'not-an-email', '"email"'],
    ['const', 'y', '"x"'],
    ['maxLength', 'abc', '2'],
    ['minLength', 'a', '2'],
  ])('reports %s with the schema limit', (keyword, value, limit) => {
    expect(refusalOf({ [keyword]: value })).toEqual({
      kind: 'schema',
      keyword,
      limit,
      pointer: `/${keyword}`,
    })
  })
})

describe('checkToolCall on key keywords', () => {
  it('names the extra key of additionalProperties and the missing key of required and dependentRequired', () => {
    expect(refusalOf({ needs: {} })).toEqual({
      kind: 'schema',
      keyword: 'required',
      limit: undefined,
      pointer: '/needs/r',
    })
    expect(refusalOf({ closed: { a: 1, zz: 1 } })).toEqual({
      kind: 'schema',
      keyword: 'additionalProperties',
      limit: 'false',
      pointer: '/closed/zz',
    })
    expect(refusalOf({ dependent: { a: 1 } })).toEqual({
      kind: 'schema',
      keyword: 'dependentRequired',
      limit: undefined,
      pointer: '/dependent/b',
    })
  })

  it('decodes ~1 and ~0 of the instance path and escapes the key again in the pointer', () => {
    expect(refusalOf({ open: { 'a/b~c': 'xy' } })).toEqual({
      kind: 'schema',
      keyword: 'maxLength',
      limit: '1',
      pointer: '/open/a~1b~0c',
    })
  })
})

describe('checkToolCall on bounds at the root', () => {
  it('reports a root-level bound with the empty pointer, rendered as (root)', () => {
    const tight = resolveInputValidationOptions({ maxBytes: 8 })
    const refusal = refusalOf('x'.repeat(20), tight)
    expect(refusal).toMatchObject({ kind: 'bounds', code: 'ERR_JSON_TOO_LARGE', pointer: '' })
    expect(renderArgumentsRefusal(TOOL, refusal).content[0].text).toBe(
      'Invalid arguments for tool kw: (root) exceeds maxBytes 8 (ERR_JSON_TOO_LARGE)',
    )
  })

  it('names the option of each structural bound passed', () => {
    const shallow = resolveInputValidationOptions({ maxDepth: 2 })
    expect(refusalOf({ open: { a: [] } }, shallow)).toMatchObject({
      code: 'ERR_JSON_TOO_DEEP',
      option: 'maxDepth',
      limit: 2,
    })
    const few = resolveInputValidationOptions({ maxNodes: 4 })
    expect(refusalOf({ a: 1, b: 2 }, few)).toMatchObject({
      code: 'ERR_JSON_TOO_MANY_NODES',
      option: 'maxNodes',
      limit: 4,
    })
  })

  it('lets an error that is not a refusal out of the charge instead of answering it', () => {
    const hostile = Object.defineProperty({}, 'q', {
      enumerable: true,
      get() {
        throw new RangeError('getter')
      },
    })
    expect(() => checkToolCall(registry(), { name: TOOL, arguments: hostile }, options)).toThrow(
      RangeError,
    )
  })
})

describe('renderArgumentsRefusal without a limit', () => {
  it('names the keyword alone when the schema keyword has no limit', () => {
    const refusal = refusalOf({ dependent: { a: 1 } })
    expect(renderArgumentsRefusal(TOOL, refusal).content[0].text).toBe(
      'Invalid arguments for tool kw: /dependent/b fails dependentRequired',
    )
  })
})

describe('the byte caps of each fragment', () => {
  // "/…" takes 4 bytes (the ellipsis is 3 in UTF-8), reserved so a cut pointer fits too.
  const RESERVE = 4
  it('keeps a pointer of exactly MAX_POINTER_BYTES - 4 bytes and cuts one a byte longer', () => {
    // Four 63-character keys (64 bytes each with the slash), then one sized to the cap.
    const head = ['a', 'b', 'c', 'd'].map((c) => c.repeat(63))
    const fits = boundedPointer(head)
    const room = MAX_POINTER_BYTES - RESERVE - Buffer.byteLength(fits)
    const atCap = boundedPointer([...head, 'e'.repeat(room - 1)])
    expect(Buffer.byteLength(atCap)).toBe(MAX_POINTER_BYTES - RESERVE)
    expect(atCap.endsWith('e')).toBe(true)
    expect(boundedPointer([...head, 'e'.repeat(room)])).toBe(`${fits}/…`)
  })

  it('keeps a limit of exactly MAX_LIMIT_BYTES and reports one a byte longer by length', () => {
    // Digits need no escape, so the JSON text's length is its size in the refusal.
    const atCap = [10, ...new Array(98).fill(1)]
    expect(JSON.stringify(atCap)).toHaveLength(MAX_LIMIT_BYTES)
    expect(boundedLimit(atCap)).toBe(JSON.stringify(atCap))
    const over = [100, ...new Array(98).fill(1)]
    expect(boundedLimit(over)).toBe(`<${MAX_LIMIT_BYTES + 1} chars>`)
  })

  it('caps a name at 64 characters escaped to two bytes each', () => {
    expect(MAX_NAME_BYTES).toBe(128)
  })
})

describe('the fixed JSON-RPC errors', () => {
  it('are the codes and messages the README names', () => {
    expect(UNKNOWN_TOOL_ERROR).toEqual({ code: -32602, message: 'Unknown tool' })
    expect(REUSED_ID_ERROR).toEqual({ code: -32600, message: 'Request id already in use' })
  })
})
