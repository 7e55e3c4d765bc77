// AssemblyScript source of the WebAssembly scanner (src/wasm-scanner.ts drives it; the JS
// scanner in src/scanner.ts is the reference and the fallback). The same grammar states, checks
// and check order as that scanner, over the bytes of one piece of at most 64 KiB copied into
// linear memory: a byte read here is one load, where a typed-array read in JS costs 15–20
// instructions. Build: `pnpm --filter @tollgate/lexical-preflight build:wasm`.
//
// Memory (9 pages, grown only by the key policies): the state block at 0 (i32 slots, see
// src/wasm-instance.ts), the piece at 65536 (the SIMD loads never read past its end), the
// container bits at 131072 (one bit per level, 2^20 levels), the key policies' buckets and
// record stack from 262144 (assembly/keys.ts).

import {
  at,
  IN,
  isDigit,
  isHex,
  isSimpleEscape,
  literal,
  numberEnd,
  skipAscii,
  skipSpace,
  skipVouched,
  specialMask,
} from './bytes'
import { keysBegin, keysClose, keysEnd, keysOpen, keysSave } from './keys'

export { keysReset } from './keys'

const STACK: usize = 131072

// Slots of the state block: read at entry, written back at exit (src/wasm-instance.ts).
const K_STATE = 0
const K_DEPTH = 1
const K_MAX_SEEN = 2
const K_NODES_LEFT = 3
const K_IN_OBJ = 4
const K_STR_KEY = 5
const K_STR_START = 6
const K_NUM_START = 7
const K_STR_LIM = 8
const K_NUM_LIM = 9
const K_AUX = 10
const K_LO = 11
const K_HI = 12
const K_MAX_DEPTH = 13
const K_STRIP_BOM = 14
const K_STR_STEP = 15
const K_NUM_STEP = 16
const K_PEAK = 17
const K_ERR_OFFSET = 18
const K_CLEAN_END = 19
const K_KEYS = 20

// Refusals, returned by `run` (0: the piece was scanned).
const E_SYNTAX = 1
const E_UTF8 = 2
const E_NODES = 3
const E_DEPTH = 4
const E_STRING = 5
const E_NUMBER = 6
const E_BOM = 7
const E_SYNTAX_AT_0 = 8
/** Not a refusal: the state is stored; JS sets K_CLEAN_END and calls `run` again from K_ERR_OFFSET. */
const E_NEED_UTF8 = 9
const E_DUPLICATE_KEY = 10
const E_PROTO_KEY = 11
/** Not a refusal: the key policies' memory could not grow (K_ERR_OFFSET is not set). */
const E_KEY_MEMORY = 12

const S_VALUE = 0
const S_ARRAY_FIRST = 1
const S_OBJECT_FIRST = 2
const S_KEY = 3
const S_COLON = 4
const S_AFTER = 5
const S_DONE = 6
const S_STRING = 7
const S_ESCAPE = 8
const S_HEX = 9
const S_UTF8 = 10
const S_MINUS = 11
const S_ZERO = 12
const S_INT = 13
const S_DOT = 14
const S_FRAC = 15
const S_EXP = 16
const S_EXP_SIGN = 17
const S_EXP_DIGITS = 18
const S_LITERAL = 19
const S_START = 20
const S_BOM = 21

function get(k: i32): i32 {
  return load<i32>((<usize>k) << 2)
}

function put(k: i32, v: i32): void {
  store<i32>((<usize>k) << 2, v)
}

function bitAt(d: i32): i32 {
  return (load<u32>(STACK + ((<usize>d >> 5) << 2)) >>> (<u32>d & 31)) & 1
}

function setBit(d: i32, obj: bool): void {
  const p = STACK + ((<usize>d >> 5) << 2)
  const bit: u32 = 1 << (<u32>d & 31)
  const w = load<u32>(p)
  store<u32>(p, obj ? w | bit : w & ~bit)
}

