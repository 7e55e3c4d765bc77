// Differential: the registry's banded `maxLength` / `minLength` (src/string-length.ts) against
// the path they replace, Ajv 8's own keywords on an otherwise identical validator. Same verdict,
// same first error (instance path, keyword, params) and the same rendered refusal through
// checkToolCall, for strings built unit by unit (ASCII, Latin-1, BMP, high and low surrogates,
// so pairs and lone surrogates both occur) at and around every band edge: L, L + 1, 2L, 2L + 1
// for maxLength and M − 1, M, 2M − 2, 2M − 1 for minLength.
import { fc, test } from '@fast-check/vitest'
import Ajv2020Import from 'ajv/dist/2020.js'
import ucs2lengthImport from 'ajv/dist/runtime/ucs2length.js'
import addFormatsImport from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import {
  checkToolCall,
  createSchemaRegistry,
  DRAFT_2020_12,
  resolveInputValidationOptions,
  type SchemaRegistry,
  type SchemaViolation,
} from '../src/index.js'
import { codePointLength } from '../src/string-length.js'

type Ajv = InstanceType<typeof import('ajv/dist/2020.js').default>
const Ajv2020 = ((Ajv2020Import as { default?: unknown }).default ?? Ajv2020Import) as new (
  o: object,
) => Ajv
const addFormats = ((addFormatsImport as { default?: unknown }).default ?? addFormatsImport) as (
  a: Ajv,
) => void
const ucs2length = ((ucs2lengthImport as { default?: unknown }).default ?? ucs2lengthImport) as (
  s: string,
) => number

type Schema = Record<string, unknown>
const options = resolveInputValidationOptions()

/** One code unit each: a pair forms wherever a high surrogate lands before a low one. */
const PAIR = '\ud83d\ude00'
const UNIT = fc.constantFrom(
  'a',
  'Z',
  '-',
  '"',
  '\u00e9',
  '\u4e2d',
  '\u2028',
  '\ud7ff',
  '\ud800',
  '\ud83d',
  '\udbff',
  '\udc00',
  '\ude00',
  '\udfff',
  '\ue000',
)
/**
 * A string of exactly `n` code units: `p` surrogate pairs (0 to all of them) and single units,
 * in a random order, so the all-pairs strings at 2L and 2M − 2 units (where the verdict turns on
 * the count) are drawn as often as random ones.
 */
const stringOfUnits = (n: number) =>
  fc
    .integer({ min: 0, max: Math.floor(n / 2) })
    .chain((p) =>
      fc.tuple(
        fc.array(UNIT, { minLength: n - 2 * p, maxLength: n - 2 * p }),
        fc.array(fc.double({ noNaN: true }), { minLength: n - p, maxLength: n - p }),
        fc.constant(p),
      ),
    )
    .map(([units, order, p]) => {
      const pieces = [...Array.from({ length: p }, () => PAIR), ...units]
      return pieces
        .map((piece, i) => [order[i] as number, piece] as const)
        .sort((a, b) => a[0] - b[0])
        .map(([, piece]) => piece)
        .join('')
    })

// Compiled once per set of constraints (the limits are drawn from a small range): compiling
// two validators per run would spend the test's time in Ajv's compiler.
const compiled = new Map<string, { banded: SchemaRegistry; stock: SchemaRegistry }>()

/** A tool schema with one string property `s` under the given constraints, and its twin. */
function pair(constraints: Schema): { banded: SchemaRegistry; stock: SchemaRegistry } {
  const key = JSON.stringify(constraints)
  const known = compiled.get(key)
  if (known !== undefined) return known
  const schema = lengthSchema(constraints)
  const banded = bandedRegistry(schema)
  const registries = { banded, stock: stockRegistry(schema) }
  compiled.set(key, registries)
  return registries
}

/** The replaced path: Ajv's stock keywords, same options, read as the registry reads them. */
/** A tool schema whose one string property `s` carries `constraints`. */
function lengthSchema(constraints: Schema): Schema {
  return {
    $schema: DRAFT_2020_12,
    $id: 'https://schemas.tollgate.dev/test/lengths.schema.json',
    type: 'object',
    properties: { s: { type: 'string', ...constraints } },
    required: ['s'],
    additionalProperties: false,
  }
}

function bandedRegistry(schema: Schema): SchemaRegistry {
  return createSchemaRegistry([{ file: 'lengths.schema.json', source: 't', schema }])
}

