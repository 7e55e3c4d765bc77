import type { AdmissionError } from '@tollgate/json-budget'
import type { ResolvedPreflightOptions } from './options.js'
import { refusal, ScannerContract } from './scanner-contract.js'
import { cleanUtf8End } from './tables.js'
import {
  E_KEY_MEMORY,
  E_NEED_UTF8,
  K_AUX,
  K_CLEAN_END,
  K_DEPTH,
  K_ERR_OFFSET,
  K_HI,
  K_IN_OBJ,
  K_KEYS,
  K_LO,
  K_MAX_DEPTH,
  K_MAX_SEEN,
  K_NODES_LEFT,
  K_NUM_LIM,
  K_NUM_START,
  K_NUM_STEP,
  K_PEAK,
  K_STATE,
  K_STR_KEY,
  K_STR_LIM,
  K_STR_START,
  K_STR_STEP,
  K_STRIP_BOM,
  refreshViews,
  releaseKeyModule,
  WASM_IN,
  WASM_PIECE,
  WASM_STACK_WORD,
  type WasmScannerModule,
} from './wasm-instance.js'

/** Pushes up to this many bytes are copied into the module by a loop instead of `set`. */
const SMALL_PUSH = 8

/** A node budget per piece that stays an i32 however large `maxNodes` is (a piece has fewer). */
const BUDGET_CAP = 1 << 30

/**
 * The scanner of src/scanner.ts with its byte loop in WebAssembly (assembly/scanner.ts): the
 * same states, checks and refusals (code, offset, limit, observed) for every input and every
 * chunking. Each `push` copies the chunk into the module's memory 64 KiB at a time and runs it,
 * so many scanners share one module: the module keeps the state of the scanner that ran last
 * (its `owner`), and another scanner's push first has that one take its state out (`leave`)
 * and loads its own. Pushes of one scanner in a row so cost only the per-piece slots, not the
 * whole state: the fixed cost of a tiny push. Of the container bits a scanner loads only the
 * words a piece of n bytes can touch (levels depth - n - 1 up) and takes out only the words
 * its pieces wrote, so a push costs O(n), never O(depth). With a key policy on
 * (assembly/keys.ts) the module must be one of its own (`acquireKeyModule`): the policies keep
 * their frames and keys in its memory between pushes, and the scanner gives it back when it
 * ends or fails.
 */
export class WasmPreflightScanner extends ScannerContract {
  private readonly wasm: WasmScannerModule
  private readonly maxNodes: number
  private readonly maxDepth: number
  protected readonly maxBytes: number
  private readonly maxStr: number
  private readonly maxNum: number
  private readonly stripBom: number
  /** Bit 0: duplicate keys refused; bit 1: `__proto__` refused (K_KEYS). */
  private readonly keys: number
  private inObj = 0
  private strKey = 0
  private strStartAbs = 0
  private numStartAbs = 0
  private aux = 0
  private lo = 0
  private hi = 0
  /** Container bits of levels 0–31; deeper levels in `high` (word k: levels 32k..32k+31). */
  private low = 0
  private high: Int32Array | null = null
  /** Container-bit words copied into and out of the module so far (what the cost tests count). */
  copiedWords = 0
  /** While the module holds this scanner's state: the first container word it holds. */
  private heldFrom = 0
  /** While the module holds this scanner's state: the container words its pieces wrote. */
  private dirtyFrom = Number.POSITIVE_INFINITY
  private dirtyTo = -1

  /**
   * `options.maxDepth` must be at most `WASM_MAX_DEPTH`; with a key policy on, `wasm` must be
   * this scanner's own module (`acquireKeyModule`), given back when the scanner settles.
   */
  constructor(options: ResolvedPreflightOptions, wasm: WasmScannerModule) {
    super()
    this.wasm = wasm
    this.maxNodes = options.maxNodes
    this.maxDepth = options.maxDepth
    this.maxBytes = options.maxBytes
    this.maxStr = Math.min(options.maxStringBytes, options.maxBytes)
    this.maxNum = Math.min(options.maxNumberLength, options.maxBytes)
    this.stripBom = options.bom === 'strip' ? 1 : 0
    this.keys =
      (options.duplicateKeys === 'refuse' ? 1 : 0) | (options.protoKeys === 'refuse' ? 2 : 0)
  }

  protected override settled(): void {
    // Nothing of a settled scanner's state is needed again.
    if (this.wasm.owner === this) this.wasm.owner = null
    if (this.keys !== 0) releaseKeyModule(this.wasm)
  }

