import { isAdmissionError } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { createPreflight, type Preflight, preflight } from '../src/index.js'
import { WASM_MAX_DEPTH } from '../src/wasm-instance.js'
import { WasmPreflightScanner } from '../src/wasm-scanner.js'

// What the WebAssembly scanner (src/wasm-scanner.ts) keeps outside the module between pushes,
// and the pieces it cuts a chunk into: every scanner shares one module and its memory, so a
// scanner's nesting past 32 levels, its open string or number and its limits are stored back
// after each run and loaded before the next. The JS scanner is held to the same outcomes.

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)

const SCANNERS: ReadonlyArray<readonly [string, (options?: object) => Preflight]> = [
  ['the WebAssembly scanner', (options = {}) => createPreflight(options)],
  [
    'the JS scanner',
    (options = {}) => createPreflight({ ...options, maxDepth: WASM_MAX_DEPTH + 1 }),
  ],
]

function refusalOf(run: () => unknown) {
  try {
    run()
  } catch (error) {
    if (!isAdmissionError(error)) throw error
    const { code, limit, observed, offset } = error
    return { code, limit, observed, offset }
  }
  return undefined
}

/** `levels` openers; level k is an object (`{"k":`) when `objectAt(k)`, else an array. */
function opening(levels: number, objectAt: (k: number) => boolean): string {
  let out = ''
  for (let k = 0; k < levels; k++) out += objectAt(k) ? '{"k":' : '['
  return out
}

function closing(levels: number, objectAt: (k: number) => boolean): string {
  let out = ''
  for (let k = levels - 1; k >= 0; k--) out += objectAt(k) ? '}' : ']'
  return out
}

describe('the WebAssembly scanner between pushes', () => {
  it('keeps each scanner its own nesting past 32 levels when requests interleave', () => {
    expect(createPreflight()).toBeInstanceOf(WasmPreflightScanner)
    for (const levels of [33, 40, 64, 65, 100, 300]) {
      // Opposite container types at every level, so one scanner's bits are wrong for the other.
      const a = (k: number) => k % 3 === 0
      const b = (k: number) => k % 3 !== 0
      const first = createPreflight({ maxDepth: 1000 })
      const second = createPreflight({ maxDepth: 1000 })
      first.push(utf8(opening(levels, a)))
      second.push(utf8(opening(levels, b)))
      first.push(utf8(`1${closing(levels, a)}`))
      second.push(utf8(`2${closing(levels, b)}`))
      expect([levels, first.end().depth, second.end().depth]).toEqual([levels, levels, levels])
    }
  })

  it('closes deep levels pushed over many interleaved pushes, one bracket at a time', () => {
    const levels = 70
    const a = (k: number) => k % 2 === 0
    const b = (k: number) => k % 2 === 1
    const first = createPreflight({ maxDepth: 100 })
    const second = createPreflight({ maxDepth: 100 })
    first.push(utf8(opening(levels, a)))
    second.push(utf8(opening(levels, b)))
    first.push(utf8('1'))
    second.push(utf8('2'))
    const ca = closing(levels, a)
    const cb = closing(levels, b)
    for (let k = 0; k < levels; k++) {
      first.push(utf8(ca[k]!))
      second.push(utf8(cb[k]!))
    }
    expect([first.end().nodes, second.end().nodes]).toEqual([
      levels + 1 + levels / 2,
      levels + 1 + levels / 2,
    ])
  })

  it('admits a string and a number cut across pushes under limits of 2^32 bytes and more', () => {
    for (const [name, make] of SCANNERS) {
      for (const big of [2 ** 31, 2 ** 32, 2 ** 40]) {
        const options = { maxBytes: big, maxStringBytes: big, maxNumberLength: big }
        const scanner = make(options)
        for (const piece of ['["ab', 'cd",12', '34,', '"x', 'y",5', '6]']) scanner.push(utf8(piece))
        expect([name, big, scanner.end().nodes]).toEqual([name, big, 5])
        const only = make({ maxBytes: big })
        for (const piece of ['[', '"abc', 'def",', '123', '456]']) only.push(utf8(piece))
        expect([name, big, only.end().nodes]).toEqual([name, big, 3])
      }
    }
  })

  it('admits a string or number that opens at the first byte of a push and runs past its end', () => {
    for (const [name, make] of SCANNERS) {
      for (const pieces of [
        ['[', '"abcdef', 'gh"]'],
        ['[', '"a', 'b', 'c"]'],
        ['[', '123456', '78]'],
        ['{"k":', '"abcdef', '"}'],
      ]) {
        const scanner = make()
        for (const piece of pieces) scanner.push(utf8(piece))
        expect([name, pieces, scanner.end().depth]).toEqual([name, pieces, 1])
      }
    }
  })

  it('refuses one chunk of 256 KiB pushed under a maxBytes of 1 KiB as ERR_JSON_TOO_LARGE', () => {
    for (const [name, make] of SCANNERS) {
      const chunk = utf8(`["${'a'.repeat(256 * 1024 - 2)}`)
      const scanner = make({ maxBytes: 1024 })
      expect([name, refusalOf(() => scanner.push(chunk))]).toEqual([
        name,
        { code: 'ERR_JSON_TOO_LARGE', limit: 1024, observed: 256 * 1024, offset: 1024 },
      ])
    }
  })

  it('refuses a bad byte past the first 64 KiB of one chunk at its input offset', () => {
    for (const [name, make] of SCANNERS) {
      for (const at of [65536, 70000, 150000]) {
        const doc = utf8(`[${'1,'.repeat(100000)}1]`)
        // A second comma after the one at (even) `at`: the refusal, at `at + 1`.
        doc[at + 1] = 0x2c
        const scanner = make({ maxNodes: 1_000_000 })
        expect([name, at, refusalOf(() => scanner.push(doc))]).toEqual([
          name,
          at,
          { code: 'ERR_JSON_SYNTAX', limit: undefined, observed: undefined, offset: at + 1 },
        ])
      }
    }
  })

  it('reports limit and observed for ERR_JSON_TOO_MANY_NODES', () => {
    for (const [name, make] of SCANNERS) {
      const scanner = make({ maxNodes: 3 })
      expect([name, refusalOf(() => scanner.push(utf8('[1,2,3]')))]).toEqual([
        name,
        { code: 'ERR_JSON_TOO_MANY_NODES', limit: 3, observed: 4, offset: 5 },
      ])
    }
    expect(refusalOf(() => preflight(utf8('{"a":1}'), { maxNodes: 2 }))).toMatchObject({
      limit: 2,
      observed: 3,
    })
  })
})
