import { isAdmissionError } from '@tollgate/json-budget'
import { createPreflight, preflight } from '@tollgate/lexical-preflight'
import fc from 'fast-check'
import { anySplits, chunksOf } from '../arbitraries.js'
import { ddmin } from '../ddmin.js'
import {
  type ChunkedBytes,
  decodeChunked,
  encodeChunked,
  type FuzzTarget,
  minimizeChunked,
} from '../target.js'

// Keys that collide after unescaping, and the prototype-pollution shapes, written raw and
// escaped: the policies compare keys after unescaping.
const KEYS = [
  '"a"',
  '"\\u0061"',
  '"b"',
  '"__proto__"',
  '"__pro\\u0074o__"',
  '"constructor"',
  '"prototype"',
  '"proto\\u0074ype"',
  '"c"',
]

/** JSON text with small key pools, so repeated and prototype keys are common. */
const policyText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom('1', 'null', '"s"', 'true'),
    fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
    fc
      .array(fc.tuple(fc.constantFrom(...KEYS), tie('value')), { maxLength: 4 })
      .map((entries) => `{${entries.map(([k, v]) => `${k}:${v}`).join(',')}}`),
  ),
})).value

type Policy = 'duplicateKeys' | 'protoKeys'

/**
 * The first key (in document order) each policy must refuse, found by an independent walk of
 * text `JSON.parse` accepts: a key seen before in the same object (after unescaping), and a
 * `__proto__` key or a `prototype` key inside the value of a `constructor` key.
 */
export function firstPolicyHit(text: string, policy: Policy): boolean {
  interface Frame {
    readonly object: boolean
    readonly keys: Set<string>
    readonly ctorValue: boolean
    expectKey: boolean
    lastKey: string | undefined
  }
  const stack: Frame[] = []
  let i = 0
  const open = (object: boolean) => {
    const parent = stack[stack.length - 1]
    stack.push({
      object,
      keys: new Set(),
      ctorValue: parent?.object === true && parent.lastKey === 'constructor',
      expectKey: object,
      lastKey: undefined,
    })
  }
  while (i < text.length) {
    const ch = text[i]
    if (ch === '{' || ch === '[') {
      open(ch === '{')
      i++
    } else if (ch === '}' || ch === ']') {
      stack.pop()
      i++
    } else if (ch === ',') {
      const top = stack[stack.length - 1]
      if (top?.object) top.expectKey = true
      i++
    } else if (ch === '"') {
      let j = i + 1
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1
      const literal = text.slice(i, j + 1)
      i = j + 1
      const top = stack[stack.length - 1]
      if (top?.object && top.expectKey) {
        const key = JSON.parse(literal) as string
        top.expectKey = false
        top.lastKey = key
        if (policy === 'duplicateKeys' && top.keys.has(key)) return true
        if (
          policy === 'protoKeys' &&
          (key === '__proto__' || (top.ctorValue && key === 'prototype'))
        ) {
          return true
        }
        top.keys.add(key)
      }
    } else {
      i++
    }
  }
  return false
}

const CODES: Record<Policy, string> = {
  duplicateKeys: 'ERR_JSON_DUPLICATE_KEY',
  protoKeys: 'ERR_JSON_PROTO_KEY',
}

function verdict(run: () => unknown): string {
  try {
    run()
    return 'ok'
  } catch (error) {
    if (isAdmissionError(error)) return error.code
    throw error
  }
}

/** Each policy alone, one-shot and chunked, against the independent walk. */
export function judgePolicies(input: ChunkedBytes): string | undefined {
  const text = Buffer.from(input.bytes).toString('utf8')
  try {
    JSON.parse(text)
  } catch {
    return undefined // the generator makes valid JSON; a shrunk invalid one says nothing here
  }
  for (const policy of ['duplicateKeys', 'protoKeys'] as const) {
    const expected = firstPolicyHit(text, policy) ? CODES[policy] : 'ok'
    const policies = { [policy]: 'refuse' as const }
    const one = verdict(() => preflight(input.bytes, policies))
    if (one !== expected) return `${policy}: expected ${expected}, one-shot gave ${one}`
    const chunks = chunksOf(input.bytes, input.splits)
    const split = verdict(() => {
      const scanner = createPreflight(policies)
      for (const chunk of chunks) scanner.push(chunk)
      return scanner.end()
    })
    if (split !== one)
      return `${policy}: one-shot ${one}, chunked (${chunks.map((c) => c.length).join('+')}) ${split}`
  }
  return undefined
}

export const policiesTarget: FuzzTarget<ChunkedBytes> = {
  name: 'preflight-policies',
  description:
    'lexical-preflight duplicateKeys and protoKeys policies vs an independent key walk, one-shot and chunked',
  shrink: true,
  minimizeBudget: 1_000,
  arbitrary: fc.record({
    bytes: policyText.map((text) => new Uint8Array(Buffer.from(text))),
    splits: anySplits,
  }),
  async unavailable() {
    return typeof preflight === 'function'
      ? undefined
      : '@tollgate/lexical-preflight does not export preflight'
  },
  async check(input) {
    return judgePolicies(input)
  },
  minimize: (input, fails) => minimizeChunked(input, fails, ddmin, 1_000),
  encode: encodeChunked,
  decode: decodeChunked,
}
