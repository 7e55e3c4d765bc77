import { isUtf8 } from 'node:buffer'

// Byte classes and the word-at-a-time string skip. Measured on this project's machine
// (shared/research/perf-baselines.md): a plain JS byte loop runs at 0.4–0.65 GB/s, while
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

/**
 * Skips whole 4-byte words of string interior: no quote, backslash or control byte, and no
 * byte ≥ 0x80 unless `allowHigh` (the region was already validated as UTF-8). `words` views the
 * chunk's buffer from the 4-aligned address at or before the chunk start (`shift` bytes
 * before it); `k` is the first word to test, `end` the chunk index the words must not pass.
 * @returns the chunk index of the first word that was not skipped (or the last word's end).
 */
export function skipWords(
  words: Int32Array,
  shift: number,
  k: number,
  end: number,
  allowHigh: boolean,
): number {
  const kEnd = (end + shift) >> 2
  if (allowHigh) {
    for (; k < kEnd; k++) {
      const w = words[k]!
      const q = w ^ 0x22222222
      const b = w ^ 0x5c5c5c5c
      // hasless(w, 0x20) | haszero(w ^ '"') | haszero(w ^ '\\'), exact for any byte values.
      if ((((w - 0x20202020) & ~w) | ((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b)) & HIGH) {
        break
      }
    }
  } else {
    for (; k < kEnd; k++) {
      const w = words[k]!
      const q = w ^ 0x22222222
      const b = w ^ 0x5c5c5c5c
      if (
        (((w - 0x20202020) & ~w) | w | ((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b)) &
        HIGH
      ) {
        break
      }
    }
  }
  return k * 4 - shift
}

/**
 * Where the UTF-8 fast path may run in `buf` from `from` (a sequence boundary): the end of the
 * longest prefix `isUtf8` vouches for, stopping before an incomplete sequence at the chunk's
 * end. Returns `from` when the rest of the chunk is not well-formed (the byte validator then
 * finds the first bad offset).
 */
export function cleanUtf8End(buf: Uint8Array, from: number): number {
  const n = buf.length
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
