import { _, type CodeKeywordDefinition, type KeywordCxt, str } from 'ajv/dist/2020.js'
import type { Ajv2020Instance } from './ajv-load.js'

// JSON Schema's `maxLength` and `minLength` count code points, and Ajv's own keywords count
// them on every string they check, one code unit at a time (measured ~2.3 ns a unit on Node
// 20: 230 µs for the 100 KB `text` of an echo call, most of the guarded server's gap to the
// SDK's Express setup). Yet a string of `n` UTF-16 units holds between ⌈n/2⌉ and `n` code
// points (a surrogate pair is two units and one code point, a lone surrogate one and one), so
// the units alone decide every string outside a narrow band:
//   maxLength L: n ≤ L passes (code points ≤ n), n > 2L fails (code points ≥ ⌈n/2⌉ > L);
//   minLength M: n < M fails (code points ≤ n), n ≥ 2M − 1 passes (⌈n/2⌉ ≥ M).
// Only a string inside the band is counted, and counted by the same rule Ajv uses.

/** A UTF-16 surrogate, paired or not: the only units whose count differs from code points. */
const SURROGATE = /[\ud800-\udfff]/

/**
 * The length of `s` in code points as JSON Schema (and Ajv's `ucs2length`) counts them: a
 * high surrogate followed by a low one is one code point, any other unit (a lone surrogate
 * included) is one. A string with no surrogate is its `.length`, found by one native search
 * (measured: a one-byte string answers at once whatever its length; 1,500 CJK units ~0.8 µs
 * against ~7 µs counted), so the unit loop runs only over text that holds surrogates.
 */
export function codePointLength(s: string): number {
  return SURROGATE.test(s) ? countCodePoints(s) : s.length
}

function countCodePoints(s: string): number {
  const n = s.length
  let count = 0
  let i = 0
  while (i < n) {
    count++
    const unit = s.charCodeAt(i++)
    if (unit >= 0xd800 && unit <= 0xdbff && i < n && (s.charCodeAt(i) & 0xfc00) === 0xdc00) i++
  }
  return count
}

// The error a failing length keyword reports, the same keyword and params as Ajv's own
// (`{ limit }`), which is all a refusal reads (check-call.ts).
const error: CodeKeywordDefinition['error'] = {
  message: ({ keyword, schemaCode }) =>
    keyword === 'maxLength'
      ? str`must NOT have more than ${schemaCode} characters`
      : str`must NOT have fewer than ${schemaCode} characters`,
  params: ({ schemaCode }) => _`{limit: ${schemaCode}}`,
}

function lengthKeyword(keyword: 'maxLength' | 'minLength'): CodeKeywordDefinition {
  return {
    keyword,
    type: 'string',
    schemaType: 'number',
    error,
    // Before `pattern` (and `format`, which follows it), where Ajv's own length keywords
    // run, so a string breaking several constraints reports the same first one as before.
    before: 'pattern',
    code(cxt: KeywordCxt) {
      const { data, schemaCode, gen } = cxt
      const count = gen.scopeValue('func', { ref: codePointLength })
      cxt.fail(
        keyword === 'maxLength'
          ? _`${data}.length > ${schemaCode} && (${data}.length > 2 * ${schemaCode} || ${count}(${data}) > ${schemaCode})`
          : _`${data}.length < ${schemaCode} || (${data}.length < 2 * ${schemaCode} - 1 && ${count}(${data}) < ${schemaCode})`,
      )
    },
  }
}

/**
 * Replaces Ajv's `maxLength` and `minLength` on `ajv` with keywords that give the same verdict
 * and the same error (`keyword`, `params.limit`, rule order) but count code points only for a
 * string whose UTF-16 length leaves the verdict open (see the band above). Call before any
 * schema is added. Internal: `test/string-length.property.test.ts` holds it to Ajv's own.
 */
export function useBandedLengthKeywords(ajv: Ajv2020Instance): void {
  ajv.removeKeyword('maxLength')
  ajv.removeKeyword('minLength')
  ajv.addKeyword(lengthKeyword('maxLength'))
  ajv.addKeyword(lengthKeyword('minLength'))
}
