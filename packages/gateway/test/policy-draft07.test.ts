import { readFileSync } from 'node:fs'
import Ajv07Import from 'ajv'
import addFormatsImport from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { toolGuard, type UpstreamTool } from '../src/tool-guard.js'

// A differential: the tool guard validates draft-07 schemas with the 2019-09 validator after a
// rewrite. The oracle is Ajv's own draft-07 class compiling the schema as published, with no
// rewrite. Over generated arguments that use only declared keys, the opened guard (openTools:
// the rewrite alone) must give the oracle's verdict on every one; the closed guard may only
// refuse more, and on schemas without composition gives the same verdicts. With an undeclared
// key, the oracle and the opened guard admit what the closed guard refuses.

type Ajv07Class = typeof import('ajv').default
const Ajv07 = ((Ajv07Import as { default?: unknown }).default ?? Ajv07Import) as Ajv07Class
const addFormats = ((addFormatsImport as { default?: unknown }).default ?? addFormatsImport) as (
  ajv: InstanceType<Ajv07Class>,
) => void

const everything = JSON.parse(
  readFileSync(new URL('./fixtures/policy-server-everything-tools.json', import.meta.url), 'utf8'),
) as { tools: UpstreamTool[] }

const S07 = 'http://json-schema.org/draft-07/schema#'

// Draft-07 constructs whose reading differs between dialects or that the rewrite touches.
const crafted: UpstreamTool[] = [
  {
    name: 'ref-siblings',
    inputSchema: {
      $schema: S07,
      type: 'object',
      definitions: { short: { type: 'string', maxLength: 3 } },
      properties: { a: { $ref: '#/definitions/short', minLength: 2 }, b: { type: 'integer' } },
      required: ['a'],
    },
  },
  {
    name: 'tuple',
    inputSchema: {
      $schema: S07,
      type: 'object',
      properties: {
        t: {
          type: 'array',
          items: [{ type: 'string' }, { type: 'number' }],
          additionalItems: false,
        },
      },
    },
  },
  {
    name: 'dependencies',
    inputSchema: {
      $schema: S07,
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' }, c: { type: 'boolean' } },
      dependencies: { a: ['b'], c: { required: ['a'] } },
    },
  },
  {
    name: 'conditional',
    inputSchema: {
      $schema: S07,
      type: 'object',
      properties: { kind: { enum: ['x', 'y'] }, n: { type: 'number' } },
      if: { properties: { kind: { const: 'x' } } },
      // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema keyword here
      then: { required: ['n'] },
      else: { not: { required: ['n'] } },
    },
  },
  {
    name: 'composed',
    inputSchema: {
      $schema: S07,
      definitions: { base: { type: 'object', properties: { a: { type: 'string' } } } },
      allOf: [{ $ref: '#/definitions/base' }],
      anyOf: [{ properties: { b: { type: 'number' } } }, { properties: { c: { type: 'null' } } }],
    },
  },
]

// Values of every JSON type, so each declared key is tried with right and wrong types.
const POOL: unknown[] = [
  '',
  'ab',
  'abcd',
  'https://example.com/x',
  'x',
  'y',
  0,
  1,
  2.5,
  -1,
  11,
  true,
  false,
  null,
  [],
  ['s', 1],
  ['s', 1, 2],
  [1, 's'],
  {},
  { a: 'x' },
]

// A deterministic generator (mulberry32), so a failure reproduces.
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function declaredKeys(schema: unknown): string[] {
  const keys = new Set<string>()
  const walk = (node: unknown, depth: number) => {
    if (typeof node !== 'object' || node === null || depth > 3) return
    const properties = (node as { properties?: unknown }).properties
    if (typeof properties === 'object' && properties !== null) {
      for (const k of Object.keys(properties)) keys.add(k)
    }
    for (const v of Object.values(node)) walk(v, depth + 1)
  }
  walk(schema, 0)
  return [...keys]
}

function generate(
  keys: readonly string[],
  next: () => number,
  count: number,
): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [{}]
  for (let i = 0; i < count; i++) {
    const args: Record<string, unknown> = {}
    for (const key of keys) {
      if (next() < 0.6) args[key] = POOL[Math.floor(next() * POOL.length)]
    }
    out.push(args)
  }
  return out
}

describe('toolGuard', () => {
  it('gives Ajv draft-07’s verdict on every generated call that uses declared keys only', () => {
    const tools = [...everything.tools, ...crafted]
    const closed = toolGuard()
    const open = toolGuard({ openTools: tools.map((t) => t.name) })
    expect(closed.load(tools).quarantined).toEqual([])
    expect(open.load(tools).quarantined).toEqual([])
    const oracle = new Ajv07({ strict: false, logger: false })
    addFormats(oracle)
    const next = random(0x7011)
    let admitted = 0
    let refused = 0
    for (const tool of tools) {
      const reference = oracle.compile(tool.inputSchema as object)
      // A key declared only in an anyOf branch that failed is not evaluated: closing refuses
      // it, the published schema does not. Elsewhere closing changes no verdict.
      const composed = tool.name === 'composed'
      for (const args of generate(declaredKeys(tool.inputSchema), next, 150)) {
        const expected = reference(args)
        const opened = open.checkArguments(tool.name, args) === undefined
        const shut = closed.checkArguments(tool.name, args) === undefined
        if (opened !== expected || (shut && !opened) || (!composed && shut !== opened)) {
          throw new Error(`${tool.name} ${JSON.stringify(args)}: draft-07 says ${expected}`)
        }
        if (expected) admitted++
        else refused++
      }
    }
    // The corpus exercises both verdicts.
    expect(admitted).toBeGreaterThan(200)
    expect(refused).toBeGreaterThan(200)
  })

  it('refuses an undeclared key that draft-07 and the opened guard admit', () => {
    const tools = [...everything.tools, ...crafted]
    const closed = toolGuard({ allowedExtraKeys: [] })
    const open = toolGuard({ openTools: tools.map((t) => t.name) })
    closed.load(tools)
    open.load(tools)
    const oracle = new Ajv07({ strict: false, logger: false })
    addFormats(oracle)
    const next = random(0x7012)
    let compared = 0
    for (const tool of tools) {
      const reference = oracle.compile(tool.inputSchema as object)
      for (const args of generate(declaredKeys(tool.inputSchema), next, 50)) {
        if (!reference(args) || closed.checkArguments(tool.name, args) !== undefined) continue
        const extended = { ...args, undeclared: 1 }
        expect(reference(extended)).toBe(true)
        expect(open.checkArguments(tool.name, extended)).toBeUndefined()
        expect(closed.checkArguments(tool.name, extended)?.code).toBe('ERR_TOOL_ARGUMENTS')
        compared++
      }
    }
    expect(compared).toBeGreaterThan(100)
  })
})
