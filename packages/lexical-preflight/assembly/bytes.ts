// Byte classes, the SIMD string skips and the number matcher of the WebAssembly scanner
// (assembly/scanner.ts, which owns the memory layout: the piece sits at IN).

/** Byte offset of the piece in linear memory (src/wasm-instance.ts: WASM_IN). */
export const IN: usize = 65536

export function at(i: i32): i32 {
  return <i32>load<u8>(IN + <usize>i)
}

export function isDigit(c: i32): bool {
  return <u32>(c - 0x30) < 10
}

export function isHex(c: i32): bool {
  return <u32>(c - 0x30) < 10 || <u32>((c | 0x20) - 0x61) < 6
}

export function isSimpleEscape(c: i32): bool {
  // One bit per byte from 0x22: '"' 0, '/' 13, '\\' 58; 'b' 64, 'f' 68, 'n' 76, 'r' 80, 't' 82.
  const k = <u32>(c - 0x22)
  if (k < 64) return ((ESCAPES_LO >> <u64>k) & 1) !== 0
  return k < 83 && ((ESCAPES_HI >> <u64>(k - 64)) & 1) !== 0
}

const ESCAPES_LO: u64 = ((<u64>1) << 58) | ((<u64>1) << 13) | 1
const ESCAPES_HI: u64 = (1 << 18) | (1 << 16) | (1 << 12) | (1 << 4) | 1

/** Byte `k` of "truefalsenull". */
export function literal(k: i32): i32 {
  // "true", "fals", "enul", "l" as little-endian words.
  const word: u32 = k < 4 ? 0x65757274 : k < 8 ? 0x736c6166 : k < 12 ? 0x6c756e65 : 0x6c
  return <i32>((word >>> ((<u32>k & 3) << 3)) & 0xff)
}

/**
 * The first offset from `i` before `e` that is not plain ASCII string interior (a quote, a
 * backslash, a control byte or a byte ≥ 0x80), 32 then 16 bytes at a time; the bytes left
 * before `e` (fewer than 16) are the caller's.
 */
export function skipAscii(i: i32, e: i32): i32 {
  const quote = i8x16.splat(0x22)
  const backslash = i8x16.splat(0x5c)
  const space = i8x16.splat(0x20)
  while (i + 32 <= e) {
    const v = v128.load(IN + <usize>i)
    const u = v128.load(IN + <usize>i, 16)
    // Signed: a byte ≥ 0x80 is below 0x20 too.
    const a = v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)), i8x16.lt_s(v, space))
    const b = v128.or(v128.or(i8x16.eq(u, quote), i8x16.eq(u, backslash)), i8x16.lt_s(u, space))
    const mask = i8x16.bitmask(a) | (i8x16.bitmask(b) << 16)
    if (mask !== 0) return i + ctz(mask)
    i += 32
  }
  while (i + 16 <= e) {
    const v = v128.load(IN + <usize>i)
    const a = v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)), i8x16.lt_s(v, space))
    const mask = i8x16.bitmask(a)
    if (mask !== 0) return i + ctz(mask)
    i += 16
  }
  return i
}

/**
 * The bits of the 32 bytes from `i` that are not plain ASCII string interior (a quote, a
 * backslash, a control byte or a byte ≥ 0x80): bit k for byte i + k. The caller keeps
 * `i + 32` within the piece.
 */
export function specialMask(i: i32): u32 {
  const quote = i8x16.splat(0x22)
  const backslash = i8x16.splat(0x5c)
  const space = i8x16.splat(0x20)
  const v = v128.load(IN + <usize>i)
  const u = v128.load(IN + <usize>i, 16)
  // Signed: a byte ≥ 0x80 is below 0x20 too.
  const a = v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)), i8x16.lt_s(v, space))
  const b = v128.or(v128.or(i8x16.eq(u, quote), i8x16.eq(u, backslash)), i8x16.lt_s(u, space))
  return <u32>i8x16.bitmask(a) | ((<u32>i8x16.bitmask(b)) << 16)
}

/** As {@link skipAscii}, but bytes ≥ 0x80 pass: for the region isUtf8 vouched for. */
export function skipVouched(i: i32, e: i32): i32 {
  const quote = i8x16.splat(0x22)
  const backslash = i8x16.splat(0x5c)
  const space = i8x16.splat(0x20)
  while (i + 32 <= e) {
    const v = v128.load(IN + <usize>i)
    const u = v128.load(IN + <usize>i, 16)
    const a = v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)), i8x16.lt_u(v, space))
    const b = v128.or(v128.or(i8x16.eq(u, quote), i8x16.eq(u, backslash)), i8x16.lt_u(u, space))
    const mask = i8x16.bitmask(a) | (i8x16.bitmask(b) << 16)
    if (mask !== 0) return i + ctz(mask)
    i += 32
  }
  while (i + 16 <= e) {
    const v = v128.load(IN + <usize>i)
    const a = v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)), i8x16.lt_u(v, space))
    const mask = i8x16.bitmask(a)
    if (mask !== 0) return i + ctz(mask)
    i += 16
  }
  return i
}

/**
 * The first offset from `i` before `e` that is not JSON whitespace (space, tab, LF, CR), 32
 * then 16 bytes at a time; the bytes left before `e` (fewer than 16) are the caller's.
 */
export function skipSpace(i: i32, e: i32): i32 {
  const space = i8x16.splat(0x20)
  const tab = i8x16.splat(0x09)
  const lf = i8x16.splat(0x0a)
  const cr = i8x16.splat(0x0d)
  while (i + 32 <= e) {
    const v = v128.load(IN + <usize>i)
    const u = v128.load(IN + <usize>i, 16)
    const a = v128.or(
      v128.or(i8x16.eq(v, space), i8x16.eq(v, lf)),
      v128.or(i8x16.eq(v, cr), i8x16.eq(v, tab)),
    )
    const b = v128.or(
      v128.or(i8x16.eq(u, space), i8x16.eq(u, lf)),
      v128.or(i8x16.eq(u, cr), i8x16.eq(u, tab)),
    )
    const mask = ~(i8x16.bitmask(a) | (i8x16.bitmask(b) << 16))
    if (mask !== 0) return i + ctz(mask)
    i += 32
  }
  while (i + 16 <= e) {
    const v = v128.load(IN + <usize>i)
    const a = v128.or(
      v128.or(i8x16.eq(v, space), i8x16.eq(v, lf)),
      v128.or(i8x16.eq(v, cr), i8x16.eq(v, tab)),
    )
    const mask = ~i8x16.bitmask(a) & 0xffff
    if (mask !== 0) return i + ctz(mask)
    i += 16
  }
  return i
}

/**
 * The end of the number starting at `i` (its first byte `c`) when it is whole before `n`:
 * -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?; -1 when a part is empty or the piece
 * ends inside it (the states then take it byte by byte).
 */
export function numberEnd(i: i32, n: i32, c: i32): i32 {
  let j = i
  if (c === 0x2d) j++
  if (j < n && at(j) === 0x30) j++
  else {
    const from = j
    while (j < n && isDigit(at(j))) j++
    if (j === from) return -1
  }
  if (j < n && at(j) === 0x2e) {
    const from = ++j
    while (j < n && isDigit(at(j))) j++
    if (j === from) return -1
  }
  if (j < n && (at(j) | 0x20) === 0x65) {
    j++
    if (j < n && (at(j) === 0x2b || at(j) === 0x2d)) j++
    const from = j
    while (j < n && isDigit(at(j))) j++
    if (j === from) return -1
  }
  return j
}