  protected scan(buf: Uint8Array, end: number, base: number): void {
    if (end <= SMALL_PUSH) {
      // A few bytes: a loop costs less than the fixed cost of `set` (tiny pushes, measured).
      const bytes = this.wasm.bytes
      for (let k = 0; k < end; k++) bytes[WASM_IN + k] = buf[k]!
      this.run(end, base)
      return
    }
    if (end === buf.length && end <= WASM_PIECE) {
      this.wasm.bytes.set(buf, WASM_IN)
      this.run(end, base)
      return
    }
    for (let from = 0; from < end; from += WASM_PIECE) {
      const to = Math.min(from + WASM_PIECE, end)
      this.wasm.bytes.set(buf.subarray(from, to), WASM_IN)
      this.run(to - from, base + from)
    }
  }

  /** Runs the module over the `n` bytes at WASM_IN, the input offset of the first being `base`. */
  private run(n: number, base: number): void {
    const m = this.wasm
    let w = m.words
    const depth = this.depth
    // The piece reads the bit of a level only after closing down to it: at most n + 1 levels
    // below `depth`. Deeper levels it sets before it reads them; the module's other words hold
    // another scanner's bits and are never read.
    const below = this.reach(depth, n)
    if (m.owner !== this) this.enter(depth, below)
    else if (depth > 0) {
      // The module still holds this scanner's state: only words below those it holds are loaded.
      const need = Math.max(0, (depth - below - 1) >> 5)
      if (need < this.heldFrom) {
        this.loadWords(need, this.heldFrom - 1)
        this.heldFrom = need
      }
    }
    // Limits relative to this piece, clamped to n + 1 when beyond it (as src/scanner.ts).
    const strEnd = this.strStartAbs - base + 1 + this.maxStr
    const numEnd = this.numStartAbs - base + this.maxNum
    const left = Math.min(this.maxNodes - this.nodes, BUDGET_CAP)
    w[K_NODES_LEFT] = left
    // Only stored back; a start before the piece is kept here when the module leaves it alone.
    w[K_STR_START] = -1
    w[K_NUM_START] = -1
    w[K_STR_LIM] = strEnd <= n ? strEnd : n + 1
    w[K_NUM_LIM] = numEnd <= n ? numEnd : n + 1
    w[K_STR_STEP] = this.maxStr > n ? n + 1 : this.maxStr
    w[K_NUM_STEP] = this.maxNum > n ? n + 1 : this.maxNum
    w[K_PEAK] = depth
    w[K_CLEAN_END] = -1
    let code = m.run(0, n)
    // Only the key policies grow the memory (detaching the views).
    if (this.keys !== 0) w = refreshViews(m)
    while (code === E_NEED_UTF8) {
      // The first non-ASCII byte in a string: how far isUtf8 vouches for the piece from there.
      const at = w[K_ERR_OFFSET]!
      w[K_CLEAN_END] = cleanUtf8End(m.bytes.subarray(WASM_IN, WASM_IN + n), at, n)
      code = m.run(at, n)
      if (this.keys !== 0) w = refreshViews(m)
    }
    if (code !== 0) {
      if (code === E_KEY_MEMORY) throw new Error('preflight: WebAssembly memory cannot grow')
      // A key refusal's offset is its opening quote, in an earlier piece when it is -1 here.
      const at = w[K_ERR_OFFSET]!
      throw this.refusalOf(code, at === -1 ? this.strStartAbs : base + at)
    }
    this.state = w[K_STATE]!
    this.depth = w[K_DEPTH]!
    this.maxSeen = w[K_MAX_SEEN]!
    this.nodes += left - w[K_NODES_LEFT]!
    const s = w[K_STR_START]!
    if (s !== -1) this.strStartAbs = base + s
    const e = w[K_NUM_START]!
    if (e !== -1) this.numStartAbs = base + e
    // Bits are set only at levels the piece reached: from depth - n up to its peak. They stay
    // in the module until `leave` copies them out.
    const peak = w[K_PEAK]!
    if (peak > 0) {
      const from = Math.max(0, depth - below) >> 5
      const to = (peak - 1) >> 5
      if (from < this.dirtyFrom) this.dirtyFrom = from
      if (to > this.dirtyTo) this.dirtyTo = to
    }
  }

