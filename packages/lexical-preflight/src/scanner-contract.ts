import type { AdmissionCode, AdmissionError, AdmissionErrorDetails } from '@tollgate/json-budget'
import { admissionError, type PreflightCode } from './codes.js'
import type { PreflightResult } from './scanner.js'

// The states the contract reads (the numbering of src/scanner.ts and assembly/scanner.ts).
const S_DONE = 6
const S_UTF8 = 10
const S_ZERO = 12
const S_INT = 13
const S_FRAC = 15
const S_EXP_DIGITS = 18
const S_START = 20
const S_BOM = 21

/**
 * What every scanner behind `createPreflight` promises its caller, written once for the JS
 * scanner and the WebAssembly one: `push` refuses input past `maxBytes` (after scanning what
 * fits, so an earlier refusal in those bytes wins), a failed scanner rethrows its first error,
 * `push` after `end` is a programming error, and `end` admits only a complete text. A subclass
 * supplies `scan`, its byte loop, and keeps the counts in the fields below.
 */
export abstract class ScannerContract {
  protected state = S_START
  protected depth = 0
  protected maxSeen = 0
  protected nodes = 0
  protected bytes = 0
  protected failure: unknown = null
  protected result: PreflightResult | null = null
  protected abstract readonly maxBytes: number

  /** Called once, when the scanner first fails or ends: it will scan nothing more. */
  protected settled(): void {}

  /** Scans `buf[0..end)`, which starts at input offset `base`; throws the first refusal. */
  protected abstract scan(buf: Uint8Array, end: number, base: number): void

  /**
   * Scans the next chunk (split anywhere).
   * @throws AdmissionError at the first chunk that breaks the grammar, UTF-8 or a limit; the
   * scanner then stays failed and rethrows the same error.
   */
  push(chunk: Uint8Array): void {
    if (this.failure !== null) throw this.failure
    if (this.result !== null) throw new Error('push() after end()')
    if (!(chunk instanceof Uint8Array)) throw new TypeError('chunk must be a Uint8Array')
    const base = this.bytes
    try {
      const room = this.maxBytes - base
      if (chunk.length > room) {
        this.scan(chunk, room, base)
        this.bytes = this.maxBytes
        throw refusal('ERR_JSON_TOO_LARGE', {
          limit: this.maxBytes,
          observed: base + chunk.length,
          offset: this.maxBytes,
        })
      }
      this.bytes = base + chunk.length
      this.scan(chunk, chunk.length, base)
    } catch (error) {
      this.failure = error
      this.settled()
      throw error
    }
  }

  /**
   * Ends the input.
   * @returns the counts of the one admitted JSON text.
   * @throws AdmissionError `ERR_JSON_SYNTAX` for a truncated or empty text,
   * `ERR_JSON_INVALID_UTF8` for a truncated sequence; a failed scanner rethrows its error.
   */
  end(): PreflightResult {
    if (this.failure !== null) throw this.failure
    if (this.result !== null) return this.result
    const s = this.state
    const complete =
      s === S_DONE ||
      (this.depth === 0 && (s === S_ZERO || s === S_INT || s === S_FRAC || s === S_EXP_DIGITS))
    if (!complete) {
      const code: AdmissionCode = s === S_UTF8 ? 'ERR_JSON_INVALID_UTF8' : 'ERR_JSON_SYNTAX'
      this.failure = refusal(code, { offset: s === S_BOM ? 0 : this.bytes })
      this.settled()
      throw this.failure
    }
    this.result = { nodes: this.nodes, depth: this.maxSeen, bytes: this.bytes }
    this.settled()
    return this.result
  }
}

/** A refusal without a stack trace: refusals are expected, and a trace costs more than the scan. */
export function refusal(code: AdmissionCode, details: AdmissionErrorDetails): AdmissionError {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return admissionError(code as PreflightCode, details)
  } finally {
    Error.stackTraceLimit = limit
  }
}
