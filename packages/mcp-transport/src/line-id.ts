import type { RequestIdLike } from './mcp-types.js'

// A refused stdio line is never parsed, yet the client that sent it waits on its request id:
// both SDK clients (1.32 and 2.x) drop an error answered with `id: null` and let `callTool`
// time out. This scanner recovers the id lexically, byte by byte, in constant memory: it tracks
// only where it is in the top-level object (a key, a value, a nested value's bracket count, a
// string and its escape) and keeps at most a short key and a short id. Both SDK clients write
// `id` last, after `params`, so the scan runs past the byte that refused the line (over bytes
// the reader has read anyway), never past what the reader reads of that line.

/** Longest string id returned, in bytes (printable ASCII only, no escapes). */
export const MAX_RECOVERED_ID_CHARS = 64

// Longest integer literal considered: 16 digits and a sign reach past 2^53, so every safe
// integer fits and the safe-integer check decides.
const MAX_NUMBER_CHARS = 17
// Longest key remembered: the longest key read here is `method`.
const MAX_KEY_CHARS = 8

enum State {
  Start,
  Key,
  KeyEscape,
  KeyEnd,
  Colon,
  Value,
  IdString,
  IdNumber,
  Skip,
  SkipString,
  SkipEscape,
  Scalar,
  AfterValue,
  Done,
}

const QUOTE = 0x22
const BACKSLASH = 0x5c

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d
}

/**
 * Recovers the top-level request `id` of a JSON-RPC line from its bytes, without parsing it.
 * Push the line's bytes in order (split anywhere); {@link LineIdScanner.id} then answers the
 * id to refuse the line under, or `null`. An id is returned only when the bytes seen show a
 * request: a top-level `method` key, no `result` or `error` key, exactly one top-level `id`
 * whose value is a safe integer (`-?(0|[1-9][0-9]*)`, `-0` excluded) or a string of at most
 * {@link MAX_RECOVERED_ID_CHARS} printable ASCII characters without escapes. Anything else, or
 * a line that is not an object, gives `null`. Memory is constant whatever the line.
 */
export class LineIdScanner {
  #state = State.Start
  #key = ''
  #keyLong = false
  // The key whose value is being read: 'id', 'method', 'result', 'error' or '' (another).
  #member = ''
  #depth = 0
  #text = ''
  #idValid = true
  #ids = 0
  #id: RequestIdLike | undefined
  #method = false
  #response = false

  /** True once the top-level object ended or the bytes stopped looking like one. */
  get done(): boolean {
    return this.#state === State.Done
  }

  /** The id to answer the line under: the request's own id, or `null` (see the class). */
  get id(): RequestIdLike | null {
    if (this.#ids !== 1 || this.#id === undefined || !this.#method || this.#response) return null
    return this.#id
  }

  /** Reads more of the line. Does nothing once {@link LineIdScanner.done}. */
  push(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length && this.#state !== State.Done; i++) {
      this.step(bytes[i] as number)
    }
  }

  private step(b: number): void {
    switch (this.#state) {
      case State.Start:
        if (isSpace(b)) return
        this.#state = b === 0x7b ? State.KeyEnd : State.Done
        return
      case State.KeyEnd:
        // Between members: a key opens, the object closes, or a comma separates.
        if (isSpace(b) || b === 0x2c) return
        if (b === QUOTE) {
          this.#key = ''
          this.#keyLong = false
          this.#state = State.Key
        } else this.#state = State.Done
        return
      case State.Key:
        if (b === QUOTE) {
          this.#member = this.#keyLong ? '' : memberOf(this.#key)
          this.#state = State.Colon
        } else if (b === BACKSLASH) {
          // An escaped key is not read as `id` (a lexical reader does not decode escapes).
          this.#keyLong = true
          this.#state = State.KeyEscape
        } else if (this.#key.length < MAX_KEY_CHARS) this.#key += String.fromCharCode(b)
        else this.#keyLong = true
        return
      case State.KeyEscape:
        this.#state = State.Key
        return
      case State.Colon:
        if (isSpace(b)) return
        this.#state = b === 0x3a ? State.Value : State.Done
        return
      case State.Value:
        this.value(b)
        return
      case State.IdString:
        if (b === QUOTE) {
          this.recordId(this.#idValid ? this.#text : undefined)
          this.#state = State.AfterValue
        } else if (b === BACKSLASH) {
          this.#idValid = false
          this.#state = State.SkipEscape
        } else if (b < 0x20 || b > 0x7e || this.#text.length >= MAX_RECOVERED_ID_CHARS) {
          this.#idValid = false
          this.#state = State.SkipString
        } else this.#text += String.fromCharCode(b)
        return
      case State.IdNumber:
        if (b === 0x2c || b === 0x7d || isSpace(b)) {
          this.recordId(this.#idValid ? integerOf(this.#text) : undefined)
          this.afterValue(b)
        } else if (((b >= 0x30 && b <= 0x39) || b === 0x2d) && this.#text.length < MAX_NUMBER_CHARS)
          this.#text += String.fromCharCode(b)
        else this.#idValid = false
        return
      case State.Skip:
        this.skipNested(b)
        return
      case State.SkipString:
        if (b === BACKSLASH) this.#state = State.SkipEscape
        else if (b === QUOTE) {
          this.#state = this.#depth > 0 ? State.Skip : State.AfterValue
        }
        return
      case State.SkipEscape:
        this.#state = State.SkipString
        return
      case State.Scalar:
        if (b === 0x2c || b === 0x7d || isSpace(b)) this.afterValue(b)
        return
      case State.AfterValue:
        this.afterValue(b)
        return
      default:
        return
    }
  }

  private value(b: number): void {
    if (isSpace(b)) return
    const member = this.#member
    if (member === 'method') this.#method = true
    else if (member === 'result' || member === 'error') this.#response = true
    if (member === 'id') {
      this.#text = ''
      this.#idValid = true
      if (b === QUOTE) {
        this.#state = State.IdString
        return
      }
      if ((b >= 0x30 && b <= 0x39) || b === 0x2d) {
        this.#text = String.fromCharCode(b)
        this.#state = State.IdNumber
        return
      }
      // `null`, `true`, an object...: an id nobody can answer under.
      this.recordId(undefined)
    }
    if (b === QUOTE) {
      this.#state = State.SkipString
    } else if (b === 0x7b || b === 0x5b) {
      this.#depth = 1
      this.#state = State.Skip
    } else this.#state = State.Scalar
  }

  private skipNested(b: number): void {
    if (b === QUOTE) {
      this.#state = State.SkipString
    } else if (b === 0x7b || b === 0x5b) this.#depth++
    else if (b === 0x7d || b === 0x5d) {
      this.#depth--
      if (this.#depth === 0) this.#state = State.AfterValue
    }
  }

  private afterValue(b: number): void {
    if (isSpace(b)) {
      this.#state = State.AfterValue
    } else if (b === 0x2c) this.#state = State.KeyEnd
    else this.#state = State.Done
  }

  private recordId(id: RequestIdLike | undefined): void {
    this.#ids++
    this.#id = id
  }
}

function memberOf(key: string): string {
  return key === 'id' || key === 'method' || key === 'result' || key === 'error' ? key : ''
}

function integerOf(text: string): number | undefined {
  if (!/^-?(?:0|[1-9][0-9]*)$/.test(text) || text === '-0') return undefined
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : undefined
}
