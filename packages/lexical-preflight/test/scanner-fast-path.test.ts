import { describe, expect, it } from 'vitest'
import { createPreflight, type Preflight, type PreflightOptions } from '../src/index.js'
import { WASM_MAX_DEPTH } from '../src/wasm-instance.js'
import { type ScanOutcome as Outcome, scanOf, utf8 } from './helpers/every-scanner.js'

// The JS scanner (src/scanner.ts, the scanner for a maxDepth past the WebAssembly module's
// container bits and the fallback without WebAssembly) reads whole tokens in a fast path while no
// key policy is on, and hands a token to its byte machine only where one needs judging. The node
// and string limits, the grammar between tokens and the nesting bits are each checked there a
// second time, so each promise below is asserted through every scanner createPreflight picks,
// with the code, offset and limit of the refusal, in one chunk and at every two-chunk split.

const SCANNERS: ReadonlyArray<readonly [string, (options: PreflightOptions) => Preflight]> = [
  ['the WebAssembly scanner', (options) => createPreflight(options)],
  // A maxDepth past the module's container bits and no key policy: the JS fast path.
  ['the JS scanner', (options) => createPreflight({ ...options, maxDepth: WASM_MAX_DEPTH + 1 })],
  // A key policy: the WebAssembly scanner on a module of its own.
  [
    'the WebAssembly scanner with a key policy',
    (options) => createPreflight({ maxDepth: 1000, ...options, duplicateKeys: 'refuse' }),
  ],
  // A key policy past the container bits: the JS scanner's byte machine alone.
  [
    'the JS scanner with a key policy',
    (options) =>
      createPreflight({ ...options, maxDepth: WASM_MAX_DEPTH + 1, duplicateKeys: 'refuse' }),
  ],
]

const outcome = scanOf

/**
 * Every (scanner, chunking) whose outcome on `text` differs from `want`: one chunk and each
 * two-chunk split, labelled.
 */
function differences(text: string, options: PreflightOptions, want: Outcome): string[] {
  const doc = utf8(text)
  const bad: string[] = []
  for (const [name, make] of SCANNERS) {
    for (let cut = -1; cut <= doc.length; cut++) {
      const chunks = cut < 0 ? [doc] : [doc.subarray(0, cut), doc.subarray(cut)]
      const got = outcome(make(options), chunks)
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        const shown = text.length > 40 ? `${text.slice(0, 40)}… (${text.length} bytes)` : text
        bad.push(`${name}, ${shown}, cut ${cut}: ${JSON.stringify(got)}`)
      }
    }
  }
  return bad
}

const refused = (code: string, offset: number, limit?: number): Outcome => ({
  ok: false,
  code,
  offset,
  limit,
})

describe('the JS scanner fast path, held to every scanner createPreflight picks', () => {
  it('counts the node limit on string values, keys and containers at N and N + 1, split anywhere', () => {
    // Where each of the 7 nodes starts: [ "a" { "k" "v" [ "b"
    const text = '["a",{"k":"v"},[],"b"]'
    const starts = [0, 1, 5, 6, 10, 15, 18]
    const bad = differences(text, { maxNodes: 7 }, { ok: true, nodes: 7, depth: 2 })
    for (let limit = 1; limit < starts.length; limit++) {
      const want = refused('ERR_JSON_TOO_MANY_NODES', starts[limit]!, limit)
      bad.push(...differences(text, { maxNodes: limit }, want))
    }
    expect(bad).toEqual([])
  })

  it('admits strings of maxStringBytes raw bytes and refuses one more at its offset, short or long, split anywhere', () => {
    const bad: string[] = []
    for (const limit of [0, 1, 2, 7, 23, 24, 25, 26, 31, 32, 33, 57, 80]) {
      const fits = 'x'.repeat(limit)
      const over = 'x'.repeat(limit + 1)
      const options = { maxStringBytes: limit }
      bad.push(...differences(`["${fits}",1]`, options, { ok: true, nodes: 3, depth: 1 }))
      bad.push(...differences(`{"${fits}":"${fits}"}`, options, { ok: true, nodes: 3, depth: 1 }))
      const tooLong = (offset: number) => refused('ERR_JSON_STRING_TOO_LONG', offset, limit)
      bad.push(...differences(`["${over}",1]`, options, tooLong(2 + limit)))
      bad.push(...differences(`{"${over}":1}`, options, tooLong(2 + limit)))
      bad.push(...differences(`{"":"${over}"}`, options, tooLong(5 + limit)))
    }
    expect(bad).toEqual([])
  })

  it('admits numbers of maxNumberLength characters and refuses one more at its offset, split anywhere', () => {
    const bad: string[] = []
    for (const limit of [1, 2, 5, 17]) {
      const options = { maxNumberLength: limit }
      const fits = '7'.repeat(limit)
      bad.push(...differences(`[${fits},${fits}]`, options, { ok: true, nodes: 3, depth: 1 }))
      const want = refused('ERR_JSON_NUMBER_TOO_LONG', 1 + limit, limit)
      bad.push(...differences(`[${fits}7,1]`, options, want))
    }
    expect(bad).toEqual([])
  })

  it('refuses a missing object value, a trailing comma, a value where a key goes and a wrong bracket with ERR_JSON_SYNTAX there', () => {
    const bad: string[] = []
    for (const [text, offset] of [
      ['{"a":}', 5],
      ['{"a":1,}', 7],
      ['{"a":1,"b":}', 11],
      ['[{"a":"b",}]', 10],
      ['{"a":1,2}', 7],
      ['{"a":1,[]}', 7],
      ['{"a":1,{}}', 7],
      ['{"a":1,true}', 7],
      ['{"a":1,-1}', 7],
      ['{1:2}', 1],
      ['{[]:1}', 1],
      ['[1,]', 3],
      ['[}', 1],
      ['{]', 1],
      ['{"a":1]', 6],
      ['[1}', 2],
    ] as const) {
      bad.push(...differences(text, {}, refused('ERR_JSON_SYNTAX', offset)))
    }
    expect(bad).toEqual([])
  })

  it("skips a leading BOM under bom 'strip' and refuses it with ERR_JSON_BOM at offset 0 by default, split anywhere", () => {
    const text = '\ufeff{"a":[1]}'
    const bad = differences(text, { bom: 'strip' }, { ok: true, nodes: 4, depth: 2 })
    bad.push(...differences(text, {}, refused('ERR_JSON_BOM', 0)))
    expect(bad).toEqual([])
  })

  it('reports the deepest nesting of the document, not the nesting of its last container', () => {
    const bad: string[] = []
    for (const [text, nodes, depth] of [
      ['[[[]],[]]', 4, 3],
      ['[[[[0]]],{"a":[]},[]]', 9, 4],
      ['{"a":{"b":{}},"c":{}}', 7, 3],
    ] as const) {
      bad.push(...differences(text, {}, { ok: true, nodes, depth }))
    }
    expect(bad).toEqual([])
  })
})

