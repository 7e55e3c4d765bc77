import { SCANNER_WASM } from './wasm-bytes.js'

// The WebAssembly scanner's side of the contract with assembly/scanner.ts: the memory layout,
// the state-block slots and the refusal numbers `run` returns. Both files name them alike.

/** Byte offset of the piece in linear memory. */
export const WASM_IN = 65536
/** Most bytes one `run` scans: one 64 KiB page, the input region. */
export const WASM_PIECE = 65536
/** i32 index of the container bits (byte 131072), one bit per level. */
export const WASM_STACK_WORD = 131072 >> 2
/** Deepest nesting the container bits hold: a larger `maxDepth` runs on the JS scanner. */
export const WASM_MAX_DEPTH = 1 << 20

// State-block slots (i32 index into memory).
export const K_STATE = 0
export const K_DEPTH = 1
export const K_MAX_SEEN = 2
export const K_NODES_LEFT = 3
export const K_IN_OBJ = 4
export const K_STR_KEY = 5
export const K_STR_START = 6
export const K_NUM_START = 7
export const K_STR_LIM = 8
export const K_NUM_LIM = 9
export const K_AUX = 10
export const K_LO = 11
export const K_HI = 12
export const K_MAX_DEPTH = 13
export const K_STRIP_BOM = 14
export const K_STR_STEP = 15
export const K_NUM_STEP = 16
export const K_PEAK = 17
export const K_ERR_OFFSET = 18
export const K_CLEAN_END = 19
export const K_KEYS = 20
/** First of the four slots of the key policies' hash key (assembly/keys.ts). */
const K_SEED = 26
/** What `run` returns when it needs K_CLEAN_END (not a refusal: see assembly/scanner.ts). */
export const E_NEED_UTF8 = 9
/** What `run` returns when the key policies' memory cannot grow (not a refusal). */
export const E_KEY_MEMORY = 12
/** Pages of memory a module starts with (assembly/scanner.ts: the memory layout). */
const WASM_PAGES = 9
/** Most modules kept for scanners with a key policy, and the largest memory kept with one. */
const POOL_SIZE = 16
const POOL_MAX_BYTES = 4 * 1024 * 1024

/**
 * One instantiated scanner module: its `run(start, n)`, `keysReset()` and two views of its
 * memory. The views are renewed by {@link refreshViews} after a run that grew the memory (only
 * the key policies grow it; a grown memory detaches the old views).
 */
export interface WasmScannerModule {
  readonly run: (start: number, n: number) => number
  readonly keysReset: () => void
  readonly memory: { buffer: ArrayBuffer }
  bytes: Uint8Array
  words: Int32Array
  /**
   * The scanner whose state the module's state block and container bits hold, `null` for none:
   * it keeps its state there between its pushes and takes it out (`leave`) when another
   * scanner needs the module.
   */
  owner: { leave(): void } | null
}

/** Renews the views of `m` when its memory grew; returns the word view. */
export function refreshViews(m: WasmScannerModule): Int32Array {
  if (m.words.buffer !== m.memory.buffer) {
    m.bytes = new Uint8Array(m.memory.buffer)
    m.words = new Int32Array(m.memory.buffer)
  }
  return m.words
}

/**
 * Compiles and instantiates a scanner module from `source`, or returns `null` when the engine
 * refuses it (no WebAssembly, as under `--jitless`; no SIMD; a corrupt module; a memory that
 * does not start at the 9 pages of assembly/scanner.ts): the caller then uses the JS scanner.
 */
export function instantiateScanner(source: Uint8Array | object): WasmScannerModule | null {
  // The global is typed here: the project's TypeScript lib has no WebAssembly declarations.
  const wa = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly
  if (wa === undefined) return null
  try {
    const compiled = source instanceof Uint8Array ? new wa.Module(source) : source
    const instance = new wa.Instance(compiled, {})
    const { run, keysReset, memory } = instance.exports
    if (typeof run !== 'function' || typeof keysReset !== 'function') return null
    if (!(memory instanceof wa.Memory)) return null
    if (memory.buffer.byteLength !== WASM_PAGES * 65536) return null
    const words = new Int32Array(memory.buffer)
    // The hash key of the key policies: random per module, so no client can choose keys that
    // share a hash chain.
    const seed = new Uint32Array(4)
    globalThis.crypto.getRandomValues(seed)
    for (let k = 0; k < 4; k++) words[K_SEED + k] = seed[k]! | 0
    ;(keysReset as () => void)()
    return {
      run: run as (start: number, n: number) => number,
      keysReset: keysReset as () => void,
      memory,
      bytes: new Uint8Array(memory.buffer),
      words,
      owner: null,
    }
  } catch {
    return null
  }
}

/** The part of the WebAssembly JS API used here. */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> }
  Memory: abstract new (...args: never[]) => { buffer: ArrayBuffer }
}

let shared: WasmScannerModule | null | undefined
let compiled: object | null | undefined
const pool: WasmScannerModule[] = []

/**
 * The process's scanner module (one per thread), instantiated on first use from the bytes
 * built from assembly/scanner.ts; `null` when it cannot run here. Every scanner shares it: the
 * module holds the state of the scanner that pushed last, and a push of another scanner has
 * that one take its state out before loading its own, so interleaved requests never see each
 * other's state.
 */
export function scannerModule(): WasmScannerModule | null {
  if (shared === undefined) shared = instantiateScanner(decodeBase64(SCANNER_WASM))
  return shared
}

/**
 * A module of its own for one scanner with a key policy (the policies keep their frames and
 * keys in the module's memory between pushes): a pooled one, emptied, or a new instance of
 * the same compiled module; `null` when WebAssembly cannot run here. Give it back with
 * {@link releaseKeyModule} when the scanner ends or fails; a module never given back is
 * simply collected.
 */
export function acquireKeyModule(): WasmScannerModule | null {
  const pooled = pool.pop()
  if (pooled !== undefined) {
    pooled.keysReset()
    return pooled
  }
  if (scannerModule() === null) return null
  if (compiled === undefined) {
    const wa = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly
    compiled = wa === undefined ? null : new wa.Module(decodeBase64(SCANNER_WASM))
  }
  return compiled === null ? null : instantiateScanner(compiled)
}

/** Returns a module of {@link acquireKeyModule} to the pool (kept only while its memory is small). */
export function releaseKeyModule(m: WasmScannerModule): void {
  if (pool.length < POOL_SIZE && m.memory.buffer.byteLength <= POOL_MAX_BYTES) pool.push(m)
}

function decodeBase64(text: string): Uint8Array {
  const raw = atob(text)
  const out = new Uint8Array(raw.length)
  for (let k = 0; k < raw.length; k++) out[k] = raw.charCodeAt(k)
  return out
}
