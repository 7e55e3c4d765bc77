import type { AdmissionCode, AdmissionError } from '@tollgate/json-budget'
import { KeyTracker } from './key-policy.js'
import type { ResolvedPreflightOptions } from './options.js'
import { refusal, ScannerContract } from './scanner-contract.js'
import {
  cleanUtf8End,
  HEX,
  LITERALS,
  nextByte,
  PLAIN,
  SIMPLE_ESCAPE,
  skipAsciiBlocks,
  skipControlFreeBlocks,
  wordsOf,
} from './tables.js'

// Grammar states, saved between chunks. 0..6 sit between tokens; the rest are inside one.
const S_VALUE = 0 // a value is expected (top level, after ':' or after ',' in an array)
const S_ARRAY_FIRST = 1 // after '[': a value or ']'
const S_OBJECT_FIRST = 2 // after '{': a key or '}'
const S_KEY = 3 // after ',' in an object: a key
const S_COLON = 4
const S_AFTER = 5 // after a value inside a container: ',' or the closing bracket
const S_DONE = 6 // after the top-level value: whitespace only
const S_STRING = 7
const S_ESCAPE = 8 // after '\'
const S_HEX = 9 // inside '\uXXXX', `aux` digits to go
const S_UTF8 = 10 // inside a multi-byte sequence, `aux` bytes to go within [lo, hi]
const S_MINUS = 11
const S_ZERO = 12
const S_INT = 13
const S_DOT = 14
const S_FRAC = 15
const S_EXP = 16
const S_EXP_SIGN = 17
const S_EXP_DIGITS = 18
const S_LITERAL = 19 // matching LITERALS[aux..lo)
const S_START = 20 // offset 0: a BOM may begin here
const S_BOM = 21 // inside EF BB BF, `aux` bytes seen

const BOM = [0xef, 0xbb, 0xbf] as const
/** Most bytes one call of `run` scans (see `scan`). */
const SLICE = 64 * 1024

/** Nodes, depth and bytes of an admitted document. */
export interface PreflightResult {
  /** Containers + scalars + object keys, counted as json-budget's `chargeJson` counts them. */
  readonly nodes: number
  /** Deepest nesting of containers seen (a top-level scalar is 0, `[]` is 1). */
  readonly depth: number
  /** Input bytes pushed, a stripped BOM included. */
  readonly bytes: number
}

/**
 * The incremental scanner behind `createPreflight`: feed it chunks, then call `end()`. It keeps
 * O(depth) state (one bit per open container) and allocates nothing per token unless a key
 * policy is on.
 */
export class PreflightScanner extends ScannerContract {
  private readonly maxNodes: number
  private readonly maxDepth: number
  protected readonly maxBytes: number
  private readonly maxStr: number
  private readonly maxNum: number
  private readonly stripBom: boolean
  private readonly keys: KeyTracker | null
  private inObj = false
  /** One bit per open container, 1 for an object: levels 0–31 here, deeper ones in `high`. */
  private low = 0
  /** Levels 32 and up, allocated on first use and grown by doubling. */
  private high: Int32Array | null = null
  private strKey = false
  /** Input offsets of the open string's quote and the open number's first character. */
  private strStartAbs = 0
  private numStartAbs = 0
  private keyStartAbs = 0
  private aux = 0
  private lo = 0
  private hi = 0
  /** Chunk index of the next quote / backslash at or after the last search (memchr cache). */
  private quoteAt = -1
  private backslashAt = -1

  constructor(options: ResolvedPreflightOptions) {
    super()
    const limits = options
    const policies = options
    this.maxNodes = limits.maxNodes
    this.maxDepth = limits.maxDepth
    this.maxBytes = limits.maxBytes
    // Clamped to maxBytes (a string or number cannot outgrow the input) so offsets stay small
    // integers in the hot loop instead of Infinity.
    const cap = limits.maxBytes
    this.maxStr = Math.min(policies.maxStringBytes, cap)
    this.maxNum = Math.min(policies.maxNumberLength, cap)
    this.stripBom = policies.bom === 'strip'
    const dup = policies.duplicateKeys === 'refuse'
    const proto = policies.protoKeys === 'refuse'
    this.keys = dup || proto ? new KeyTracker(dup, proto) : null
  }

  /** The container bit of nesting level `d` (32 or more). */
  private bitAt(d: number): boolean {
    const high = this.high!
    return ((high[(d - 32) >> 5]! >>> ((d - 32) & 31)) & 1) === 1
  }

