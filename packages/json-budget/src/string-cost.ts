import { ADMISSION_DEFAULTS } from './limits.js'

/**
 * The byte cost of strings in compact JSON, computed without encoding them.
 *
 * `JSON.stringify` writes `"` and `\` as two bytes, `\b \t \n \f \r` as two, other C0
 * controls as six (`\u00XX`), a lone surrogate as six (`\uDXXX`, the well-formed stringify of
 * ES2019), a surrogate pair as four UTF-8 bytes, and everything else as its UTF-8 length
 * (U+2028 and U+2029 included: stringify leaves them raw).
 */

const CHUNK = ADMISSION_DEFAULTS.stringChunkCodeUnits
/** Longest string the walk costs in its own loop ({@link shortStringCost}). */
const SHORT = 32
/**
 * Longest chunk that is not plain ASCII whose cost one loop over its units measures best
 * whatever it holds. Past it the native passes below win on ASCII with escapes (1.47 against
 * 1.70 ns a unit at 300 units, 0.87 against 1.48 at 2,400) and on text without escapes (no pass
 * over its bytes at all), but the loop still wins on Latin and CJK text with escapes (1.5 and
 * 1.9 ns a unit against 2.1 and 5.5 for its UTF-8 bytes, 300 to 2,400 units, 5% escapes; Node
 * 20, 2 shared cores), so that text takes the loop at any length.
 */
const UNIT_LOOP_MAX = 256
// Measured (Node 20): the unanchored search runs ~0.7 ns a unit on a one-byte string and
// ~0.21 ns on a two-byte one; an anchored negated class is faster on one-byte strings but
// slower on two-byte ones (CJK: 1.13 ms against 0.88 ms on 10 MB). Plain ASCII never gets
// here (PLAIN below), so what remains is mostly two-byte text: the unanchored search is kept.
/** Finds a `"`, `\\` or C0 control: a unit that escaping changes. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/
/** Matches printable ASCII without `"` or `\\`: such a string costs its length plus quotes. */
const PLAIN = /^[\u0020\u0021\u0023-\u005b\u005d-\u007f]*$/

type WellFormed = { isWellFormed(): boolean }

/**
 * Bytes of each code unit below U+0800 in compact JSON, as UTF-8: 1 for printable ASCII and
 * U+007F, 2 for `"` `\\` `\b \t \n \f \r` (a backslash and a letter), 6 for other C0 controls
 * (`\u00XX`), 2 for U+0080 to U+07FF. One load per unit replaces a chain of comparisons; 2 KiB,
 * so it stays in the first-level cache.
 */
const UNIT_BYTES = new Uint8Array(0x800)
for (let c = 0; c < 0x800; c++) {
  if (c >= 0x80) UNIT_BYTES[c] = 2
  else if (c >= 0x20) UNIT_BYTES[c] = c === 0x22 || c === 0x5c ? 2 : 1
  else UNIT_BYTES[c] = c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6
}

/**
 * Cost of `s` in compact JSON, quotes included, when it has at most 32 code units, else -1: the
 * first check the fast walk makes on every key and string, small enough for V8 to inline into
 * the walk loop (the general {@link chargeString} is not inlined there: measured, the
 * 76,000-record shape spent a tenth of its time in the call). One pass over the units whatever
 * they are: plain ASCII, escapes and non-ASCII text alike.
 */
export function shortStringCost(s: string): number {
  return s.length > SHORT ? -1 : unitLoopCost(s)
}

/**
 * Exact cost of `s` in compact JSON, quotes included, by one loop over its code units: a table
 * load per unit below U+0800 (escapes, Latin and other two-byte UTF-8 alike), 3 bytes for the
 * rest of the BMP, and at a surrogate a look at the next unit: a pair is 4 bytes, a lone
 * surrogate 6 (`\uDXXX`).
 */
function unitLoopCost(s: string): number {
  let cost = 2
  const n = s.length
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x800) {
      cost += UNIT_BYTES[c]!
    } else if ((c & 0xf800) !== 0xd800) {
      cost += 3
    } else if (c < 0xdc00 && i + 1 < n && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      cost += 4
      i++
    } else {
      cost += 6
    }
  }
  return cost
}

/**
 * Bytes that escaping adds to the raw UTF-8 length of `s`, one code unit at a time: the
 * reference {@link escapeExtra} is held to (test/string-cost.differential.property.test.ts).
 */
export function escapeExtraByUnit(s: string): number {
  let extra = 0
  const n = s.length
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20) extra += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 1 : 5
    else if (c === 0x22 || c === 0x5c) extra += 1
  }
  return extra
}

/** Bytes escaping adds, by byte value: 1 for `"`, `\\` and `\b \t \n \f \r`, 5 for other C0. */
const EXTRA = new Uint8Array(256)
for (let c = 0; c < 0x20; c++)
  EXTRA[c] = c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 1 : 5
EXTRA[0x22] = 1
EXTRA[0x5c] = 1

