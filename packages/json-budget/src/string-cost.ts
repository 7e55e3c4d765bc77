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
const SHORT = 32
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
 * Cost of `s` in compact JSON, quotes included, when it is at most 32 units of plain printable
 * ASCII (no `"` or `\\`), else -1: the first check the fast walk makes on every key and
 * string, small enough for V8 to inline into the walk loop (the general {@link chargeString}
 * is not inlined there: measured, the 76,000-record shape spent a tenth of its time in the
 * call).
 */
export function plainShortCost(s: string): number {
  const n = s.length
  if (n > SHORT) return -1
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20 || c > 0x7f || c === 0x22 || c === 0x5c) return -1
  }
  return n + 2
}

/**
 * Cost of a short string: a first loop that only recognises plain printable ASCII (what most
 * keys and short values are, and cheaper than a regular expression call at this length), and
 * the exact per-unit cost from the first unit it does not recognise.
 */
function shortCost(s: string): number {
  const n = s.length
  let i = 0
  for (; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20 || c > 0x7f || c === 0x22 || c === 0x5c) break
  }
  return i === n ? n + 2 : i + exactShortCost(s, i)
}

/** Exact cost of `s` from unit `from` on, one code unit at a time, quotes included. */
function exactShortCost(s: string, from: number): number {
  let cost = 2
  const n = s.length
  for (let i = from; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) {
      if (c >= 0x20) cost += c === 0x22 || c === 0x5c ? 2 : 1
      else cost += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6
    } else if (c < 0x800) {
      cost += 2
    } else if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        cost += 4
        i++
      } else {
        cost += 6
      }
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      cost += 6
    } else {
      cost += 3
    }
  }
  return cost
}

/** Bytes that escaping adds to the raw UTF-8 length of `s` (quotes, backslashes, controls). */
function escapeExtra(s: string): number {
  let extra = 0
  const n = s.length
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20) extra += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 1 : 5
    else if (c === 0x22 || c === 0x5c) extra += 1
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
  // Buffer.byteLength is the native UTF-8 length; it counts a lone surrogate as the three
  // bytes of U+FFFD, where stringify writes six, hence the correction below.
  let cost = Buffer.byteLength(chunk, 'utf8')
  if (NEEDS_ESCAPE.test(chunk)) cost += escapeExtra(chunk)
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
    const cost = shortCost(s)
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
