import { isAdmissionError } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { createPreflight, type PreflightPolicies } from '../src/index.js'

// How the key policies read a key (src/key-policy.ts): the raw bytes between its quotes,
// gathered piece by piece across pushes, unescaped only when a backslash appears, and with
// protoKeys alone not captured past 66 raw bytes (the longest spelling of `constructor`, 11 ×
// `\uXXXX`), since no longer key can be `__proto__`, `constructor` or `prototype`. Each test
// pushes the text whole and at every two-chunk split.

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)
const PROTO: PreflightPolicies = { protoKeys: 'refuse' }
const DUP: PreflightPolicies = { duplicateKeys: 'refuse' }

type Outcome = { ok: true } | { ok: false; code: string; offset: number | undefined }

function run(chunks: readonly Uint8Array[], policies: PreflightPolicies): Outcome {
  const scanner = createPreflight(policies)
  try {
    for (const chunk of chunks) scanner.push(chunk)
    scanner.end()
    return { ok: true }
  } catch (error) {
    if (!isAdmissionError(error)) throw error
    return { ok: false, code: error.code, offset: error.offset }
  }
}

/** The outcome of `text` in one push, checked to be the same at every two-chunk split. */
function outcome(text: string, policies: PreflightPolicies): Outcome {
  const bytes = utf8(text)
  const whole = run([bytes], policies)
  for (let cut = 1; cut < bytes.length; cut++) {
    expect([cut, run([bytes.slice(0, cut), bytes.slice(cut)], policies)]).toEqual([cut, whole])
  }
  return whole
}

const LONG = 'A'.repeat(70)
const CONSTRUCTOR = [...'constructor']
  .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  .join('')

describe('key capture for the key policies', () => {
  it('refuses __proto__ after an earlier key too long to capture, in the same or a later object', () => {
    const proto = { ok: false, code: 'ERR_JSON_PROTO_KEY' }
    expect(outcome(`{"${LONG}":1,"__proto__":1}`, PROTO)).toEqual({ ...proto, offset: 76 })
    expect(outcome(`{"${LONG}":{"__proto__":1}}`, PROTO)).toEqual({ ...proto, offset: 75 })
    expect(outcome(`[{"${LONG}":1},{"a":1,"__proto__":1}]`, PROTO)).toEqual({
      ...proto,
      offset: 85,
    })
  })

  it('refuses prototype under a constructor key spelled as eleven \\u escapes (66 raw bytes)', () => {
    expect(CONSTRUCTOR).toHaveLength(66)
    expect(outcome(`{"${CONSTRUCTOR}":{"prototype":{}}}`, PROTO)).toEqual({
      ok: false,
      code: 'ERR_JSON_PROTO_KEY',
      offset: 71,
    })
  })

  it('admits keys longer than 66 raw bytes that end in __proto__ or name constructor', () => {
    for (const doc of [
      `{"${LONG}__proto__":1}`,
      `{"${LONG}":{"prototype":1}}`,
      `{"${LONG}constructor":{"prototype":1}}`,
      `{"a":{"${LONG}":{"prototype":1}}}`,
    ]) {
      expect([doc, outcome(doc, PROTO)]).toEqual([doc, { ok: true }])
    }
  })

  it('refuses __proto__ written with an escape at any one of its characters', () => {
    const word = '__proto__'
    for (let k = 0; k < word.length; k++) {
      const escaped = `\\u${word.charCodeAt(k).toString(16).padStart(4, '0')}`
      const key = word.slice(0, k) + escaped + word.slice(k + 1)
      expect([key, outcome(`{"${key}":1}`, PROTO)]).toEqual([
        key,
        { ok: false, code: 'ERR_JSON_PROTO_KEY', offset: 1 },
      ])
    }
  })

  it('reads a key cut across pushes from its own bytes when the caller reuses its chunk buffer', () => {
    // A reader that fills one buffer again for every chunk: the policy must keep a copy of the
    // key's first piece, not a view of bytes the next read overwrites.
    for (const [policies, doc, want] of [
      [PROTO, '{"__proto__":1}', { ok: false, code: 'ERR_JSON_PROTO_KEY', offset: 1 }],
      [
        DUP,
        '{"abcdefgh":1,"abcdefgh":2}',
        { ok: false, code: 'ERR_JSON_DUPLICATE_KEY', offset: 14 },
      ],
      [DUP, '{"abcdefgh":1,"abcdXXXX":2}', { ok: true }],
    ] as const) {
      const bytes = utf8(doc)
      for (let cut = 2; cut < bytes.length - 1; cut++) {
        const buffer = new Uint8Array(bytes.length)
        const scanner = createPreflight(policies)
        let got: Outcome = { ok: true }
        try {
          buffer.set(bytes.subarray(0, cut))
          scanner.push(buffer.subarray(0, cut))
          buffer.fill(0x58) // 'X': what the next read leaves where the last chunk was
          buffer.set(bytes.subarray(cut))
          scanner.push(buffer.subarray(0, bytes.length - cut))
          scanner.end()
        } catch (error) {
          if (!isAdmissionError(error)) throw error
          got = { ok: false, code: error.code, offset: error.offset }
        }
        expect([doc, cut, got]).toEqual([doc, cut, want])
      }
    }
  })

  it('admits __proto__ and constructor.prototype when only duplicate keys are refused', () => {
    for (const doc of ['{"__proto__":1}', '{"constructor":{"prototype":1}}']) {
      expect([doc, outcome(doc, DUP)]).toEqual([doc, { ok: true }])
    }
  })
})
