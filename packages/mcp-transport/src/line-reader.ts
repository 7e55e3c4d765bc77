import { type AdmissionError, isAdmissionError } from '@tollgate/json-budget'
import {
  createPreflight,
  type ResolvedPreflightOptions,
  resolvePreflightOptions,
} from '@tollgate/lexical-preflight'
import { admissionError } from './codes.js'
import { LineIdScanner } from './line-id.js'
import type { RequestIdLike } from './mcp-types.js'
import type { ResolvedBoundedStdioOptions } from './stdio-options.js'

/** What the reader makes of the bytes: a line to parse, a refused line, or the end of input. */
export type LineEvent =
  /** A preflighted line (UTF-8, grammar, nodes, depth checked), decoded and parsed. */
  | { readonly kind: 'value'; readonly value: unknown }
  /**
   * A complete line refused for encoding or structure, with the request id recovered from its
   * bytes ({@link LineIdScanner}) or `null`; the next line is read.
   */
  | { readonly kind: 'refused'; readonly error: AdmissionError; readonly id: RequestIdLike | null }
  /**
   * A line past the byte cap, with the id recovered from the bytes read of it. With
   * `oversizedLine: 'end'` nothing more is read; with `'skip'` it is emitted at the line's
   * newline and the next line is read.
   */
  | { readonly kind: 'overflow'; readonly error: AdmissionError; readonly id: RequestIdLike | null }

type Preflight = ReturnType<typeof createPreflight>

const LF = 0x0a
const CR = 0x0d
// fatal: the preflight has already proven the bytes well-formed, so this never throws; it is a
// second guard. The default BOM handling agrees with the preflight's `bom: 'strip'` policy.
const decoder = new TextDecoder('utf-8', { fatal: true })

/**
 * Frames JSON-RPC lines at `\n` from raw bytes under a byte cap counted with the line ending,
 * running the lexical preflight on every byte as it arrives. The current line is held as a list
 * of chunk views (one copy, at the end, linear in its length); a refused line is not held at all,
 * and a line that passes the cap is never buffered past it. Once a line is refused, its request
 * id is sought lexically ({@link LineIdScanner}) over the bytes read of it, in constant memory;
 * an admitted line costs no id scan.
 */
export class BoundedLineReader {
  readonly #options: ResolvedBoundedStdioOptions
  // The preflight options of every line, resolved once (the stdio options less their own keys).
  readonly #preflightOptions: ResolvedPreflightOptions
  #chunks: Uint8Array[] = []
  #length = 0
  #last = -1
  #preflight: Preflight | undefined
  #refused: AdmissionError | undefined
  // The id scan of the refused line (or the over-cap line being skipped), else undefined.
  #ids: LineIdScanner | undefined
  // `oversizedLine: 'skip'`: the refusal of the over-cap line being read to its newline.
  #skipping: AdmissionError | undefined
  #overflowed = false

