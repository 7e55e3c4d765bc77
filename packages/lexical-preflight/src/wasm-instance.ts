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
/** What `run` returns when it needs K_CLEAN_END (not a refusal: see assembly/scanner.ts). */
export const E_NEED_UTF8 = 9

/** One instantiated scanner module: its `run(start, n)` and two views of its (fixed) memory. */
export interface WasmScannerModule {
  readonly run: (start: number, n: number) => number
  readonly bytes: Uint8Array
  readonly words: Int32Array
}

/**
 * Compiles and instantiates a scanner module from `source`, or returns `null` when the engine
 * refuses it (no WebAssembly, as under `--jitless`; no SIMD; a corrupt module; a memory that
 * is not the fixed 4 pages): the caller then uses the JS scanner.
 */
export function instantiateScanner(source: Uint8Array): WasmScannerModule | null {
  // The global is typed here: the project's TypeScript lib has no WebAssembly declarations.
  const wa = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly
  if (wa === undefined) return null
  try {
    const instance = new wa.Instance(new wa.Module(source), {})
    const { run, memory } = instance.exports
    if (typeof run !== 'function' || !(memory instanceof wa.Memory)) return null
    if (memory.buffer.byteLength !== 4 * 65536) return null
    return {
      run: run as (start: number, n: number) => number,
      bytes: new Uint8Array(memory.buffer),
      words: new Int32Array(memory.buffer),
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

/**
 * The process's scanner module (one per thread), instantiated on first use from the bytes
 * built from assembly/scanner.ts; `null` when it cannot run here. Every scanner shares it:
 * each `push` loads that scanner's state into the module, runs it to the end of the piece and
 * stores the state back, so interleaved requests never see each other's state.
 */
export function scannerModule(): WasmScannerModule | null {
  if (shared === undefined) shared = instantiateScanner(decodeBase64(SCANNER_WASM))
  return shared
}

function decodeBase64(text: string): Uint8Array {
  const raw = atob(text)
  const out = new Uint8Array(raw.length)
  for (let k = 0; k < raw.length; k++) out[k] = raw.charCodeAt(k)
  return out
}
