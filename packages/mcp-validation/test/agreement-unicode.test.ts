// The relation under the two regex readings and the two length units: Ajv (the published side)
// compiles `pattern` with the `u` flag and counts code points; a handler's zod regex runs
// without `u` (the SDK-derived schema drops its flags). Each case names the witness that makes
// the published schema wider, and shows it through the real validators on both sides.
import { fc, test } from '@fast-check/vitest'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { admitsOnlyBmp, checkSchemaAgreement, deriveToolSchemas } from '../src/agreement.js'
import { createSchemaRegistry, DRAFT_2020_12 } from '../src/index.js'

type Schema = Record<string, unknown>
const TAG_PATTERN = '^[^/]{1,8}$'
const EMOJI5 = '😀😀😀😀😀'

const publishedWith = (tag: Schema): Schema => ({
  $schema: DRAFT_2020_12,
  $id: 'https://schemas.tollgate.dev/test/tagged.schema.json',
  type: 'object',
  properties: { tag },
  required: ['tag'],
  unevaluatedProperties: false,
})

async function derivedFor(tag: z.ZodString): Promise<unknown> {
  const server = new McpServer({ name: 't', version: '0' })
  server.registerTool('tagged', { inputSchema: { tag } }, async () => ({ content: [] }))
  return (await deriveToolSchemas(server)).get('tagged')
}

/** A derived schema as the SDK shapes it: no closure keyword. */
const derivedWith = (tag: Schema): Schema => ({
  type: 'object',
  properties: { tag },
  required: ['tag'],
})

const rules = (published: Schema, derived: unknown, unit?: 'code-points' | 'code-units') =>
  checkSchemaAgreement(
    published,
    derived,
    unit === undefined ? {} : { handlerLengthUnit: unit },
  ).findings.map((f) => `${f.rule} ${f.pointer}`)

describe('checkSchemaAgreement on patterns the two regex engines read differently', () => {
  it('flags a negated class the handler reads in code units: five astral characters pass Ajv and fail the handler', async () => {
    const handler = z
      .string()
      .max(64)
      .regex(/^[^/]{1,8}$/)
    const published = publishedWith({ type: 'string', maxLength: 64, pattern: TAG_PATTERN })
    // The witness, through the real validators of both sides.
    const registry = createSchemaRegistry([
      { file: 'tagged.schema.json', source: 'tagged.schema.json', schema: published },
    ])
    expect(registry.validate('tagged', { tag: EMOJI5 })).toBeNull()
    expect(handler.safeParse(EMOJI5).success).toBe(false)
    expect(rules(published, await derivedFor(handler))).toEqual(['published-wider /tag'])
  })

  it('holds for the same bounds when the pattern admits only BMP characters', async () => {
    const handler = z
      .string()
      .max(64)
      .regex(/^[a-z0-9-]{1,8}$/)
    const published = publishedWith({ type: 'string', maxLength: 64, pattern: '^[a-z0-9-]{1,8}$' })
    expect(rules(published, await derivedFor(handler))).toEqual([])
  })

  it('holds when another published conjunct restricts the value to the BMP', async () => {
    const handler = z.string().regex(/^[^/]{1,8}$/)
    const published = publishedWith({
      type: 'string',
      allOf: [{ pattern: TAG_PATTERN }, { pattern: '^[\\u0000-\\uFFFF]*$' }],
    })
    expect(rules(published, await derivedFor(handler))).toEqual([])
  })

  it('flags `.` and \\S as it flags a negated class', () => {
    for (const pattern of ['^.{1,8}$', '^\\S{1,8}$']) {
      const p = publishedWith({ type: 'string', pattern })
      expect(rules(p, derivedWith({ type: 'string', pattern }))).toEqual(['published-wider /tag'])
    }
  })

  it('judges a finite published domain with the handler’s regex, without the u flag', () => {
    const published = publishedWith({ type: 'string', enum: ['😀'] })
    // Under `u`, one astral character is one `.`; without it, two code units.
    expect(rules(published, derivedWith({ type: 'string', pattern: '^.$' }))).toEqual([
      'published-wider /tag',
    ])
    expect(rules(published, derivedWith({ type: 'string', pattern: '^..$' }))).toEqual([])
  })

  it('judges a finite published domain with the handler’s length unit', () => {
    const published = publishedWith({ type: 'string', enum: ['😀😀'] })
    const derived = derivedWith({ type: 'string', maxLength: 3 })
    // Two code points, four UTF-16 code units.
    expect(rules(published, derived, 'code-points')).toEqual([])
    expect(rules(published, derived, 'code-units')).toEqual(['published-wider /tag'])
  })
})