/** The message `build` throws, or `null` when it throws nothing. */
function thrownMessage(build: () => unknown): string | null {
  try {
    build()
    return null
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

function stockRegistry(schema: Schema): SchemaRegistry {
  const ajv = new Ajv2020({ strict: true, allErrors: false, verbose: false })
  addFormats(ajv)
  const validate = ajv.compile(schema)
  const tool = 'lengths'
  return {
    tools: [tool],
    has: (name: unknown) => name === tool,
    validate(_tool: string, args: unknown): SchemaViolation | null {
      if (validate(args)) return null
      const first = validate.errors?.[0]
      if (first === undefined) return { instancePath: '', keyword: 'false schema', params: {} }
      return { instancePath: first.instancePath, keyword: first.keyword, params: first.params }
    },
    schema: () => schema,
    bundled: () => schema,
    source: () => 't',
  }
}

function expectSame(registries: ReturnType<typeof pair>, s: unknown): void {
  const args = { s }
  expect(registries.banded.validate('lengths', args)).toEqual(
    registries.stock.validate('lengths', args),
  )
  const call = { name: 'lengths', arguments: args }
  expect(checkToolCall(registries.banded, call, options)).toEqual(
    checkToolCall(registries.stock, call, options),
  )
}

const limit = fc.integer({ min: 0, max: 12 })
// Fewer limits where two combine with a pattern and a format: each pair of limits is compiled.
const smallLimit = fc.integer({ min: 0, max: 5 })
const maxEdges = (l: number) => [l - 1, l, l + 1, 2 * l - 1, 2 * l, 2 * l + 1, 2 * l + 2]
const minEdges = (m: number) => [m - 2, m - 1, m, m + 1, 2 * m - 2, 2 * m - 1, 2 * m]
const lengthNear = (edges: number[]) =>
  fc.constantFrom(...edges.filter((n) => n >= 0)).chain((n) => stringOfUnits(n))

describe('codePointLength', () => {
  test.prop([fc.array(UNIT, { maxLength: 64 }).map((u) => u.join(''))], { numRuns: 2000 })(
    "counts as Ajv's ucs2length and as the string iterator do",
    (s) => {
      expect(codePointLength(s)).toBe(ucs2length(s))
      expect(codePointLength(s)).toBe([...s].length)
    },
  )

  test.prop([fc.string({ unit: 'binary', maxLength: 64 })], { numRuns: 1000 })(
    "counts arbitrary UTF-16 text as Ajv's ucs2length does",
    (s) => {
      expect(codePointLength(s)).toBe(ucs2length(s))
    },
  )
})

describe('createSchemaRegistry length keywords', () => {
  test.prop([limit.chain((l) => fc.tuple(fc.constant(l), lengthNear(maxEdges(l))))], {
    numRuns: 600,
  })('give the verdict and refusal of Ajv’s maxLength at its band edges', ([l, s]) => {
    expectSame(pair({ maxLength: l }), s)
  })

  test.prop([limit.chain((m) => fc.tuple(fc.constant(m), lengthNear(minEdges(m))))], {
    numRuns: 600,
  })('give the verdict and refusal of Ajv’s minLength at its band edges', ([m, s]) => {
    expectSame(pair({ minLength: m }), s)
  })

  test.prop(
    [
      fc
        .tuple(smallLimit, smallLimit)
        .chain(([a, b]) =>
          fc.tuple(
            fc.constant(Math.min(a, b)),
            fc.constant(Math.max(a, b)),
            fc.boolean(),
            lengthNear([...minEdges(Math.min(a, b)), ...maxEdges(Math.max(a, b))]),
          ),
        ),
    ],
    { numRuns: 400 },
  )(
    'report the first failing constraint Ajv reports beside minLength, pattern and format',
    ([m, l, withFormat, s]) => {
      // A pattern and a format that most of these strings break, so the order of the checks
      // (maxLength, minLength, pattern, format) decides which one is reported.
      const constraints: Schema = { minLength: m, maxLength: l, pattern: '^[a-zZ-]*$' }
      if (withFormat) constraints.format = 'email'
      expectSame(pair(constraints), s)
    },
  )

  it('gives the same verdicts as Ajv at the edges of a 200,000 maxLength', () => {
    const registries = pair({ maxLength: 200_000, minLength: 100_001 })
    const L = 200_000
    for (const s of [
      'a'.repeat(L),
      'a'.repeat(L + 1),
      '\u4e2d'.repeat(L + 1),
      '\ud83d\ude00'.repeat(L / 2),
      `${'\ud83d\ude00'.repeat(L / 2)}a`,
      '\ud83d\ude00'.repeat(L / 2 + 1),
      '\ud83d'.repeat(L + 1),
      `${'\ud83d\ude00'.repeat(L / 2 - 1)}\ude00\ud83d`,
      'a'.repeat(100_000),
      '\ud83d\ude00'.repeat(100_000),
      '\ud83d\ude00'.repeat(100_001),
    ]) {
      expectSame(registries, s)
    }
  })

  it('leaves values that are not strings to the type keyword, as Ajv does', () => {
    const registries = pair({ maxLength: 2, minLength: 1 })
    for (const s of [123, null, ['abc'], { length: 5 }, true]) expectSame(registries, s)
  })

  it('refuses a length limit that is not a non-negative integer at start-up, as Ajv does', () => {
    // Each registry is built on its own: through pair(), the stock one would throw first and
    // the banded keywords would never be asked.
    for (const bad of [-1, 1.5, '3', null]) {
      for (const keyword of ['maxLength', 'minLength']) {
        const schema = lengthSchema({ [keyword]: bad })
        const stock = thrownMessage(() => stockRegistry(schema))
        const banded = thrownMessage(() => bandedRegistry(schema))
        expect(stock).toContain(`/${keyword} must be`)
        expect(banded).toBe(stock)
      }
    }
  })
})
