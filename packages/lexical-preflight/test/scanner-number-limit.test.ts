import { describe, expect, it } from 'vitest'
import { differences, utf8 } from './helpers/every-scanner.js'

// maxNumberLength counts a number's characters (sign, digits, point, exponent marker and sign) and
// refuses at the first character past the limit, with its offset, whichever part of the number that
// character is in. The JS scanner (src/scanner.ts) checks the limit in each of its number states
// (after the sign, the point, the exponent marker and its sign, and in the integer, fraction and
// exponent digit runs), so each number below is run under every limit shorter than it, in an array
// and at the top level, whole, at every two-chunk split and one byte a push, through the three
// scanners createPreflight picks from, asserting code, limit and offset.

// Each part of the grammar at each position: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
const NUMBERS = ['-0', '-905', '0.5', '12.340', '7e9', '0E+12', '-1.5e-10', '19.0E09']

describe('maxNumberLength, at every character of a number', () => {
  it('admits each number under a limit of its own length, in an array and alone', () => {
    const bad: string[] = []
    for (const number of NUMBERS) {
      const options = { maxNumberLength: number.length }
      bad.push(...differences(utf8(`[${number}]`), options, { ok: true, nodes: 2 }, `[${number}]`))
      bad.push(...differences(utf8(number), options, { ok: true, nodes: 1 }, number))
    }
    expect(bad).toEqual([])
  })

  it('refuses it under each shorter limit with ERR_JSON_NUMBER_TOO_LONG at the first character past it', () => {
    const bad: string[] = []
    for (const number of NUMBERS) {
      for (let limit = 1; limit < number.length; limit++) {
        const options = { maxNumberLength: limit }
        const code = 'ERR_JSON_NUMBER_TOO_LONG'
        const inArray = { ok: false, code, limit, offset: 1 + limit }
        bad.push(...differences(utf8(`[${number}]`), options, inArray, `[${number}] < ${limit}`))
        const alone = { ok: false, code, limit, offset: limit }
        bad.push(...differences(utf8(number), options, alone, `${number} < ${limit}`))
      }
    }
    expect(bad).toEqual([])
  })
})
