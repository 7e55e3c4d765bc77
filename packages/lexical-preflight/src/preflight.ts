import {
  type PreflightOptions,
  type ResolvedPreflightOptions,
  resolvePreflightOptions,
} from './options.js'
import { type PreflightResult, PreflightScanner } from './scanner.js'
import { acquireKeyModule, scannerModule, WASM_MAX_DEPTH } from './wasm-instance.js'
import { WasmPreflightScanner } from './wasm-scanner.js'

/** What {@link createPreflight} returns: feed chunks to `push`, then call `end`. */
export interface Preflight {
  /**
   * Scans the next chunk of raw bytes; chunks may be split anywhere.
   * @throws AdmissionError at the first chunk that breaks the grammar, UTF-8, a limit or a
   * policy, so the caller can stop reading.
   */
  push(chunk: Uint8Array): void
  /**
   * Declares the input complete and returns its counts.
   * @throws AdmissionError when the input is empty or truncated.
   */
  end(): PreflightResult
}

/**
 * Creates an incremental JSON preflight: an RFC 8259 validator over raw bytes (strict UTF-8,
 * the whole grammar, one top-level value) that counts nodes and depth as json-budget's
 * `chargeJson` does and refuses at the first byte past a limit, before any decoder runs.
 * Pass options (validated here), or the frozen result of {@link resolvePreflightOptions} to
 * skip validation on a hot path. Call `push` and `end` as methods of the returned object.
 * @throws TypeError on a bad limit or policy.
 */
export function createPreflight(options?: PreflightOptions | ResolvedPreflightOptions): Preflight {
  const resolved = resolvePreflightOptions(options)
  return wasmEligible(resolved) ? wasmOrJs(resolved) : new PreflightScanner(resolved)
}

/** Whether the WebAssembly scanner implements these options: a `maxDepth` its bits hold. */
function wasmEligible(options: ResolvedPreflightOptions): boolean {
  return options.maxDepth <= WASM_MAX_DEPTH
}

/**
 * The WebAssembly scanner when the module runs here, else the JS one. Without a key policy
 * every scanner shares the process's module; with one, each takes a module of its own.
 */
function wasmOrJs(options: ResolvedPreflightOptions): Preflight {
  const keys = options.duplicateKeys === 'refuse' || options.protoKeys === 'refuse'
  const wasm = keys ? acquireKeyModule() : scannerModule()
  return wasm === null ? new PreflightScanner(options) : new WasmPreflightScanner(options, wasm)
}

/**
 * One-shot form of {@link createPreflight}: scans `bytes` as one complete JSON text.
 * @returns nodes, depth and bytes of the admitted text.
 * @throws AdmissionError with the first failure and its byte `offset`; TypeError on bad options.
 */
export function preflight(
  bytes: Uint8Array,
  options?: PreflightOptions | ResolvedPreflightOptions,
): PreflightResult {
  const scanner = createPreflight(options)
  scanner.push(bytes)
  return scanner.end()
}