  constructor(options: ResolvedBoundedStdioOptions) {
    this.#options = options
    const o = options
    this.#preflightOptions = resolvePreflightOptions({
      maxNodes: o.maxNodes,
      maxDepth: o.maxDepth,
      maxBytes: o.maxBytes,
      duplicateKeys: o.duplicateKeys,
      protoKeys: o.protoKeys,
      bom: o.bom,
      // `Infinity` is the resolved form of "no cap"; the preflight takes it as not set.
      maxStringBytes: finite(o.maxStringBytes),
      maxNumberLength: finite(o.maxNumberLength),
    })
  }

  /** True once a line passed the cap: every later `push` is ignored. */
  get overflowed(): boolean {
    return this.#overflowed
  }

  /**
   * Feeds bytes; calls `emit` for each event in input order. Returns `false` once the cap was
   * passed (the caller stops reading).
   */
  push(chunk: Uint8Array, emit: (event: LineEvent) => void): boolean {
    if (this.#overflowed) return false
    const cap = this.#options.maxLineBytes
    let start = 0
    while (start < chunk.length) {
      const nl = chunk.indexOf(LF, start)
      const end = nl === -1 ? chunk.length : nl
      if (this.#skipping !== undefined) {
        this.#ids?.push(chunk.subarray(start, end))
        if (nl === -1) break
        const error = this.#skipping
        const id = this.#ids?.id ?? null
        this.reset()
        emit({ kind: 'overflow', error, id })
        start = nl + 1
        continue
      }
      // Once the bytes so far plus the smallest line ending (`\n`) pass the cap, the line can
      // only grow: refuse now, before the rest of it is read or held.
      if (this.#length + (end - start) + 1 > cap) {
        // The bytes up to the cap are the most of this line ever held or scanned in `'end'`.
        const fits = Math.max(0, cap - 1 - this.#length)
        const ids = this.scanHeld()
        ids.push(chunk.subarray(start, start + fits))
        const error = admissionError('ERR_LINE_TOO_LARGE', {
          limit: cap,
          option: this.#options.lineBytesOption,
        })
        if (this.#options.oversizedLine === 'skip') {
          this.reset()
          this.#ids = ids
          this.#skipping = error
          // The rest of this piece is skipped (scanned for its id) like every later byte.
          ids.push(chunk.subarray(start + fits, end))
          if (nl === -1) break
          this.reset()
          emit({ kind: 'overflow', error, id: ids.id })
          start = nl + 1
          continue
        }
        this.#overflowed = true
        this.reset()
        emit({ kind: 'overflow', error, id: ids.id })
        return false
      }
      if (end > start) this.take(chunk.subarray(start, end))
      if (nl === -1) break
      this.finish(emit)
      start = nl + 1
    }
    return true
  }

  /** Drops the partial line (an unterminated last line at end of input is not a message). */
  reset(): void {
    this.#chunks = []
    this.#length = 0
    this.#last = -1
    this.#preflight = undefined
    this.#refused = undefined
    this.#ids = undefined
    this.#skipping = undefined
  }

  private take(piece: Uint8Array): void {
    this.#length += piece.length
    this.#last = piece[piece.length - 1] ?? -1
    if (this.#refused !== undefined) {
      this.#ids?.push(piece)
      return
    }
    try {
      this.#preflight ??= createPreflight(this.#preflightOptions)
      this.#preflight.push(piece)
      this.#chunks.push(piece)
    } catch (error) {
      this.refuse(error, piece)
    }
  }

  private refuse(error: unknown, piece?: Uint8Array): void {
    this.#refused = isAdmissionError(error) ? error : admissionError('ERR_JSON_SYNTAX')
    const ids = this.scanHeld()
    if (piece !== undefined) ids.push(piece)
    this.#ids = ids
    this.#chunks = []
    this.#preflight = undefined
  }

  /** Starts the id scan of the current line over the bytes held of it (read once more). */
  private scanHeld(): LineIdScanner {
    if (this.#ids !== undefined) return this.#ids
    const ids = new LineIdScanner()
    for (const held of this.#chunks) {
      if (ids.done) break
      ids.push(held)
    }
    return ids
  }

  private finish(emit: (event: LineEvent) => void): void {
    const length = this.#length
    const empty = length === 0 || (length === 1 && this.#last === CR)
    let event: LineEvent | undefined
    if (this.#refused !== undefined) {
      event = { kind: 'refused', error: this.#refused, id: this.#ids?.id ?? null }
    } else if (!empty) {
      event = this.decode()
    }
    this.reset()
    if (event !== undefined) emit(event)
  }

  private decode(): LineEvent {
    try {
      this.#preflight?.end()
      const chunks = this.#chunks
      const bytes =
        chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, this.#length)
      // JSON whitespace includes `\r`, so a CRLF line's trailing `\r` needs no stripping.
      return { kind: 'value', value: JSON.parse(decoder.decode(bytes)) }
    } catch (error) {
      // Only the preflight's end can refuse here (an unfinished document): the whole line is
      // still held, so its id is sought over it.
      return {
        kind: 'refused',
        error: isAdmissionError(error) ? error : admissionError('ERR_JSON_SYNTAX'),
        id: this.scanHeld().id,
      }
    }
  }
}

function finite(value: number): number | undefined {
  return Number.isFinite(value) ? value : undefined
}