describe('checkSchemaAgreement on string lengths', () => {
  it('agrees with zod 4.6.7, which counts code points as Ajv does', async () => {
    const handler = z.string().max(4)
    expect(handler.safeParse('😀'.repeat(4)).success).toBe(true)
    expect(handler.safeParse('😀'.repeat(5)).success).toBe(false)
    expect(z.string().min(2).safeParse('😀').success).toBe(false)
    const published = publishedWith({ type: 'string', maxLength: 4 })
    expect(rules(published, await derivedFor(handler))).toEqual([])
  })

  it.each([
    // [published tag, derived maxLength, findings] with a handler counting UTF-16 code units
    [{ type: 'string', maxLength: 64 }, 64, ['published-wider /tag']],
    [{ type: 'string', maxLength: 32 }, 64, []],
    [{ type: 'string', maxLength: 33 }, 64, ['published-wider /tag']],
    [{ type: 'string', maxLength: 64, pattern: '^[a-z]{0,64}$' }, 64, []],
  ])('against a code-unit handler: published %j vs maxLength %i gives %j', (tag, max, found) => {
    const derived = derivedWith({ type: 'string', maxLength: max })
    expect(rules(publishedWith(tag), derived, 'code-units')).toEqual(found)
  })

  it('compares minLength directly in either unit (a code point is at least one code unit)', () => {
    const derived = derivedWith({ type: 'string', minLength: 2 })
    for (const unit of ['code-points', 'code-units'] as const) {
      expect(rules(publishedWith({ type: 'string', minLength: 2 }), derived, unit)).toEqual([])
    }
  })

  it('refuses an unknown handlerLengthUnit with a TypeError', () => {
    const check = () =>
      checkSchemaAgreement(publishedWith({}), derivedWith({}), {
        handlerLengthUnit: 'bytes' as never,
      })
    expect(check).toThrow(TypeError)
    expect(check).toThrow(/handlerLengthUnit/)
  })
})

