import { fc, test } from '@fast-check/vitest'
import { describe, expect, it } from 'vitest'
import type { PreflightPolicies } from '../src/options.js'
import { PreflightScanner } from '../src/scanner.js'
import { acquireKeyModule } from '../src/wasm-instance.js'
import { WasmPreflightScanner } from '../src/wasm-scanner.js'
import { both as bothOf, cutsOf, encode, type ScannerFactory } from './helpers/differential.js'

// The key policies of the WebAssembly scanner (assembly/keys.ts) against the JS scanner's
// (src/key-policy.ts) and against JSON.parse: objects whose keys repeat in every spelling JSON
// allows (raw UTF-8, \uXXXX in either case, the short escapes, surrogate pairs escaped or raw,
// lone surrogates), nested deep, cut anywhere and stretched past the 64 KiB piece. The same
// outcome (code, offset, push), and the verdict JSON.parse implies: a duplicate exactly when
// the parsed objects hold fewer keys than the text wrote.

const subject: ScannerFactory = (options) => new WasmPreflightScanner(options, acquireKeyModule()!)
const reference: ScannerFactory = (options) => new PreflightScanner(options)
const WIDE = { maxDepth: 1_000_000, maxNodes: 10_000_000, maxBytes: 10_000_000 }
const DUP: PreflightPolicies = { duplicateKeys: 'refuse' }
const PROTO: PreflightPolicies = { protoKeys: 'refuse' }
const KEYS: PreflightPolicies = { duplicateKeys: 'refuse', protoKeys: 'refuse' }

type Tree = { obj: [string, Tree][] } | { arr: Tree[] } | { leaf: unknown }

// Few distinct keys, so repeats are common; each is written in a spelling drawn per character.
const KEY_TEXT = [
  'a',
  'b',
  'ab',
  'é',
  '中',
  '😀',
  '\ud83d',
  '\ude00',
  '"',
  '\\',
  '/',
  '\n\t',
  '',
  '__proto__',
  'constructor',
  'prototype',
  'k'.repeat(40),
]
const SHORT: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
}

const hex4 = (u: number, upper: boolean) => {
  const h = u.toString(16).padStart(4, '0')
  return `\\u${upper ? h.toUpperCase() : h}`
}

/** `key` as a JSON string body, each character spelled by the next form of `forms`. */
function spell(key: string, forms: number[], at: { k: number }): string {
  let out = ''
  for (const ch of key) {
    const form = forms.length === 0 ? 0 : (forms[at.k++ % forms.length] as number) % 4
    const cp = ch.codePointAt(0) as number
    const lone = cp >= 0xd800 && cp <= 0xdfff
    const mustEscape = lone || cp < 0x20 || ch === '"' || ch === '\\'
    if (form === 3 && SHORT[ch] !== undefined) out += SHORT[ch]
    else if (form === 0 && !mustEscape) out += ch
    else if (cp > 0xffff) {
      for (let j = 0; j < ch.length; j++) out += hex4(ch.charCodeAt(j), form === 2)
    } else if (form === 0 && SHORT[ch] !== undefined) out += SHORT[ch]
    else out += hex4(cp, form === 2)
  }
  return out
}

function render(t: Tree, forms: number[], at: { k: number }): string {
  if ('leaf' in t) return JSON.stringify(t.leaf)
  if ('arr' in t) return `[${t.arr.map((v) => render(v, forms, at)).join(',')}]`
  return `{${t.obj.map(([k, v]) => `"${spell(k, forms, at)}":${render(v, forms, at)}`).join(',')}}`
}

const tree: fc.Arbitrary<Tree> = fc.letrec<{ t: Tree }>((tie) => ({
  t: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.constant(null))
      .map((leaf) => ({ leaf })),
    fc.array(tie('t'), { maxLength: 4 }).map((arr) => ({ arr })),
    fc
      .array(fc.tuple(fc.constantFrom(...KEY_TEXT), tie('t')), { maxLength: 6 })
      .map((obj) => ({ obj })),
  ),
})).t

/** `inner` under `d` levels of objects and arrays, each object holding a key before and after. */
const nest = (d: number, inner: Tree): Tree => {
  let t = inner
  for (let k = 0; k < d; k++) {
    t =
      k % 3 === 2
        ? { arr: [t] }
        : {
            obj: [
              ['a', { leaf: k }],
              [k % 2 === 0 ? 'constructor' : 'b', t],
              ['c', { leaf: k }],
            ],
          }
  }
  return t
}
const deepTree = fc.tuple(fc.integer({ min: 20, max: 120 }), tree).map(([d, t]) => nest(d, t))

/** Keys written in the trees of a parsed value (JSON.parse keeps the last of a repeat). */
function keysParsed(v: unknown): number {
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + keysParsed(x), 0)
  if (v === null || typeof v !== 'object') return 0
  return Object.entries(v).reduce((n, [, x]) => n + 1 + keysParsed(x), 0)
}

