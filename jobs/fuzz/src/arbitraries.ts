import fc from 'fast-check'

// Code units chosen to hit the costly corners of JSON encoding: ASCII, the escaped controls,
// `"` and `\`, U+2028/U+2029, 2- and 3-byte UTF-8, lone and paired surrogates.
const codeUnit = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0x1f }) },
  { weight: 1, arbitrary: fc.constantFrom(0x22, 0x5c, 0x7f, 0x2028, 0x2029, 0xfeff) },
  { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0x7ff }) },
  { weight: 2, arbitrary: fc.integer({ min: 0x800, max: 0xffff }) },
  { weight: 2, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }) },
)

/** Strings of arbitrary UTF-16 code units (lone surrogates included), mostly short. */
export const anyString: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 8, arbitrary: fc.array(codeUnit, { maxLength: 24 }) },
    // Long strings cross the 4,096-code-unit charging chunk, with a pair split on the edge.
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 4_090, max: 8_200 }), fc.array(codeUnit, { maxLength: 8 }))
        .map(([n, tail]) => [...Array<number>(n).fill(0x61), 0xd83d, 0xde00, ...tail]),
    },
  )
  .map((units) => {
    let out = ''
    for (const unit of units) out += String.fromCharCode(unit)
    return out
  })

/** Finite numbers, with the corners of `JSON.stringify`'s number formatting. */
export const anyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(
    -0,
    0,
    1e21,
    1e-7,
    5e-324,
    -5e-324,
    Number.MAX_VALUE,
    Number.MIN_SAFE_INTEGER,
    0.1,
    123456789012345680000,
  ),
)

const scalar = fc.oneof(anyString, anyNumber, fc.boolean(), fc.constant(null))

/**
 * JSON values as a server handler might return them: scalars, arrays and plain objects, with
 * object properties whose value is `undefined` (which `JSON.stringify` skips).
 */
export const anyJsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 6 }),
    fc
      .array(
        fc.tuple(
          anyString,
          fc.oneof({ weight: 6, arbitrary: tie('value') }, fc.constant(undefined)),
        ),
        { maxLength: 6 },
      )
      .map((entries) => {
        const out: Record<string, unknown> = {}
        for (const [key, value] of entries) {
          // Own data properties only, as JSON.parse makes them (no setter for __proto__).
          Object.defineProperty(out, key, {
            value,
            enumerable: true,
            writable: true,
            configurable: true,
          })
        }
        return out
      }),
  ),
})).value

const encoder = new TextEncoder()

// Insignificant whitespace JSON allows, and look-alikes it does not.
const WHITESPACE = [' ', '\t', '\n', '\r', '  ']

/** The compact encoding of a JSON value with optional whitespace sprinkled between tokens. */
const documentFromValue: fc.Arbitrary<Uint8Array> = fc
  .tuple(anyJsonValue, fc.option(fc.integer({ min: 0, max: 2 ** 31 }), { nil: undefined }))
  .map(([value, spacing]) => {
    const text = JSON.stringify(value) ?? 'null'
    if (spacing === undefined) return encoder.encode(text)
    // Deterministic spacing from the seed: whitespace after structural characters.
    let state = spacing
    let spaced = ''
    let inString = false
    for (let i = 0; i < text.length; i++) {
      const ch = text[i] ?? ''
      spaced += ch
      if (ch === '"' && !isEscaped(text, i)) inString = !inString
      if (!inString && '[]{},:'.includes(ch)) {
        state = (state * 1_103_515_245 + 12_345) % 2 ** 31
        if (state % 3 === 0) spaced += WHITESPACE[state % WHITESPACE.length]
      }
    }
    return encoder.encode(spaced)
  })

function isEscaped(text: string, index: number): boolean {
  let backslashes = 0
  for (let i = index - 1; i >= 0 && text[i] === '\\'; i--) backslashes++
  return backslashes % 2 === 1
}

/** Nesting near the default depth limit of 64, valid or cut short. */
const deepDocument: fc.Arbitrary<Uint8Array> = fc
  .tuple(fc.integer({ min: 60, max: 70 }), fc.boolean(), fc.boolean())
  .map(([depth, objects, complete]) => {
    const open = objects ? '{"k":' : '['
    const close = objects ? '}' : ']'
    const inner = objects ? '1' : ''
    const text = open.repeat(depth) + inner + close.repeat(complete ? depth : depth - 1)
    return encoder.encode(text)
  })