  /**
   * Loads this scanner's state into the module, whose owner first takes its own out: the
   * state block, and the container words a piece of `below` closes can read.
   */
  private enter(depth: number, below: number): void {
    const m = this.wasm
    m.owner?.leave()
    m.owner = this
    const w = m.words
    w[K_STATE] = this.state
    w[K_DEPTH] = depth
    w[K_MAX_SEEN] = this.maxSeen
    w[K_IN_OBJ] = this.inObj
    w[K_STR_KEY] = this.strKey
    w[K_AUX] = this.aux
    w[K_LO] = this.lo
    w[K_HI] = this.hi
    w[K_MAX_DEPTH] = this.maxDepth
    w[K_STRIP_BOM] = this.stripBom
    w[K_KEYS] = this.keys
    this.heldFrom = depth > 0 ? Math.max(0, (depth - below - 1) >> 5) : 0
    if (depth > 0) this.loadWords(this.heldFrom, (depth - 1) >> 5)
    this.dirtyFrom = Number.POSITIVE_INFINITY
    this.dirtyTo = -1
  }

  /**
   * Takes this scanner's state out of the module (another scanner needs it): the slots only the
   * module keeps between pushes, and the container words its pieces wrote. Bounded by the bytes
   * pushed since {@link enter}, as a byte moves the depth by one level at most.
   */
  leave(): void {
    const w = this.wasm.words
    this.inObj = w[K_IN_OBJ]!
    this.strKey = w[K_STR_KEY]!
    this.aux = w[K_AUX]!
    this.lo = w[K_LO]!
    this.hi = w[K_HI]!
    if (this.dirtyTo >= 0) this.storeWords(this.dirtyFrom, this.dirtyTo)
    this.wasm.owner = null
  }

  /**
   * How many levels below `depth` a piece of `n` bytes can close: `n` (a byte closes at most
   * one), never more than `depth`.
   */
  protected reach(depth: number, n: number): number {
    return Math.min(depth, n)
  }

  /** Copies container words `from..to` (from ≥ 0 once clamped) into the module. */
  private loadWords(from: number, to: number): void {
    const w = this.wasm.words
    const high = this.high
    let k = Math.max(from, 0)
    this.copiedWords += to - k + 1
    if (k === 0) {
      w[WASM_STACK_WORD] = this.low
      k = 1
    }
    // Words never stored are zero bits: the module sets every bit before it reads it.
    if (high === null) return
    const last = Math.min(to, high.length)
    for (; k <= last; k++) w[WASM_STACK_WORD + k] = high[k - 1]!
  }

  /** Copies container words `from..to` out of the module, growing `high` by doubling. */
  private storeWords(from: number, to: number): void {
    const w = this.wasm.words
    let k = from
    this.copiedWords += to - k + 1
    if (k === 0) {
      this.low = w[WASM_STACK_WORD]!
      k = 1
    }
    if (to < 1) return
    let high = this.high
    if (high === null || high.length < to) {
      const grown = new Int32Array(Math.max(2, (high?.length ?? 1) * 2, to))
      if (high !== null) grown.set(high)
      this.high = high = grown
    }
    for (; k <= to; k++) high[k - 1] = w[WASM_STACK_WORD + k]!
  }

  private refusalOf(code: number, offset: number): AdmissionError {
    switch (code) {
      case 1:
        return refusal('ERR_JSON_SYNTAX', { offset })
      case 2:
        return refusal('ERR_JSON_INVALID_UTF8', { offset })
      case 3:
        return refusal('ERR_JSON_TOO_MANY_NODES', {
          limit: this.maxNodes,
          observed: this.maxNodes + 1,
          offset,
        })
      case 4:
        return refusal('ERR_JSON_TOO_DEEP', {
          limit: this.maxDepth,
          observed: this.maxDepth + 1,
          offset,
        })
      case 5:
        return refusal('ERR_JSON_STRING_TOO_LONG', { limit: this.maxStr, offset })
      case 6:
        return refusal('ERR_JSON_NUMBER_TOO_LONG', { limit: this.maxNum, offset })
      case 7:
        return refusal('ERR_JSON_BOM', { offset: 0 })
      case 8:
        return refusal('ERR_JSON_SYNTAX', { offset: 0 })
      case 10:
        return refusal('ERR_JSON_DUPLICATE_KEY', { offset })
      case 11:
        return refusal('ERR_JSON_PROTO_KEY', { offset })
      default:
        throw new Error(`preflight: unknown WebAssembly refusal ${code}`)
    }
  }
}
