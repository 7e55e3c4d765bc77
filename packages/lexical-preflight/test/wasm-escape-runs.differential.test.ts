import { fc, test } from '@fast-check/vitest'
import { countJson } from '@tollgate/test-kit/json-count'
import { strictJsonParse } from '@tollgate/test-kit/strict-json'
import { describe, expect, it } from 'vitest'
import { resolvePreflightOptions } from '../src/options.js'
import { PreflightScanner } from '../src/scanner.js'
import { scannerModule } from '../src/wasm-instance.js'
import { WasmPreflightScanner } from '../src/wasm-scanner.js'
import { both as bothOf, cutsOf, outcome, type ScannerFactory } from './helpers/differential.js'

// Escape-dense strings in the WebAssembly scanner: after an escape it finds the next byte that
// is not plain ASCII interior with one 32-byte compare and keeps that block's bits across the
// escapes in it (assembly/scanner.ts, specialMask in assembly/bytes.ts). A bit skipped or read
// from a stale block would admit a control byte, a bad escape or a string past its limit, so
// these texts put escapes, quotes, control and non-ASCII bytes at every offset of a block, cut
// anywhere, under string limits that end inside a block. Judged against the JS scanner it
// replaces (code, offset, limit, observed and the push that threw) and, for texts the strict
// reference parses, against JSON.parse and a counting walk.

const wasm = scannerModule()
const subject: ScannerFactory = (options) => new WasmPreflightScanner(options, wasm!)
const reference: ScannerFactory = (options) => new PreflightScanner(options)
const WIDE = { maxDepth: 1_000_000, maxNodes: 10_000_000, maxBytes: 10_000_000 }

const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0))

// String pieces as raw bytes (one char per byte): escapes weighted heavily, then plain runs of
// every length around the 32-byte block, then what must stop the skip.
const hex = fc.constantFrom(...'0123456789abcdefABCDEF')
const escapeSeq = fc.oneof(
  fc.constantFrom('\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t'),
  fc.tuple(hex, hex, hex, hex).map((h) => `\\u${h.join('')}`),
)
const plain = fc.integer({ min: 1, max: 70 }).map((k) => 'abcdefghij'.repeat(7).slice(0, k))
const stopper = fc.constantFrom(
  '\\x', // a bad escape
  '\\u12g4', // a bad hex digit
  '\\', // a backslash before whatever follows
  '\x01', // a raw control byte
  '\x1f',
  '"', // a quote: the string ends early
  '\xc3\xa9', // é, well-formed
  '\xe4\xb8\xad', // 中
  '\xf0\x9f\x98\x80', // 😀
  '\xc3', // a truncated sequence
  '\xff', // never UTF-8
  '\x7f',
)
const piece = fc.oneof(
  { arbitrary: escapeSeq, weight: 8 },
  { arbitrary: plain, weight: 3 },
  { arbitrary: stopper, weight: 1 },
)
const body = fc.array(piece, { maxLength: 60 }).map((ps) => ps.join(''))
const valid = fc.array(fc.oneof({ arbitrary: escapeSeq, weight: 4 }, plain), { maxLength: 60 })

/** An object of escape-dense keys and values, and an array of them, as raw bytes. */
const doc = (bodies: string[]) =>
  latin1(
    `{${bodies.map((b, k) => `"k${k}${b.slice(0, 9)}":"${b}"`).join(',')},"z":[${bodies.map((b) => `"${b}"`).join(',')}]}`,
  )

const stringLimit = fc.oneof(
  fc.constant(Number.POSITIVE_INFINITY),
  fc.integer({ min: 0, max: 400 }),
)

