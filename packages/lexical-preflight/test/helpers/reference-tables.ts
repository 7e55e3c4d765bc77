import { Buffer, isUtf8 } from 'node:buffer'

// Byte classes and the word-at-a-time string skip. Measured on this project's 2-core machine
// (Node 20): a plain JS byte loop runs at 0.4–0.65 GB/s, while
// `buffer.isUtf8` (simdutf) validates at 17–85 GB/s. So string interiors are skipped four bytes
// at a time with SWAR tests, and multi-byte UTF-8 inside strings is checked once per chunk by
// `isUtf8` rather than byte by byte; the byte-by-byte validator only runs where `isUtf8` cannot
// vouch (a chunk with a bad sequence, or the incomplete sequence at a chunk's end).

/** 1 for a byte that may appear unescaped in a string and needs no further check. */
export const PLAIN = new Uint8Array(256)
for (let c = 0x20; c < 0x80; c++) PLAIN[c] = c === 0x22 || c === 0x5c ? 0 : 1

/** 1 for the bytes that may follow a backslash, `u` aside (RFC 8259 §7). */
export const SIMPLE_ESCAPE = new Uint8Array(256)
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1

/** 1 for a hexadecimal digit. */
export const HEX = new Uint8Array(256)
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1

/** `true`, `false` and `null`, back to back; a literal is matched as an index range. */
export const LITERALS = new Uint8Array([...'truefalsenull'].map((c) => c.charCodeAt(0)))

const HIGH = 0x80808080 | 0

const views = new WeakMap<ArrayBufferLike, Int32Array>()

/**
 * An `Int32Array` over every whole word of `buf`'s buffer, cached per buffer so chunks cut from
 * one pooled allocation share it (re-made if the buffer was resized). Word `k` holds buffer
 * bytes `4k..4k+3`; every word lying wholly inside `buf` is covered.
 */
export function wordsOf(buf: Uint8Array): Int32Array {
  const buffer = buf.buffer
  const length = buffer.byteLength >> 2
  let words = views.get(buffer)
  if (words === undefined || words.length !== length) {
    words = new Int32Array(buffer, 0, length)
    views.set(buffer, words)
  }
  return words
}

const indexOf = Buffer.prototype.indexOf

/**
 * The chunk index of the first `byte` at or after `from` in `buf`, or `buf.length` when there
 * is none: `Buffer#indexOf` (memchr, 20+ GB/s on this project's machine), which also accepts a
 * plain `Uint8Array`.
 */
export function nextByte(buf: Uint8Array, byte: number, from: number): number {
  const at = indexOf.call(buf as Buffer, byte, from)
  return at === -1 ? buf.length : at
}

const LOW = 0x20202020

/**
 * Skips 8-byte blocks of string interior holding no control byte and no byte ≥ 0x80 (quotes
 * and backslashes are the caller's business: it stops `end` before the next one). `words`
 * comes from {@link wordsOf}; `off` is the chunk's `byteOffset`; `i` is a chunk index with
 * `(off + i) % 4 === 0`; the blocks skipped never pass chunk index `end`.
 * @returns the chunk index of the first block that was not skipped.
 */
export function skipAsciiBlocks(words: Int32Array, off: number, i: number, end: number): number {
  // The loop returns its own index: arithmetic after a long loop would have no type feedback
  // when V8 compiles the loop on stack replacement, and would deoptimize on every call.
  for (const last = end - 8; i <= last; i += 8) {
    const k = (off + i) >> 2
    const w = words[k]!
    const v = words[k + 1]!
    // (x - 0x20) | x has a byte's high bit set iff some byte is < 0x20 or ≥ 0x80: exact as a
    // yes/no over the word (a borrow only starts at a byte below 0x20).
    if (((w - LOW) | w | (v - LOW) | v) & HIGH) return i
  }
  return i
}

/**
 * As {@link skipAsciiBlocks}, but bytes ≥ 0x80 pass: for a region `isUtf8` already vouched for.
 */
export function skipControlFreeBlocks(
  words: Int32Array,
  off: number,
  i: number,
  end: number,
): number {
  for (const last = end - 8; i <= last; i += 8) {
    const k = (off + i) >> 2
    const w = words[k]!
    const v = words[k + 1]!
    // hasless(x, 0x20): exact as a yes/no over the word, whatever the byte values.
    if ((((w - LOW) & ~w) | ((v - LOW) & ~v)) & HIGH) return i
  }
  return i
}

/**
 * Where the UTF-8 fast path may run in `buf[from..n)` (`from` on a sequence boundary): the end
 * of the longest prefix `isUtf8` vouches for, stopping before an incomplete sequence at `n`. Returns `from` when the rest of the chunk is not well-formed (the byte validator then
 * finds the first bad offset).
 */
export function cleanUtf8End(buf: Uint8Array, from: number, n: number): number {
  let tail = n
  let j = n - 1
  const stopAt = Math.max(n - 4, from)
  while (j >= stopAt && (buf[j]! & 0xc0) === 0x80) j--
  if (j >= from) {
    const c = buf[j]!
    const len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1
    if (n - j < len) tail = j
  }
  if (tail <= from) return from
  return isUtf8(buf.subarray(from, tail)) ? tail : from
}