/** Bytes worth inserting: grammar characters, number parts, bad whitespace, bad UTF-8. */
const INTERESTING: readonly (readonly number[])[] = [
  ...'{}[],:"\\0123456789-+.eEtrufalsn /bfnrtu'.split('').map((c) => [c.charCodeAt(0)]),
  [0x09],
  [0x0a],
  [0x0d],
  [0x0c],
  [0x0b],
  [0x00],
  [0x1f],
  [0x7f],
  [0xc2, 0xa0],
  [0xef, 0xbb, 0xbf],
  [0xe2, 0x80, 0xa8],
  [0x80],
  [0xbf],
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0x80],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf0, 0x80, 0x80, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf5],
  [0xff],
  [0xc3],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xf0, 0x9f, 0x98, 0x80],
]

type Mutation =
  | { readonly op: 'flip'; readonly at: number; readonly bit: number }
  | { readonly op: 'insert'; readonly at: number; readonly bytes: readonly number[] }
  | { readonly op: 'delete'; readonly at: number; readonly length: number }
  | { readonly op: 'duplicate'; readonly at: number; readonly length: number }
  | { readonly op: 'byte'; readonly at: number; readonly value: number }

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    op: fc.constant('flip' as const),
    at: fc.nat(),
    bit: fc.integer({ min: 0, max: 7 }),
  }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.constantFrom(...INTERESTING),
  }),
  fc.record({
    op: fc.constant('delete' as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 4 }),
  }),
  fc.record({
    op: fc.constant('duplicate' as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 8 }),
  }),
  fc.record({
    op: fc.constant('byte' as const),
    at: fc.nat(),
    value: fc.integer({ min: 0, max: 255 }),
  }),
)

/** Applies byte-level mutations; positions wrap around the current length. */
export function mutate(bytes: Uint8Array, mutations: readonly Mutation[]): Uint8Array {
  let out = [...bytes]
  for (const m of mutations) {
    const at = out.length === 0 ? 0 : m.at % (out.length + 1)
    switch (m.op) {
      case 'flip':
        if (at < out.length) out[at] = (out[at] ?? 0) ^ (1 << m.bit)
        break
      case 'insert':
        out.splice(at, 0, ...m.bytes)
        break
      case 'delete':
        out.splice(at, m.length)
        break
      case 'duplicate':
        out.splice(at, 0, ...out.slice(at, at + m.length))
        break
      case 'byte':
        if (at < out.length) out[at] = m.value
        else out.push(m.value)
        break
    }
  }
  if (out.length > 1 << 20) out = out.slice(0, 1 << 20)
  return Uint8Array.from(out)
}

/**
 * JSON documents as bytes: valid encodings of generated values (half the time), the same
 * mutated at the byte level, nesting at the depth limit, and raw random bytes.
 */
export const anyDocument: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 4, arbitrary: documentFromValue },
  {
    weight: 4,
    arbitrary: fc
      .tuple(documentFromValue, fc.array(mutation, { minLength: 1, maxLength: 4 }))
      .map(([doc, mutations]) => mutate(doc, mutations)),
  },
  { weight: 1, arbitrary: deepDocument },
  {
    weight: 1,
    arbitrary: fc
      .tuple(deepDocument, fc.array(mutation, { minLength: 1, maxLength: 2 }))
      .map(([doc, mutations]) => mutate(doc, mutations)),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 32 }) },
)

/**
 * Split points for feeding `length` bytes in chunks: sorted, distinct offsets strictly inside
 * the input. Drawn as fractions so they stay meaningful when the input shrinks.
 */
export const anySplits: fc.Arbitrary<readonly number[]> = fc.oneof(
  // Unbiased: fast-check's default bias favours the bounds, which would put most split
  // points at 0 or 1, outside the input, and leave chunk edges mostly untested.
  fc.array(
    fc.noBias(fc.integer({ min: 1, max: 999_999 })).map((n) => n / 1_000_000),
    {
      minLength: 1,
      maxLength: 12,
    },
  ),
  fc.constant([] as number[]),
)

/** Turns fractional split points into chunks of `bytes`. Offsets outside (0, length) are dropped. */
export function chunksOf(bytes: Uint8Array, splits: readonly number[]): Uint8Array[] {
  const offsets = [...new Set(splits.map((f) => Math.floor(f * bytes.length)))]
    .filter((o) => o > 0 && o < bytes.length)
    .sort((a, b) => a - b)
  const chunks: Uint8Array[] = []
  let start = 0
  for (const offset of offsets) {
    chunks.push(bytes.subarray(start, offset))
    start = offset
  }
  chunks.push(bytes.subarray(start))
  return chunks
}

/** Every single-byte chunking of `bytes` is too many to try; these are the deterministic ones. */
export function bytewiseChunks(bytes: Uint8Array): Uint8Array[] {
  return Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))
}
