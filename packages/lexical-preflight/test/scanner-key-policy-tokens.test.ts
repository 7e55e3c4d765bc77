import { describe, expect, it } from 'vitest'
import { createPreflight, type PreflightOptions } from '../src/index.js'
import { WASM_MAX_DEPTH } from '../src/wasm-instance.js'
import { type ScanOutcome as Outcome, scanOf, utf8 } from './helpers/every-scanner.js'

// With a key policy on and a maxDepth past the module's container bits, createPreflight returns
// the JS scanner and its whole-token fast path is off: the byte machine of src/scanner.ts reads every byte between tokens itself (whitespace,
// commas, closing brackets, the quote that opens a key). A body admitted without the policy
// must be admitted with it, with the same counts, and a refusal must keep its code and offset,
// so each case is also run without the policy (the WebAssembly scanner) for the same outcome,
// whole and at every two-chunk split.

const DUP: PreflightOptions = { duplicateKeys: 'refuse', maxDepth: WASM_MAX_DEPTH + 1 }

const run = (options: PreflightOptions, chunks: readonly Uint8Array[]): Outcome =>
  scanOf(createPreflight(options), chunks)

/**
 * The outcome of `text` under duplicateKeys 'refuse' (and `options`), checked the same at
 * every two-chunk split and, when `sameWithout`, the same with the policy off.
 */
function withPolicy(text: string, options: PreflightOptions = {}, sameWithout = true): Outcome {
  const bytes = utf8(text)
  const policy = { ...options, ...DUP }
  const whole = run(policy, [bytes])
  for (let cut = 1; cut < bytes.length; cut++) {
    const split = run(policy, [bytes.subarray(0, cut), bytes.subarray(cut)])
    expect([cut, split]).toEqual([cut, whole])
  }
  if (sameWithout) expect(run(options, [bytes])).toEqual(whole)
  return whole
}

describe('the JS scanner between tokens with a key policy', () => {
  it('admits space, tab, CR and LF between every pair of tokens', () => {
    for (const ws of [' ', '\t', '\r', '\n']) {
      const text = `${ws}{${ws}"a"${ws}:${ws}[${ws}1${ws},${ws}true${ws}]${ws},${ws}"b"${ws}:${ws}{${ws}}${ws}}${ws}`
      expect([JSON.stringify(ws), withPolicy(text)]).toEqual([
        JSON.stringify(ws),
        { ok: true, nodes: 7, depth: 2 },
      ])
    }
  })

  it('reads the key after an array or object closed inside an object as a key', () => {
    expect(withPolicy('{"a":[1],"b":2}')).toEqual({ ok: true, nodes: 6, depth: 2 })
    expect(withPolicy('[{"a":{"x":[]},"b":[{}]},[1]]')).toEqual({ ok: true, nodes: 11, depth: 4 })
  })

  it('still refuses a duplicate key that follows a closed array or object', () => {
    const duplicate = (offset: number) => ({
      ok: false,
      code: 'ERR_JSON_DUPLICATE_KEY',
      offset,
      limit: undefined,
    })
    expect(withPolicy('{"a":[1],"a":2}', {}, false)).toEqual(duplicate(9))
    expect(withPolicy('{"a":[[],[{}]],"b":{"c":[]},"a":0}', {}, false)).toEqual(duplicate(28))
  })

  it('tells objects from arrays when closing past 32 levels of nesting', () => {
    // 31 arrays, then objects at levels 31 and 32 and an array at level 33: the closing brackets
    // cross the boundary between the scanner's 32-bit word of container bits and the rest.
    const text = `${'['.repeat(31)}{"k":{"a":[1],"b":2},"c":3}${']'.repeat(31)}`
    expect(withPolicy(text)).toEqual({ ok: true, nodes: 31 + 10, depth: 34 })
    const mixed = `${'[{"k":'.repeat(20)}[1]${'},0]'.repeat(20)}`
    expect(withPolicy(mixed)).toEqual({ ok: true, nodes: 20 * 4 + 2, depth: 41 })
  })

  it('refuses a key past maxNodes at the key, and a value past it at the value', () => {
    const tooMany = (offset: number, limit: number) => ({
      ok: false,
      code: 'ERR_JSON_TOO_MANY_NODES',
      offset,
      limit,
    })
    expect(withPolicy('{"a":1}', { maxNodes: 1 })).toEqual(tooMany(1, 1))
    expect(withPolicy('{"a":1}', { maxNodes: 2 })).toEqual(tooMany(5, 2))
    expect(withPolicy('{"a":1}', { maxNodes: 3 })).toEqual({ ok: true, nodes: 3, depth: 1 })
    expect(withPolicy('[0, {"a":1,"b":2}]', { maxNodes: 5 })).toEqual(tooMany(11, 5))
  })

  it('admits a key of exactly maxStringBytes and refuses a longer one after its last byte', () => {
    const options = { maxStringBytes: 3 }
    expect(withPolicy('{"abc":1,"de":"xyz"}', options)).toEqual({ ok: true, nodes: 5, depth: 1 })
    expect(withPolicy('{"abcd":1}', options)).toEqual({
      ok: false,
      code: 'ERR_JSON_STRING_TOO_LONG',
      offset: 5,
      limit: 3,
    })
  })
})