describe('the JS scanner past 32 levels and past 64 KiB, held to every scanner createPreflight picks', () => {
  // Levels 0-31 keep their container bit in one integer, deeper ones in a growing array: a
  // wrong bit closes an object with `]`, an array with `}`, or reads a key where a value goes.
  const mixed = (levels: number, objectAt: (k: number) => boolean) => {
    let open = ''
    let close = ''
    for (let k = 0; k < levels; k++) {
      open += objectAt(k) ? '{"k":' : '['
      close = (objectAt(k) ? '}' : ']') + close
    }
    return [open, close] as const
  }

  it('closes each of 100 mixed levels with its own bracket and refuses the other one there', () => {
    const bad: string[] = []
    const objectAt = (k: number) => (k * 7) % 3 === 0
    const [open, close] = mixed(100, objectAt)
    const text = `${open}0${close}`
    const nodes = 1 + 100 + 34 // the zero, the containers, a key in each of the 34 objects
    bad.push(...differences(text, { maxDepth: 100 }, { ok: true, nodes, depth: 100 }))
    for (const level of [0, 1, 31, 32, 33, 34, 63, 64, 65, 99]) {
      // The bracket that closes `level` sits after the zero and the deeper levels' brackets.
      const at = open.length + 1 + (99 - level)
      const wrong = text[at] === '}' ? ']' : '}'
      const broken = text.slice(0, at) + wrong + text.slice(at + 1)
      bad.push(...differences(broken, { maxDepth: 100 }, refused('ERR_JSON_SYNTAX', at)))
    }
    expect(bad).toEqual([])
  })

  it('goes on in the container at level 0, 31 or 32 after closing a level past 32 of the other kind', () => {
    const bad: string[] = []
    const arrays = (n: number) => '['.repeat(n)
    const closes = (n: number) => ']'.repeat(n)
    for (const [text, nodes, depth] of [
      // Level 0 an array, level 32 an object: the array goes on after it.
      [`${arrays(32)}{"k":[0]}${closes(31)},1]`, 37, 34],
      // Level 0 an object, level 32 an array: the object goes on after it.
      [`{"a":${arrays(31)}[0]${closes(31)},"b":1}`, 37, 33],
      // Level 31 an object around an array at level 32.
      [`${arrays(31)}{"a":[0],"b":1}${closes(31)}`, 37, 33],
      // Level 32 an object around arrays at levels 33 and 34.
      [`${arrays(32)}{"a":[[0]],"b":1}${closes(32)}`, 39, 35],
    ] as const) {
      bad.push(...differences(text, { maxDepth: 40 }, { ok: true, nodes, depth }))
    }
    expect(bad).toEqual([])
  })

  it('admits one chunk of more than 64 KiB whichever byte of a key, a value or a bracket falls at 64 KiB', () => {
    const bad: string[] = []
    const tail = '{"k":"v","w":[1,"x"]},"y",[],{"z":null}]'
    for (let at = 0; at < tail.length; at++) {
      // `["` + padding + `",` puts tail[at] at chunk index 65536.
      const text = `["${'a'.repeat(65536 - 4 - at)}",${tail}`
      for (const [name, make] of SCANNERS) {
        const got = outcome(make({}), [utf8(text)])
        const want = { ok: true, nodes: 14, depth: 3 }
        if (JSON.stringify(got) !== JSON.stringify(want))
          bad.push(`${name}, tail[${at}]: ${JSON.stringify(got)}`)
      }
    }
    expect(bad).toEqual([])
  })
})