describe('admitsOnlyBmp', () => {
  it.each([
    '^[a-z0-9][a-z0-9-]{0,62}$',
    '^[A-Za-z0-9_-]{22}$',
    '^snap-[a-z0-9]{1,40}$',
    '^[A-Za-z0-9._:-]{1,64}$',
    '^(?:ab|c\\d)+\\.x?$',
    '^[\\u0000-\\uFFFF]*$',
    '^\\w\\s\\x41\\u00e9$',
    '^a+?b{1,2}?c??$',
    '^\\0a$',
    '^[\\d\\-\\.\\b]$',
    '^a{2,}$',
    '^(?:(a)|b)+$',
    '^\\\\$',
    '^a\\$$',
    '^[\\x41-\\u00e9]$',
    '^[a\\]]$',
    '^(a(b))$',
    '^\\n\\r\\f\\v$',
    '^11\\0$',
    '^$',
    '^a?(b)$',
    '^\\d1\\.5$',
    '^ｱ\\u0041$',
    '^a\\\\$',
  ])('recognises %s', (pattern) => {
    expect(admitsOnlyBmp(pattern)).toBe(true)
  })

  it.each([
    '^[^/]{1,8}$',
    '^.{1,8}$',
    '^\\S+$',
    '^\\D$',
    '^\\p{L}+$',
    '^\\u{1F600}$',
    '[a-z]+',
    '^[a-z]+',
    '^a|b$',
    '^(?=a)a$',
    '^(a)\\1$',
    '^😀$',
    '^\\uD83D\\uDE00$',
    '^a\\$',
    'ab$',
    '^\\D0041$',
    '^\\p0041$',
    '^[\\S]$',
    // A surrogate pair escaped past the body's sixth character, a literal astral character
    // inside a class, an unrecognised atom after a quantifier.
    '^prefix\\uD83D\\uDE00$',
    '^[😀]$',
    '^a+.$',
    // A class it does not recognise further in than the body's start (an astral member, a
    // nested `[`, no closing `]`): the answer is false, not a scan that never ends.
    '^a[😀]$',
    '^a[[b]$',
    '^a[b$',
  ])('refuses %s', (pattern) => {
    expect(admitsOnlyBmp(pattern)).toBe(false)
  })

  const alphabet = fc.constantFrom('a', 'b', '0', '-', '/', ' ', 'é', '😀', '\ud83d', '\ude00')
  const strings = fc.array(alphabet, { maxLength: 10 }).map((a) => a.join(''))
  const recognised = fc.constantFrom(
    '^[a-z0-9-]{0,8}$',
    '^(?:a|b0)*$',
    '^[\\u0000-\\uFFFF]{0,3}$',
    '^\\w*\\s?$',
  )
  // Soundness on patterns built from recognised and unrecognised pieces alike: whatever it
  // recognises matches, under the u flag, no string with an astral character, and reads the
  // same without the flag on every string without one.
  const piece = fc.constantFrom(
    ...['a', '0', '-', 'é', '\\d', '\\w', '\\s', '\\.', '\\$', '\\x41', '\\u00e9', '\\t'],
    ...['[a-z]', '[\\u0000-\\uFFFF]', '[\\b]', '[\\d.]', '*', '+', '?', '{1,2}', '{2}', '*?'],
    ...['(?:', '(', ')', '|', '.', '[^a]', '\\D', '\\S', '\\W', '\\p{L}', '\\u{1F600}', '😀'],
    ...[
      '\\uD83D\\uDE00',
      '[\\uD83D\\uDE00]',
      '\ud83d',
      '(?=.)',
      '(?!a)',
      '\\1',
      '^',
      '$',
      '[',
      ']',
    ],
  )
  const built = fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => `^${p.join('')}$`)
  const short = fc.array(alphabet, { maxLength: 2 }).map((a) => a.join(''))
  const astral = fc
    .tuple(short, fc.constantFrom('😀', '\u{10000}', '\u{10FFFF}'), short)
    .map(([a, c, b]) => a + c + b)
  test.prop([built, astral, strings], { numRuns: 5000 })(
    'recognises no pattern whose u-mode reading can match an astral character',
    (pattern, withAstral, s) => {
      let u: RegExp
      try {
        u = new RegExp(pattern, 'u')
      } catch {
        return // Ajv refuses the schema; nothing to compare
      }
      if (!admitsOnlyBmp(pattern)) return
      expect(u.test(withAstral)).toBe(false)
      if ([...s].every((c) => (c.codePointAt(0) ?? 0) <= 0xffff)) {
        expect(new RegExp(pattern).test(s)).toBe(u.test(s))
      }
    },
  )

  test.prop([recognised, strings], { numRuns: 500 })(
    'admits under the u flag only BMP strings, which the handler’s reading admits too',
    (pattern, s) => {
      expect(admitsOnlyBmp(pattern)).toBe(true)
      const u = new RegExp(pattern, 'u').test(s)
      const plain = new RegExp(pattern).test(s)
      const bmp = [...s].every((c) => (c.codePointAt(0) ?? 0) <= 0xffff)
      if (u) expect(plain && bmp).toBe(true)
      // Without astral characters the two readings are one.
      if (bmp) expect(plain).toBe(u)
    },
  )
})