function keysWritten(t: Tree): number {
  if ('leaf' in t) return 0
  if ('arr' in t) return t.arr.reduce((n, x) => n + keysWritten(x), 0)
  return t.obj.reduce((n, [, x]) => n + 1 + keysWritten(x), 0)
}

/** Whether `t` has `__proto__` anywhere or `prototype` in the object value of `constructor`. */
function hasProto(t: Tree, ctorValue = false): boolean {
  if ('leaf' in t) return false
  if ('arr' in t) return t.arr.some((x) => hasProto(x))
  return t.obj.some(
    ([k, v]) =>
      k === '__proto__' ||
      (k === 'prototype' && ctorValue) ||
      hasProto(v, k === 'constructor' && 'obj' in v),
  )
}

/** The outcome of both scanners, asserted equal, and the code (or 'ok') JSON.parse implies. */
function judged(text: string, cuts: readonly number[], policies: PreflightPolicies) {
  const bytes = encode(text)
  const { got, want } = bothOf(subject, reference, bytes, cuts, WIDE, policies)
  expect(got).toEqual(want)
  return got.ok ? 'ok' : got.code
}

const forms = fc.array(fc.nat(3), { minLength: 1, maxLength: 12 })
const cuts = fc.array(fc.nat(), { maxLength: 6 })

describe('WebAssembly key policies (differential against the JS scanner and JSON.parse)', () => {
  test.prop([tree, forms, cuts], { numRuns: 1500 })(
    'refuses a repeated key in any spelling exactly when JSON.parse drops a key',
    (t, f, raw) => {
      const text = render(t, f, { k: 0 })
      const cut = cutsOf(raw, encode(text).length)
      const dup = keysParsed(JSON.parse(text)) < keysWritten(t)
      expect(judged(text, cut, DUP)).toBe(dup ? 'ERR_JSON_DUPLICATE_KEY' : 'ok')
    },
  )

  test.prop([tree, forms, cuts], { numRuns: 1500 })(
    'refuses __proto__, and prototype under constructor, in any spelling',
    (t, f, raw) => {
      const text = render(t, f, { k: 0 })
      const cut = cutsOf(raw, encode(text).length)
      expect(judged(text, cut, PROTO)).toBe(hasProto(t) ? 'ERR_JSON_PROTO_KEY' : 'ok')
      judged(text, cut, KEYS)
    },
  )

  test.prop([deepTree, forms, cuts], { numRuns: 200 })(
    'gives the JS outcome under deep nesting with both policies',
    (t, f, raw) => {
      const text = render(t, f, { k: 0 })
      const cut = cutsOf(raw, encode(text).length)
      const outcome = judged(text, cut, KEYS)
      if (!hasProto(t)) {
        const dup = keysParsed(JSON.parse(text)) < keysWritten(t)
        expect(outcome).toBe(dup ? 'ERR_JSON_DUPLICATE_KEY' : 'ok')
      }
    },
  )

  test.prop([tree, forms], { numRuns: 60 })(
    'gives the JS outcome at every two-chunk split of a small document',
    (t, f) => {
      const text = render(t, f, { k: 0 }).slice(0, 200)
      for (let cut = 0; cut <= encode(text).length; cut++) {
        for (const p of [DUP, PROTO, KEYS]) {
          const { got, want } = bothOf(subject, reference, encode(text), [cut], WIDE, p)
          expect({ cut, ...got }).toEqual({ cut, ...want })
        }
      }
    },
  )

  test.prop([fc.array(tree, { minLength: 1, maxLength: 6 }), forms, cuts], { numRuns: 30 })(
    'gives the JS outcome on keys that straddle 64 KiB pieces',
    (parts, f, raw) => {
      // Long keys and padding put key bytes on both sides of piece ends.
      const long = 'q'.repeat(30_000)
      const doc: Tree = {
        obj: parts.flatMap((p, k): [string, Tree][] => [
          [`${long}${k % 2}`, p],
          [`x${k}`, { leaf: 'p'.repeat(20_000) }],
        ]),
      }
      const text = render(doc, f, { k: 0 })
      const cut = cutsOf(raw, encode(text).length)
      const dup = keysParsed(JSON.parse(text)) < keysWritten(doc)
      expect(judged(text, cut, DUP)).toBe(dup ? 'ERR_JSON_DUPLICATE_KEY' : 'ok')
      judged(text, cut, KEYS)
    },
  )

  it('compares keys exactly: thousands of distinct keys in one object are admitted', () => {
    const keys = Array.from({ length: 20_000 }, (_, k) => `"k${k}":${k}`)
    expect(judged(`{${keys.join(',')}}`, [], DUP)).toBe('ok')
    expect(judged(`{${keys.join(',')},"k19999":0}`, [], DUP)).toBe('ERR_JSON_DUPLICATE_KEY')
  })
})
