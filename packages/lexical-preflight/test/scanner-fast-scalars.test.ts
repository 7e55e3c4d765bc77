import { describe, expect, it } from 'vitest'
import { createPreflight, type PreflightOptions } from '../src/index.js'
import { WASM_MAX_DEPTH } from '../src/wasm-instance.js'
import { type ScanOutcome as Outcome, scanOf, utf8 } from './helpers/every-scanner.js'

// Numbers and literals through the JS scanner's whole-token fast path (src/scanner.ts, the
// loop that runs while no key policy is on): it admits a scalar only when the scalar is whole,
// well formed, within maxNumberLength and within the node budget, and hands anything else to
// the byte machine at the scalar's first byte. A fast path that admits one token too many lets
// a malformed or over-budget body through, so each case is asserted with its code, offset and
// limit, through createPreflight with a maxDepth past the WebAssembly module's container bits
// (the JS scanner, as the fallback without WebAssembly is), and against the WebAssembly scanner
// (the defaults) for the same outcome.

const outcome = (options: PreflightOptions, chunks: readonly Uint8Array[]): Outcome =>
  scanOf(createPreflight(options), chunks)

/** The JS scanner's outcome for `text` in one push, checked equal to the WebAssembly one's. */
function js(text: string, options: PreflightOptions = {}): Outcome {
  const bytes = utf8(text)
  const got = outcome({ ...options, maxDepth: WASM_MAX_DEPTH + 1 }, [bytes])
  expect(outcome(options, [bytes])).toEqual(got)
  return got
}

const syntax = (offset: number) => ({
  ok: false,
  code: 'ERR_JSON_SYNTAX',
  offset,
  limit: undefined,
})

describe('the JS scanner on numbers and literals', () => {
  it('refuses a malformed number at the byte that breaks it', () => {
    expect(js('[-a ]')).toEqual(syntax(2)) // a letter after the minus
    expect(js('[1.-]')).toEqual(syntax(3)) // no digit after the point
    expect(js('[1.5:]')).toEqual(syntax(4)) // a colon after the fraction
    expect(js('[1e5x ]')).toEqual(syntax(4)) // a letter after the exponent
    expect(js('[-0.25e+3, 1E-2, 7 ]')).toEqual({ ok: true, nodes: 4, depth: 1 })
  })

  it('refuses a misspelt true, false or null at the first wrong byte', () => {
    for (const [word, prefix] of [
      ['true', '['],
      ['false', '['],
      ['null', '['],
    ] as const) {
      expect(js(`${prefix}${word}]`)).toEqual({ ok: true, nodes: 2, depth: 1 })
      for (let at = 0; at < word.length; at++) {
        // A capital letter: JSON's literals are lower case (True, False, None-style spellings).
        const wrong = word.slice(0, at) + word[at]!.toUpperCase() + word.slice(at + 1)
        expect([wrong, js(`[${wrong}]`)]).toEqual([wrong, syntax(1 + at)])
      }
    }
  })

  it('refuses a misspelt literal that follows a complete one', () => {
    expect(js('[true, trux]')).toEqual(syntax(10))
    expect(js('[null,faxse]')).toEqual(syntax(8))
    expect(js('[false,falxe]')).toEqual(syntax(10))
    expect(js('{"name": falsx}')).toEqual(syntax(13))
    expect(js('[null,nuxl]')).toEqual(syntax(8))
    expect(js('[null,nulx]')).toEqual(syntax(9))
  })

  it('refuses the scalar past maxNodes, and admits one at the budget', () => {
    for (const scalar of ['1', 'true', 'false', 'null']) {
      expect([scalar, js(`[0,${scalar}]`, { maxNodes: 2 })]).toEqual([
        scalar,
        { ok: false, code: 'ERR_JSON_TOO_MANY_NODES', offset: 3, limit: 2 },
      ])
      expect([scalar, js(`[0,${scalar}]`, { maxNodes: 3 })]).toEqual([
        scalar,
        { ok: true, nodes: 3, depth: 1 },
      ])
    }
  })

  it('refuses a number longer than maxNumberLength at its first byte past the limit', () => {
    const options = { maxNumberLength: 3 }
    expect(js('[1234,5]', options)).toEqual({
      ok: false,
      code: 'ERR_JSON_NUMBER_TOO_LONG',
      offset: 4,
      limit: 3,
    })
    expect(js('[-1.5,5]', options)).toMatchObject({ code: 'ERR_JSON_NUMBER_TOO_LONG', offset: 4 })
    expect(js('[123,-12,5]', options)).toEqual({ ok: true, nodes: 4, depth: 1 })
  })
})

// One push longer than 64 KiB is scanned in slices of 64 KiB (src/scanner.ts, `scan`); a token
// that ends at or straddles a slice's end must be judged as if the slice were not there.
const SLICE = 64 * 1024

describe('the JS scanner on a scalar at the 64 KiB slice boundary of one push', () => {
  /** `["aaa…",` + `tail`, the string padded so that `tail` starts at input offset `at`. */
  const at = (offset: number, tail: string): Uint8Array =>
    utf8(`["${'a'.repeat(offset - 4)}",${tail}`)

  it('admits a scalar that ends at or straddles the boundary, followed by a comma', () => {
    for (const scalar of ['true', 'false', 'null', '12.5e3', '-7']) {
      for (let start = SLICE - scalar.length - 1; start <= SLICE + 1; start++) {
        const bytes = at(start, `${scalar},${scalar}]`)
        const whole = outcome({ maxDepth: WASM_MAX_DEPTH + 1 }, [bytes])
        expect([scalar, start, whole]).toEqual([scalar, start, { ok: true, nodes: 4, depth: 1 }])
      }
    }
  })

  it('refuses a misspelt literal that straddles the boundary at its wrong byte', () => {
    for (const word of ['trux', 'falsx', 'nulx']) {
      for (let start = SLICE - word.length; start <= SLICE; start++) {
        const bytes = at(start, `${word}]`)
        const got = outcome({ maxDepth: WASM_MAX_DEPTH + 1 }, [bytes])
        expect([word, start, got]).toEqual([word, start, syntax(start + word.length - 1)])
      }
    }
  })
})