describe('WebAssembly scanner on escape-dense strings (differential against the JS scanner)', () => {
  it('instantiates on this Node', () => {
    expect(wasm).not.toBeNull()
  })

  it('gives the JS outcome for every stopping byte at every offset of an escape run, cut there', () => {
    // 96 bytes of back-to-back escapes and short plain runs: three 32-byte blocks at any start.
    const run = '\\n\\"a\\\\\\u00e9b\\/\\tcd\\u12AB\\r\\b\\fxyz'.repeat(4).slice(0, 96)
    const bytes = latin1(run)
    let tried = 0
    for (let at = 0; at < bytes.length; at++) {
      for (const byte of [0x01, 0x1f, 0x22, 0x5c, 0x7f, 0x80, 0xc3, 0xff, 0x67, 0x75]) {
        const body = bytes.slice()
        body[at] = byte
        const text = new Uint8Array(body.length + 4)
        text.set(latin1('["'))
        text.set(body, 2)
        text.set(latin1('"]'), body.length + 2)
        for (const cuts of [[], [at + 2], [at + 1, at + 3]]) {
          for (const maxStringBytes of [Number.POSITIVE_INFINITY, at, at + 1, 64]) {
            const { got, want } = bothOf(subject, reference, text, cuts, WIDE, { maxStringBytes })
            expect({ written: at, byte, cuts, maxStringBytes, ...got }).toEqual({
              written: at,
              byte,
              cuts,
              maxStringBytes,
              ...want,
            })
            tried++
          }
        }
      }
    }
    expect(tried).toBe(96 * 10 * 3 * 4)
  })

  test.prop(
    [
      fc.array(body, { minLength: 1, maxLength: 6 }),
      fc.array(fc.nat(), { maxLength: 8 }),
      stringLimit,
    ],
    { numRuns: 1500 },
  )(
    'gives the JS outcome on escape-dense texts under any chunking and string limit',
    (bodies, raw, max) => {
      const bytes = doc(bodies)
      const { got, want } = bothOf(subject, reference, bytes, cutsOf(raw, bytes.length), WIDE, {
        maxStringBytes: max,
      })
      expect(got).toEqual(want)
    },
  )

  test.prop([fc.array(body, { minLength: 1, maxLength: 3 })], { numRuns: 60 })(
    'gives the JS outcome at every two-chunk split of an escape-dense text',
    (bodies) => {
      const bytes = doc(bodies).subarray(0, 400)
      for (let cut = 0; cut <= bytes.length; cut++) {
        const { got, want } = bothOf(subject, reference, bytes, [cut], WIDE, {})
        expect({ cut, ...got }).toEqual({ cut, ...want })
      }
    },
  )

  test.prop(
    [fc.array(valid, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 8 })],
    { numRuns: 800 },
  )(
    'admits well-formed escape-dense texts with the counts of JSON.parse and a counting walk',
    (parts, raw) => {
      const bytes = doc(parts.map((p) => p.join('')))
      const parsed = strictJsonParse(bytes)
      // Two keys can decode alike; JSON.parse then keeps one, and the walk counts fewer.
      fc.pre(parsed.ok && Object.keys(parsed.value as object).length === parts.length + 1)
      const want = countJson(parsed.ok ? parsed.value : null)!
      const got = outcome(subject(resolvePreflightOptions(WIDE)), bytes, cutsOf(raw, bytes.length))
      expect(got).toMatchObject({
        ok: true,
        nodes: want.nodes,
        depth: want.depth,
        bytes: bytes.length,
      })
    },
  )

  test.prop([fc.array(body, { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 40 })], {
    numRuns: 40,
  })('gives the JS outcome on escape runs that straddle the 64 KiB piece end', (bodies, shift) => {
    // A padding string puts the escape-dense strings across byte 65,536 at any of 40 offsets.
    const pad = 'p'.repeat(65_536 - 40 + shift)
    const inner = doc(bodies)
    const bytes = new Uint8Array(inner.length + pad.length + 5)
    bytes.set(latin1(`["${pad}",`))
    bytes.set(inner, pad.length + 4)
    bytes[bytes.length - 1] = 0x5d
    const { got, want } = bothOf(subject, reference, bytes, [], WIDE, {})
    expect(got).toEqual(want)
  })
})