/** A byte no token can start with: ill-formed UTF-8 when no sequence can begin with it. */
function unexpected(c: i32): i32 {
  return c >= 0x80 && (c < 0xc2 || c > 0xf4) ? E_UTF8 : E_SYNTAX
}

function fail(code: i32, offset: i32): i32 {
  put(K_ERR_OFFSET, offset)
  return code
}

/**
 * Scans the piece from `start` to `n`; the state block holds the state before and after. At
 * the piece's first non-ASCII byte inside a string it returns E_NEED_UTF8 with the state
 * stored, so JS can ask `buffer.isUtf8` (simdutf) how far the piece is well-formed
 * (K_CLEAN_END, -1 while unknown): string bytes before that offset need no UTF-8 check here.
 */
export function run(start: i32, n: i32): i32 {
  let state = get(K_STATE)
  let depth = get(K_DEPTH)
  let maxSeen = get(K_MAX_SEEN)
  let left = get(K_NODES_LEFT)
  let inObj = get(K_IN_OBJ) !== 0
  let strKey = get(K_STR_KEY)
  let strStart = get(K_STR_START)
  let numStart = get(K_NUM_START)
  let strLim = get(K_STR_LIM)
  let numLim = get(K_NUM_LIM)
  let aux = get(K_AUX)
  let lo = get(K_LO)
  let hi = get(K_HI)
  const maxDepth = get(K_MAX_DEPTH)
  const strStep = get(K_STR_STEP)
  const numStep = get(K_NUM_STEP)
  const cleanEnd = get(K_CLEAN_END)
  let peak = get(K_PEAK)
  const keys = get(K_KEYS)
  let i = start
  let c = 0
  let need = false

  while (i < n) {
    if (state <= S_DONE) {
      c = at(i)
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        i++
        // A run of whitespace (indentation, a flood): 16 bytes a compare.
        if (i + 16 <= n && at(i) <= 0x20) i = skipSpace(i, n)
        continue
      }
      if (state === S_AFTER) {
        if (c === 0x2c) {
          state = inObj ? S_KEY : S_VALUE
          i++
          continue
        }
        if (c === (inObj ? 0x7d : 0x5d)) {
          if (inObj && keys !== 0) keysClose()
          depth--
          if (depth === 0) state = S_DONE
          else inObj = bitAt(depth - 1) === 1
          i++
          continue
        }
        return fail(unexpected(c), i)
      }
      if (state === S_COLON) {
        if (c !== 0x3a) return fail(unexpected(c), i)
        state = S_VALUE
        i++
        continue
      }
      if (state === S_DONE) return fail(unexpected(c), i)
      if (state === S_OBJECT_FIRST || state === S_KEY) {
        if (c === 0x22) {
          if (left === 0) return fail(E_NODES, i)
          left--
          strKey = 1
          strStart = i
          if (keys !== 0) keysBegin()
          strLim = i + 1 + strStep
          state = S_STRING
          i++
        } else if (c === 0x7d && state === S_OBJECT_FIRST) {
          state = S_AFTER
          continue
        } else return fail(unexpected(c), i)
      } else {
        // S_VALUE or S_ARRAY_FIRST
        if (c === 0x5d && state === S_ARRAY_FIRST) {
          state = S_AFTER
          continue
        }
        if (c === 0x22) {
          strKey = 0
          strStart = i
          strLim = i + 1 + strStep
          state = S_STRING
          if (left === 0) return fail(E_NODES, i)
          left--
          i++
        } else {
          // A whole number or literal ending inside the piece, within its limits: one step.
          // Anything else (cut by the piece end, too long, over the budget, malformed) goes
          // through the states below from its first byte, which give every refusal.
          let j = -1
          if (isDigit(c) || c === 0x2d) j = numberEnd(i, n, c)
          else if (c === 0x74) {
            if (i + 4 <= n && load<u32>(IN + <usize>i) === 0x65757274) j = i + 4
          } else if (c === 0x66) {
            if (i + 5 <= n && load<u32>(IN + <usize>i) === 0x736c6166 && at(i + 4) === 0x65)
              j = i + 5
          } else if (c === 0x6e) {
            if (i + 4 <= n && load<u32>(IN + <usize>i) === 0x6c6c756e) j = i + 4
          }
          if (j !== -1 && j < n && left > 0 && (c > 0x39 || j - i <= numStep)) {
            left--
            i = j
            if (depth === 0) state = S_DONE
            else if (at(i) === 0x2c) {
              state = inObj ? S_KEY : S_VALUE
              i++
            } else state = S_AFTER
            continue
          }
          if (isDigit(c)) {
            numStart = i
            numLim = i + numStep
            state = c === 0x30 ? S_ZERO : S_INT
          } else if (c === 0x7b || c === 0x5b) {
            if (left === 0) return fail(E_NODES, i)
            if (depth === maxDepth) return fail(E_DEPTH, i)
            const obj = c === 0x7b
            if (obj && keys !== 0 && !keysOpen(inObj && state === S_VALUE)) return E_KEY_MEMORY
            setBit(depth, obj)
            depth++
            if (depth > maxSeen) maxSeen = depth
            if (depth > peak) peak = depth
            inObj = obj
            state = obj ? S_OBJECT_FIRST : S_ARRAY_FIRST
          } else if (c === 0x2d) {
            numStart = i
            numLim = i + numStep
            state = S_MINUS
          } else if (c === 0x74) {
            aux = 1
            lo = 4
            state = S_LITERAL
          } else if (c === 0x66) {
            aux = 5
            lo = 9
            state = S_LITERAL
          } else if (c === 0x6e) {
            aux = 10
            lo = 13
            state = S_LITERAL
          } else return fail(unexpected(c), i)
          if (left === 0) return fail(E_NODES, i)
          left--
          i++
          continue
        }
      }
    }

    if (state === S_STRING) {
      const lim = strLim < n ? strLim : n
      for (;;) {
        // Bytes of the region isUtf8 vouched for pass with the plain ones (a signed compare
        // below 0x20 stops at a byte ≥ 0x80 too; an unsigned one does not).
        const clean = i < cleanEnd
        const e = clean && cleanEnd < lim ? cleanEnd : lim
        if (i < e) {
          c = at(i)
          if (c >= 0x20 && c !== 0x22 && c !== 0x5c && (clean || c < 0x80)) {
            i++
            // 32 and 16 bytes at a time, then byte by byte.
            i = clean ? skipVouched(i, e) : skipAscii(i, e)
            while (i < e) {
              c = at(i)
              if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0x80 && !clean)) break
              i++
            }
          }
        }
        if (i >= e) {
          // The end of the vouched-for region: byte by byte checks from here.
          if (e < lim) continue
          if (i >= n) break
          // The string-length limit: only the closing quote may sit at this offset.
          c = at(i)
          if (c !== 0x22) return fail(E_STRING, i)
        } else c = at(i)
        if (c === 0x22) {
          if (strKey !== 0 && keys !== 0) {
            // A key that began in an earlier piece: strStart is -1 and JS knows its offset.
            const v = keysEnd(strStart >= 0 ? strStart + 1 : 0, i)
            if (v === 1) return fail(E_DUPLICATE_KEY, strStart)
            if (v === 2) return fail(E_PROTO_KEY, strStart)
            if (v < 0) return E_KEY_MEMORY
          }
          i++
          if (strKey !== 0) {
            state = S_COLON
            if (i < n && at(i) === 0x3a) {
              state = S_VALUE
              i++
            }
          } else if (depth === 0) state = S_DONE
          else {
            state = S_AFTER
            if (i < n && at(i) === 0x2c) {
              state = inObj ? S_KEY : S_VALUE
              i++
            }
          }
          break
        }
        if (c === 0x5c) {
          // Escapes back to back (escape-dense text) stay in this loop.
          let whole = true
          // The bits of the 32 bytes from `mb` that are not plain ASCII interior (specialMask),
          // kept across escapes in the block: the next backslash is the next bit.
          let mb = i - 32
          let mask: u32 = 0
          for (;;) {
            if (i + 1 >= lim) {
              whole = false
              break
            }
            const e = at(i + 1)
            if (isSimpleEscape(e)) i += 2
            else if (e !== 0x75) return fail(E_SYNTAX, i + 1)
            else if (
              i + 5 < lim &&
              isHex(at(i + 2)) &&
              isHex(at(i + 3)) &&
              isHex(at(i + 4)) &&
              isHex(at(i + 5))
            ) {
              i += 6
            } else {
              whole = false
              break
            }
            // The next byte that is not plain ASCII interior, 32 bytes a compare: in
            // escape-dense text the next backslash, found without leaving this loop.
            for (;;) {
              if (i - mb >= 32) {
                if (i + 32 > lim) break
                mb = i
                mask = specialMask(i)
              }
              const m = mask & ((<u32>0xffffffff) << (<u32>(i - mb)))
              if (m !== 0) {
                i = mb + ctz(m)
                break
              }
              i = mb + 32
            }
            if (i >= lim || at(i) !== 0x5c) break
          }
          if (whole) continue
          // Cut by the piece end or the string limit, or bad hex digits: through the states.
          state = S_ESCAPE
          i++
          break
        }
        if (c < 0x20) return fail(E_SYNTAX, i)
        if (cleanEnd === -1) {
          need = true
          break
        }
        // A multi-byte sequence (Unicode Table 3-7): whole here when it ends before `lim`.
        if (c >= 0xc2 && c <= 0xdf) {
          aux = 1
          lo = 0x80
          hi = 0xbf
        } else if (c >= 0xe0 && c <= 0xef) {
          aux = 2
          lo = c === 0xe0 ? 0xa0 : 0x80
          hi = c === 0xed ? 0x9f : 0xbf
        } else if (c >= 0xf0 && c <= 0xf4) {
          aux = 3
          lo = c === 0xf0 ? 0x90 : 0x80
          hi = c === 0xf4 ? 0x8f : 0xbf
        } else return fail(E_UTF8, i)
        if (i + aux < lim) {
          let b = at(i + 1)
          if (b < lo || b > hi) return fail(E_UTF8, i + 1)
          if (aux >= 2) {
            b = at(i + 2)
            if (<u32>(b - 0x80) > 0x3f) return fail(E_UTF8, i + 2)
            if (aux === 3) {
              b = at(i + 3)
              if (<u32>(b - 0x80) > 0x3f) return fail(E_UTF8, i + 3)
            }
          }
          i += aux + 1
          continue
        }
        state = S_UTF8
        i++
        break
      }
      if (need) break
      continue
    }

    switch (state) {
      case S_ESCAPE: {
        if (i >= strLim) return fail(E_STRING, i)
        c = at(i)
        if (isSimpleEscape(c)) state = S_STRING
        else if (c === 0x75) {
          aux = 4
          state = S_HEX
        } else return fail(E_SYNTAX, i)
        i++
        break
      }
      case S_HEX: {
        if (i >= strLim) return fail(E_STRING, i)
        if (!isHex(at(i))) return fail(E_SYNTAX, i)
        i++
        if (--aux === 0) state = S_STRING
        break
      }
      case S_UTF8: {
        if (i >= strLim) return fail(E_STRING, i)
        c = at(i)
        if (c < lo || c > hi) return fail(E_UTF8, i)
        lo = 0x80
        hi = 0xbf
        i++
        if (--aux === 0) state = S_STRING
        break
      }
      case S_MINUS: {
        c = at(i)
        if (!isDigit(c)) return fail(E_SYNTAX, i)
        if (i >= numLim) return fail(E_NUMBER, i)
        state = c === 0x30 ? S_ZERO : S_INT
        i++
        break
      }
      case S_DOT:
      case S_EXP_SIGN: {
        c = at(i)
        if (!isDigit(c)) return fail(E_SYNTAX, i)
        if (i >= numLim) return fail(E_NUMBER, i)
        state = state === S_DOT ? S_FRAC : S_EXP_DIGITS
        i++
        break
      }
      case S_EXP: {
        c = at(i)
        if (c === 0x2b || c === 0x2d) state = S_EXP_SIGN
        else if (isDigit(c)) state = S_EXP_DIGITS
        else return fail(E_SYNTAX, i)
        if (i >= numLim) return fail(E_NUMBER, i)
        i++
        break
      }
      case S_ZERO:
      case S_INT:
      case S_FRAC:
      case S_EXP_DIGITS: {
        if (state !== S_ZERO) {
          const e = numLim < n ? numLim : n
          while (i < e && isDigit(at(i))) i++
          if (i === n) break
        }
        c = at(i)
        let next = -1
        if (isDigit(c)) {
          // After a leading zero a digit is a syntax error; elsewhere it is the limit.
          if (state === S_ZERO) return fail(E_SYNTAX, i)
          next = state
        } else if (c === 0x2e) {
          if (state === S_ZERO || state === S_INT) next = S_DOT
        } else if (c === 0x65 || c === 0x45) {
          if (state !== S_EXP_DIGITS) next = S_EXP
        }
        if (next !== -1) {
          if (i >= numLim) return fail(E_NUMBER, i)
          state = next
          i++
          break
        }
        // The number ended at a byte that is not part of it.
        if (depth === 0) state = S_DONE
        else if (c === 0x2c) {
          state = inObj ? S_KEY : S_VALUE
          i++
        } else state = S_AFTER
        break
      }
      case S_LITERAL: {
        while (aux < lo && i < n) {
          c = at(i)
          if (c !== literal(aux)) return fail(unexpected(c), i)
          aux++
          i++
        }
        if (aux < lo) break
        if (depth === 0) state = S_DONE
        else if (i < n && at(i) === 0x2c) {
          state = inObj ? S_KEY : S_VALUE
          i++
        } else state = S_AFTER
        break
      }
      case S_START: {
        if (at(i) === 0xef) {
          aux = 1
          state = S_BOM
          i++
        } else state = S_VALUE
        break
      }
      case S_BOM: {
        // Outside strings a non-ASCII byte is refused where it starts: offset 0.
        if (at(i) !== (aux === 1 ? 0xbb : 0xbf)) return E_SYNTAX_AT_0
        i++
        if (++aux === 3) {
          if (get(K_STRIP_BOM) === 0) return E_BOM
          state = S_VALUE
        }
        break
      }
      default:
        unreachable()
    }
  }

  put(K_STATE, state)
  put(K_DEPTH, depth)
  put(K_MAX_SEEN, maxSeen)
  put(K_NODES_LEFT, left)
  put(K_IN_OBJ, inObj ? 1 : 0)
  put(K_STR_KEY, strKey)
  put(K_STR_START, strStart)
  put(K_NUM_START, numStart)
  put(K_STR_LIM, strLim)
  put(K_NUM_LIM, numLim)
  put(K_AUX, aux)
  put(K_LO, lo)
  put(K_HI, hi)
  put(K_PEAK, peak)
  if (need) {
    put(K_ERR_OFFSET, i)
    return E_NEED_UTF8
  }
  if (keys !== 0 && strKey !== 0 && state >= S_STRING && state <= S_UTF8) {
    if (!keysSave(strStart >= 0 ? strStart + 1 : 0, n)) return E_KEY_MEMORY
  }
  return 0
}