/** Code units written into the scratch at a time: at most 3 UTF-8 bytes each, so they fit. */
const PIECE_UNITS = 21_840
const SCRATCH = Buffer.allocUnsafeSlow(3 * PIECE_UNITS + 4)
const WORDS = new Int32Array(SCRATCH.buffer, SCRATCH.byteOffset, SCRATCH.length >> 2)
const LOW = 0x20202020
const QUOTES = 0x22222222
const BACKSLASHES = 0x5c5c5c5c
const ONES = 0x01010101
const HIGH = 0x80808080 | 0

/** Bytes escaping adds to the first `n` bytes of the scratch, a word (4 bytes) at a time. */
function scratchExtra(n: number): number {
  let extra = 0
  let i = 0
  for (const last = n - 4; i <= last; i += 4) {
    const w = WORDS[i >> 2]!
    const q = w ^ QUOTES
    const b = w ^ BACKSLASHES
    // Some byte is '"', '\\' or below 0x20 (exact as a yes/no over the word): then by bytes.
    if ((((q - ONES) & ~q) | ((b - ONES) & ~b) | ((w - LOW) & ~w)) & HIGH) {
      extra += EXTRA[w & 0xff]! + EXTRA[(w >>> 8) & 0xff]! + EXTRA[(w >>> 16) & 0xff]!
      extra += EXTRA[w >>> 24]!
    }
  }
  for (; i < n; i++) extra += EXTRA[SCRATCH[i]!]!
  return extra
}

/**
 * Bytes that escaping adds to the raw UTF-8 length of `s` (quotes, backslashes, controls),
 * without a loop over its code units: `s` is written into a scratch buffer natively (Latin-1
 * when `ascii`, else UTF-8, in pieces), and the bytes are read four at a time, a word with no
 * byte to escape in one test. In UTF-8 a byte below 0x80 is always the character itself, and
 * a lone surrogate is written as EF BF BD, so no byte of a longer character is counted.
 */
export function escapeExtra(s: string, ascii: boolean): number {
  const n = s.length
  let extra = 0
  for (let from = 0; from < n; from += PIECE_UNITS) {
    const to = Math.min(n, from + PIECE_UNITS)
    const piece = from === 0 && to === n ? s : s.slice(from, to)
    extra += scratchExtra(SCRATCH.write(piece, 0, ascii ? 'latin1' : 'utf8'))
  }
  return extra
}

/** Number of unpaired surrogates in `s`. */
function loneSurrogates(s: string): number {
  let lone = 0
  const n = s.length
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) i++
      else lone++
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      lone++
    }
  }
  return lone
}

/** Exact cost of one chunk (or a whole string) without its quotes. */
function chunkCost(chunk: string): number {
  // Most text is plain ASCII: one native match tells so, and then the cost is the length.
  if (PLAIN.test(chunk)) return chunk.length
  // Up to a few hundred units one pass over the units costs less than the native calls below.
  if (chunk.length <= UNIT_LOOP_MAX) return unitLoopCost(chunk) - 2
  // Buffer.byteLength is the native UTF-8 length; it counts a lone surrogate as the three
  // bytes of U+FFFD, where stringify writes six, hence the correction below.
  let cost = Buffer.byteLength(chunk, 'utf8')
  if (NEEDS_ESCAPE.test(chunk)) {
    // Text that is not ASCII and has escapes: the loop over units measured faster at every
    // length than counting escapes over its UTF-8 bytes (see UNIT_LOOP_MAX).
    if (cost !== chunk.length) return unitLoopCost(chunk) - 2
    cost += escapeExtra(chunk, true)
  }
  if (!(chunk as unknown as WellFormed).isWellFormed()) cost += 3 * loneSurrogates(chunk)
  return cost
}

/**
 * Charges `s` as compact JSON, in chunks of at most 4,096 code units, and returns its cost
 * (quotes included), or -1 as soon as the running total passes `budget` bytes. A surrogate
 * pair that straddles a chunk edge moves whole into the next chunk, so it is charged once.
 * A string needs at least one byte per code unit, so one that cannot fit is refused without
 * reading it at all.
 */
export function chargeString(s: string, budget: number): number {
  const n = s.length
  if (n + 2 > budget) return -1
  if (n <= SHORT) {
    const cost = unitLoopCost(s)
    return cost > budget ? -1 : cost
  }
  // A string that fits even at six bytes a unit (the most a unit costs) cannot cross the
  // budget part way, so it is measured whole: each native pass once over the string instead
  // of once per chunk, and no chunk slices. The chunks below are for a string that may not
  // fit, so that its refusal reads at most 4,096 units past the budget.
  if (6 * n + 2 <= budget) return 2 + chunkCost(s)
  let cost = 2
  let start = 0
  while (start < n) {
    let end = start + CHUNK
    if (end >= n) {
      end = n
    } else {
      const last = s.charCodeAt(end - 1)
      if (last >= 0xd800 && last <= 0xdbff) end--
    }
    cost += chunkCost(start === 0 && end === n ? s : s.slice(start, end))
    // What is left needs at least one byte per code unit.
    if (cost + (n - end) > budget) return -1
    start = end
  }
  return cost
}

/**
 * Exact length in bytes of `JSON.stringify(s)` encoded as UTF-8, without encoding it.
 * @example jsonStringByteLength('a"b') // 6
 */
export function jsonStringByteLength(s: string): number {
  return chargeString(s, Number.POSITIVE_INFINITY)
}