  /** Records whether nesting level `d` (32 or more) is an object. */
  private setBit(d: number, isObj: boolean): void {
    const w = (d - 32) >> 5
    let high = this.high
    if (high === null || w >= high.length) {
      const grown = new Int32Array(high === null ? 2 : high.length * 2)
      if (high !== null) grown.set(high)
      this.high = high = grown
    }
    const bit = 1 << ((d - 32) & 31)
    high[w] = isObj ? high[w]! | bit : high[w]! & ~bit
  }

  /**
   * Scans `buf[0..end)` in slices of at most {@link SLICE} bytes. Many short calls let V8
   * optimize `run` as a whole, with feedback for its exit; one long call would be compiled on
   * stack replacement before its exit ever ran, and deoptimize there on every later call.
   */
  protected scan(buf: Uint8Array, end: number, base: number): void {
    this.quoteAt = -1
    this.backslashAt = -1
    for (let from = 0; from < end; from += SLICE) {
      this.run(buf, from, Math.min(from + SLICE, end), base)
    }
  }

  /**
   * Skips a long run of string interior from `i`: up to the next quote
   * or backslash (memchr, cached per chunk) or `lim`, eight bytes at a time while no control
   * byte (nor, outside the region `isUtf8` vouched for, a byte ≥ 0x80) appears.
   * @returns where the byte loop resumes.
   */
  private skipRun(buf: Uint8Array, i: number, lim: number, cleanEnd: number): number {
    let q = this.quoteAt
    if (q < i) this.quoteAt = q = nextByte(buf, 0x22, i)
    let b = this.backslashAt
    if (b < i) this.backslashAt = b = nextByte(buf, 0x5c, i)
    let end = Math.min(q, b, lim)
    const clean = i < cleanEnd
    if (clean && end > cleanEnd) end = cleanEnd
    const off = buf.byteOffset
    // Byte by byte up to a word boundary.
    while (((off + i) & 3) !== 0) {
      if (i >= end) return i
      const c = buf[i]!
      if (c < 0x20 || (c >= 0x80 && !clean)) return i
      i++
    }
    if (end - i < 8) return i
    const words = wordsOf(buf)
    return clean ? skipControlFreeBlocks(words, off, i, end) : skipAsciiBlocks(words, off, i, end)
  }

  /** Scans `buf[start..n)`; `base` is the input offset of `buf[0]`. */
  private run(buf: Uint8Array, start: number, n: number, base: number): void {
    const maxNodes = this.maxNodes
    const maxDepth = this.maxDepth
    const maxStr = this.maxStr
    const maxNum = this.maxNum
    const keys = this.keys
    // Module-level tables as locals: V8 then keeps them in registers instead of reloading them
    // from the module context on every byte.
    const plain = PLAIN
    const simpleEscape = SIMPLE_ESCAPE
    const hex = HEX
    let cleanEnd = -1
    let low = this.low
    let state = this.state
    let depth = this.depth
    let maxSeen = this.maxSeen
    let nodes = this.nodes
    let inObj = this.inObj
    let strKey = this.strKey
    // Limit positions are chunk indexes kept in small-integer range: a limit beyond this slice
    // is n + 1. With limits above 2^30 (maxBytes 2 GiB, say) the sums would otherwise be
    // doubles, boxed on every store: 0.7 MB of garbage per 100 MB scanned.
    const strStep = maxStr > n ? n + 1 : maxStr
    const numStep = maxNum > n ? n + 1 : maxNum
    let strStart = this.strStartAbs - base
    let numStart = this.numStartAbs - base
    let strLim = n + 1
    let numLim = n + 1
    // An open string's or number's limit was not passed in an earlier slice, so these sums
    // are either beyond the slice or small non-negative integers.
    const strEnd = strStart + 1 + maxStr
    if (strEnd <= n) strLim = strEnd | 0
    const numEnd = numStart + maxNum
    if (numEnd <= n) numLim = numEnd | 0
    let aux = this.aux
    let lo = this.lo
    let hi = this.hi
    let keyPiece = start
    let i = start
    let c = 0

    scan: while (i < n) {
      if (state <= S_DONE && keys === null) {
        // Fast path (no key policy): whole tokens, each checked and counted here, state kept
        // between tokens exactly as the byte machine below keeps it. At anything this loop does
        // not finish itself (an error, a limit reached, a token cut by the slice end, an escape
        // or a long string) it stops at that token's first byte with the state the machine would
        // have there, or inside a string with the machine's string state, and the machine takes
        // over: every refusal comes from the same code as before.
        for (;;) {
          if (i >= n) break scan
          c = buf[i]!
          if (c <= 0x20) {
            if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
              i++
              continue
            }
            break
          }
          if (state === S_AFTER) {
            if (c === 0x2c) {
              state = inObj ? S_KEY : S_VALUE
              i++
              continue
            }
            if (c !== (inObj ? 0x7d : 0x5d)) break
            depth--
            if (depth === 0) state = S_DONE
            else if (depth <= 32) inObj = ((low >>> (depth - 1)) & 1) === 1
            else inObj = this.bitAt(depth - 1)
            i++
            continue
          }
          if (state === S_COLON) {
            if (c !== 0x3a) break
            state = S_VALUE
            i++
            continue
          }
          if (state === S_DONE) break
          if (c === 0x22) {
            // A key (S_OBJECT_FIRST, S_KEY) or a string value (S_VALUE, S_ARRAY_FIRST).
            if (nodes >= maxNodes) break
            nodes++
            strKey = state === S_OBJECT_FIRST || state === S_KEY
            strStart = i
            strLim = i + 1 + strStep
            let lim = n
            if (strLim < n) lim = strLim
            // Short strings end here; a longer one goes on in the string section (skipRun).
            let stop = i + 25
            if (stop > lim) stop = lim
            i++
            while (i < stop && plain[buf[i]!] === 1) i++
            if (i < lim && buf[i] === 0x22) {
              i++
              if (strKey) {
                state = S_COLON
                if (i < n && buf[i] === 0x3a) {
                  state = S_VALUE
                  i++
                }
              } else if (depth === 0) state = S_DONE
              else {
                state = S_AFTER
                if (i < n && buf[i] === 0x2c) {
                  state = inObj ? S_KEY : S_VALUE
                  i++
                }
              }
              continue
            }
            state = S_STRING
            // A long run of plain bytes: skip it word by word before the string section.
            if (i === stop && lim - i >= 32) i = this.skipRun(buf, i, lim, cleanEnd)
            break
          }
          if (state === S_OBJECT_FIRST || state === S_KEY) {
            if (c !== 0x7d || state === S_KEY) break
            state = S_AFTER
            continue
          }
          // S_VALUE or S_ARRAY_FIRST
          if (c === 0x7b || c === 0x5b) {
            if (nodes >= maxNodes || depth === maxDepth) break
            const isObj = c === 0x7b
            if (depth < 32) low = isObj ? low | (1 << depth) : low & ~(1 << depth)
            else this.setBit(depth, isObj)
            depth++
            if (depth > maxSeen) maxSeen = depth
            inObj = isObj
            nodes++
            state = isObj ? S_OBJECT_FIRST : S_ARRAY_FIRST
            i++
            continue
          }
          let j = i
          if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
            // A number, whole within the slice: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
            // Digits by two compares (fewer typed-array reads than a table: measured).
            if (c === 0x2d) j++
            if (j < n && buf[j] === 0x30) j++
            else {
              const from = j
              while (j < n && buf[j]! - 0x30 < 10 && buf[j]! >= 0x30) j++
              if (j === from) break
            }
            if (j < n && buf[j] === 0x2e) {
              const from = ++j
              while (j < n && buf[j]! - 0x30 < 10 && buf[j]! >= 0x30) j++
              if (j === from) break
            }
            if (j < n && (buf[j]! | 0x20) === 0x65) {
              j++
              if (j < n && (buf[j] === 0x2b || buf[j] === 0x2d)) j++
              const from = j
              while (j < n && buf[j]! - 0x30 < 10 && buf[j]! >= 0x30) j++
              if (j === from) break
            }
            // Cut by the slice end (it may go on), too long, or over the node budget: the machine.
            if (j >= n || j - i > maxNum || nodes >= maxNodes) break
          } else if (c === 0x74) {
            if (i + 4 > n || buf[i + 1] !== 0x72 || buf[i + 2] !== 0x75 || buf[i + 3] !== 0x65) {
              break
            }
            if (nodes >= maxNodes) break
            j = i + 4
          } else if (c === 0x66) {
            if (
              i + 5 > n ||
              buf[i + 1] !== 0x61 ||
              buf[i + 2] !== 0x6c ||
              buf[i + 3] !== 0x73 ||
              buf[i + 4] !== 0x65
            ) {
              break
            }
            if (nodes >= maxNodes) break
            j = i + 5
          } else if (c === 0x6e) {
            if (i + 4 > n || buf[i + 1] !== 0x75 || buf[i + 2] !== 0x6c || buf[i + 3] !== 0x6c) {
              break
            }
            if (nodes >= maxNodes) break
            j = i + 4
          } else {
            if (c === 0x5d && state === S_ARRAY_FIRST) {
              state = S_AFTER
              continue
            }
            break
          }
          // A complete scalar ends before j.
          nodes++
          i = j
          if (depth === 0) state = S_DONE
          else if (i < n && buf[i] === 0x2c) {
            state = inObj ? S_KEY : S_VALUE
            i++
          } else state = S_AFTER
        }
      }
      if (state <= S_DONE) {
        c = buf[i]!
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
          i++
          continue
        }
        switch (state) {
          case S_AFTER:
            if (c === 0x2c) {
              state = inObj ? S_KEY : S_VALUE
              i++
              continue scan
            }
            if (c === (inObj ? 0x7d : 0x5d)) {
              if (inObj && keys !== null) keys.close()
              depth--
              if (depth === 0) state = S_DONE
              else if (depth <= 32) inObj = ((low >>> (depth - 1)) & 1) === 1
              else inObj = this.bitAt(depth - 1)
              i++
              continue scan
            }
            throw unexpected(c, base + i)
          case S_COLON:
            if (c !== 0x3a) throw unexpected(c, base + i)
            state = S_VALUE
            i++
            continue scan
          case S_OBJECT_FIRST:
          case S_KEY:
            if (c === 0x22) {
              if (++nodes > maxNodes) throw tooMany(maxNodes, base + i)
              strKey = true
              strStart = i
              strLim = i + 1 + strStep
              if (keys !== null) {
                keys.beginKey()
                keyPiece = i + 1
                this.keyStartAbs = base + i
              }
              state = S_STRING
              i++
              break // straight into the string section below
            }
            if (c === 0x7d && state === S_OBJECT_FIRST) {
              state = S_AFTER // the closing brace is handled there
              continue scan
            }
            throw unexpected(c, base + i)
          case S_DONE:
            throw unexpected(c, base + i)
          default: {
            // S_VALUE or S_ARRAY_FIRST
            if (c === 0x5d && state === S_ARRAY_FIRST) {
              state = S_AFTER
              continue scan
            }
            if (c === 0x22) {
              strKey = false
              strStart = i
              strLim = i + 1 + strStep
              state = S_STRING
              if (++nodes > maxNodes) throw tooMany(maxNodes, base + i)
              i++
              break // straight into the string section below
            }
            if (c >= 0x30 && c <= 0x39) {
              numStart = i
              numLim = i + numStep
              state = c === 0x30 ? S_ZERO : S_INT
            } else if (c === 0x7b || c === 0x5b) {
              if (nodes + 1 > maxNodes) throw tooMany(maxNodes, base + i)
              if (depth === maxDepth) {
                throw refusal('ERR_JSON_TOO_DEEP', {
                  limit: maxDepth,
                  observed: depth + 1,
                  offset: base + i,
                })
              }
              const isObj = c === 0x7b
              if (isObj && keys !== null) keys.open(inObj && state === S_VALUE)
              if (depth < 32) low = isObj ? low | (1 << depth) : low & ~(1 << depth)
              else this.setBit(depth, isObj)
              depth++
              if (depth > maxSeen) maxSeen = depth
              inObj = isObj
              state = isObj ? S_OBJECT_FIRST : S_ARRAY_FIRST
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
            } else {
              throw unexpected(c, base + i)
            }
            if (++nodes > maxNodes) throw tooMany(maxNodes, base + i)
            i++
            continue scan
          }
        }
      }

      if (state === S_STRING) {
        let lim = n
        if (strLim < n) lim = strLim
        // Stryker disable next-line ConditionalExpression: wrapping this labelled loop in a mutant switch
        // detaches the label and `continue string` no longer compiles (README, Mutation testing).
        string: for (;;) {
          let stop = lim
          if (i + 16 < lim) stop = i + 16
          // Bytes of a region isUtf8 vouched for (from cleanEnd) pass with the plain ones.
          while (i < stop) {
            c = buf[i]!
            if (plain[c] === 0 && (c < 0x80 || i >= cleanEnd)) break
            i++
          }
          if (i === stop) {
            if (i >= lim) {
              if (i >= n) break scan
              // The string-length limit: only the closing quote may sit at this offset.
              c = buf[i]!
              if (c !== 0x22) throw tooLong('ERR_JSON_STRING_TOO_LONG', maxStr, base + i)
            } else {
              if (lim - i >= 32) i = this.skipRun(buf, i, lim, cleanEnd)
              continue
            }
          }
          // buf[i] === c is a quote, a backslash, a control byte or a non-ASCII byte.
          if (c === 0x22) {
            if (strKey) {
              if (keys !== null) {
                keys.addPiece(buf.subarray(keyPiece, i), false)
                const verdict = keys.endKey()
                if (verdict !== 0) {
                  throw refusal(verdict === 1 ? 'ERR_JSON_DUPLICATE_KEY' : 'ERR_JSON_PROTO_KEY', {
                    offset: this.keyStartAbs,
                  })
                }
              }
              state = S_COLON
              // Fast path: the colon usually follows at once.
              if (++i < n && buf[i] === 0x3a) {
                state = S_VALUE
                i++
              }
            } else if (depth === 0) {
              state = S_DONE
              i++
            } else {
              // Fast path: a comma usually follows at once.
              state = S_AFTER
              if (++i < n && buf[i] === 0x2c) {
                state = inObj ? S_KEY : S_VALUE
                i++
              }
            }
            continue scan
          }
          if (c === 0x5c) {
            // Escapes back to back (escape-dense text) stay in this loop.
            for (;;) {
              if (i + 1 >= lim) break
              const e = buf[i + 1]!
              if (simpleEscape[e] === 1) i += 2
              else if (e !== 0x75) throw syntax(base + i + 1)
              else if (
                i + 5 < lim &&
                hex[buf[i + 2]!] === 1 &&
                hex[buf[i + 3]!] === 1 &&
                hex[buf[i + 4]!] === 1 &&
                hex[buf[i + 5]!] === 1
              ) {
                i += 6
              } else break
              if (i >= lim || buf[i] !== 0x5c) continue string
            }
            // The escape is cut by the end of the slice or the string limit (or bad hex digits):
            // byte by byte through the states.
            state = S_ESCAPE
            i++
            continue scan
          }
          if (c < 0x20) throw syntax(base + i)
          if (cleanEnd === -1) {
            cleanEnd = cleanUtf8End(buf, i, n)
            if (i < cleanEnd) continue
          }
          // Byte-by-byte validation (Unicode Table 3-7, well-formed UTF-8 byte sequences).
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
          } else {
            throw invalidUtf8(base + i)
          }
          state = S_UTF8
          i++
          continue scan
        }
      }

      switch (state) {
        case S_ESCAPE:
          if (i >= strLim) throw tooLong('ERR_JSON_STRING_TOO_LONG', maxStr, base + i)
          c = buf[i]!
          if (SIMPLE_ESCAPE[c] === 1) state = S_STRING
          else if (c === 0x75) {
            aux = 4
            state = S_HEX
          } else throw syntax(base + i)
          i++
          continue scan
        case S_HEX:
          if (i >= strLim) throw tooLong('ERR_JSON_STRING_TOO_LONG', maxStr, base + i)
          if (HEX[buf[i]!] !== 1) throw syntax(base + i)
          i++
          if (--aux === 0) state = S_STRING
          continue scan
        case S_UTF8:
          if (i >= strLim) throw tooLong('ERR_JSON_STRING_TOO_LONG', maxStr, base + i)
          c = buf[i]!
          if (c < lo || c > hi) throw invalidUtf8(base + i)
          lo = 0x80
          hi = 0xbf
          i++
          if (--aux === 0) state = S_STRING
          continue scan
        case S_MINUS:
          c = buf[i]!
          if (c < 0x30 || c > 0x39) throw syntax(base + i)
          if (i >= numLim) throw tooLong('ERR_JSON_NUMBER_TOO_LONG', maxNum, base + i)
          state = c === 0x30 ? S_ZERO : S_INT
          i++
          continue scan
        case S_DOT:
        case S_EXP_SIGN:
          c = buf[i]!
          if (c < 0x30 || c > 0x39) throw syntax(base + i)
          if (i >= numLim) throw tooLong('ERR_JSON_NUMBER_TOO_LONG', maxNum, base + i)
          state = state === S_DOT ? S_FRAC : S_EXP_DIGITS
          i++
          continue scan
        case S_EXP:
          c = buf[i]!
          if (c === 0x2b || c === 0x2d) state = S_EXP_SIGN
          else if (c >= 0x30 && c <= 0x39) state = S_EXP_DIGITS
          else throw syntax(base + i)
          if (i >= numLim) throw tooLong('ERR_JSON_NUMBER_TOO_LONG', maxNum, base + i)
          i++
          continue scan
        case S_ZERO:
        case S_INT:
        case S_FRAC:
        case S_EXP_DIGITS: {
          if (state !== S_ZERO) {
            let e = n
            if (numLim < n) e = numLim
            while (i < e) {
              c = buf[i]!
              if (c < 0x30 || c > 0x39) break
              i++
            }
            if (i === n) break scan
          }
          c = buf[i]!
          let next = -1
          if (c >= 0x30 && c <= 0x39) {
            // After a leading zero a digit is a syntax error; elsewhere it is the limit.
            if (state === S_ZERO) throw syntax(base + i)
            next = state
          } else if (c === 0x2e) {
            if (state === S_ZERO || state === S_INT) next = S_DOT
          } else if (c === 0x65 || c === 0x45) {
            if (state !== S_EXP_DIGITS) next = S_EXP
          }
          if (next !== -1) {
            if (i >= numLim) throw tooLong('ERR_JSON_NUMBER_TOO_LONG', maxNum, base + i)
            state = next
            i++
            continue scan
          }
          // The number ended at a byte that is not part of it.
          if (depth === 0) state = S_DONE
          else if (c === 0x2c) {
            state = inObj ? S_KEY : S_VALUE
            i++
          } else state = S_AFTER
          continue scan
        }
        case S_LITERAL:
          while (aux < lo) {
            if (i === n) break scan
            if (buf[i] !== LITERALS[aux]) throw unexpected(buf[i]!, base + i)
            aux++
            i++
          }
          if (depth === 0) state = S_DONE
          else if (i < n && buf[i] === 0x2c) {
            state = inObj ? S_KEY : S_VALUE
            i++
          } else state = S_AFTER
          continue scan
        case S_START:
          if (buf[i] === BOM[0]) {
            aux = 1
            state = S_BOM
            i++
          } else state = S_VALUE
          continue scan
        case S_BOM:
          // Outside strings a non-ASCII byte is refused where it starts: offset 0.
          if (buf[i] !== BOM[aux]) throw syntax(0)
          i++
          if (++aux === 3) {
            if (!this.stripBom) throw refusal('ERR_JSON_BOM', { offset: 0 })
            state = S_VALUE
          }
          continue scan
        default:
          throw new Error(`preflight: unknown state ${state}`)
      }
    }

    if (keys !== null && strKey && state >= S_STRING && state <= S_UTF8) {
      keys.addPiece(buf.subarray(keyPiece, n), true)
    }
    this.state = state
    this.low = low
    this.depth = depth
    this.maxSeen = maxSeen
    this.nodes = nodes
    this.inObj = inObj
    this.strKey = strKey
    this.strStartAbs = strStart + base
    this.numStartAbs = numStart + base
    this.aux = aux
    this.lo = lo
    this.hi = hi
  }
}

function syntax(offset: number): AdmissionError {
  return refusal('ERR_JSON_SYNTAX', { offset })
}

function invalidUtf8(offset: number): AdmissionError {
  return refusal('ERR_JSON_INVALID_UTF8', { offset })
}

/**
 * A byte no token can start with. Outside strings a non-ASCII byte is refused where it
 * starts, without reading further: as ill-formed UTF-8 when no well-formed sequence can begin
 * with it (80–C1, F5–FF), otherwise as a syntax error.
 */
function unexpected(c: number, offset: number): AdmissionError {
  return c >= 0x80 && (c < 0xc2 || c > 0xf4) ? invalidUtf8(offset) : syntax(offset)
}

function tooMany(limit: number, offset: number): AdmissionError {
  return refusal('ERR_JSON_TOO_MANY_NODES', { limit, observed: limit + 1, offset })
}

function tooLong(code: AdmissionCode, limit: number, offset: number): AdmissionError {
  return refusal(code, { limit, offset })
}
