import { Buffer } from 'node:buffer'

// The two key policies need the unescaped key, so only they allocate: one frame per open
// object (a Set of its keys when duplicates are refused) and one string per key. Everything is
// bounded by the node budget; with both policies off none of this is constructed.

/** Longest raw key that can unescape to `constructor` (11 × `\uXXXX`). */
const PROTO_CAPTURE_BYTES = 66

interface Frame {
  keys: Set<string> | null
  /** This object is the value of a `constructor` key. */
  constructorValue: boolean
  /** The key most recently read in this object is `constructor`. */
  lastKeyConstructor: boolean
}

/** Result of checking one key: 0 admitted, 1 duplicate, 2 prototype-polluting. */
export type KeyVerdict = 0 | 1 | 2

export class KeyTracker {
  readonly dup: boolean
  readonly proto: boolean
  /** Keys longer than this (raw bytes) are not captured: they cannot matter. */
  readonly captureBytes: number
  private readonly frames: Frame[] = []
  private readonly parts: Uint8Array[] = []
  private partBytes = 0
  private hasEscape = false
  private overflow = false

  constructor(dup: boolean, proto: boolean) {
    this.dup = dup
    this.proto = proto
    this.captureBytes = dup ? Number.POSITIVE_INFINITY : PROTO_CAPTURE_BYTES
  }

  /** An object opens; `inObject` says whether it is the value of a key. */
  open(inObject: boolean): void {
    const parent = this.frames[this.frames.length - 1]
    this.frames.push({
      keys: this.dup ? new Set() : null,
      constructorValue: inObject && parent?.lastKeyConstructor === true,
      lastKeyConstructor: false,
    })
  }

  close(): void {
    this.frames.pop()
  }

  /** A key string begins: forget the previous key's bytes. */
  beginKey(): void {
    this.parts.length = 0
    this.partBytes = 0
    this.hasEscape = false
    this.overflow = false
  }

  /** A piece of the current key's raw bytes (between its quotes), copied when `copy`. */
  addPiece(piece: Uint8Array, copy: boolean): void {
    if (this.overflow) return
    if (this.partBytes + piece.length > this.captureBytes) {
      this.overflow = true
      this.parts.length = 0
      return
    }
    this.partBytes += piece.length
    if (piece.indexOf(0x5c) !== -1) this.hasEscape = true
    this.parts.push(copy ? piece.slice() : piece)
  }

  /** The key is complete; returns the verdict of the policies on it. */
  endKey(): KeyVerdict {
    const frame = this.frames[this.frames.length - 1]
    if (frame === undefined) return 0
    if (this.overflow) {
      frame.lastKeyConstructor = false
      return 0
    }
    const raw = this.parts.length === 1 ? (this.parts[0] as Uint8Array) : Buffer.concat(this.parts)
    const text = Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('utf8')
    // The bytes were validated as a JSON string body, so this parse cannot fail.
    const key = this.hasEscape ? (JSON.parse(`"${text}"`) as string) : text
    this.parts.length = 0
    frame.lastKeyConstructor = key === 'constructor'
    if (this.proto) {
      if (key === '__proto__') return 2
      if (key === 'prototype' && frame.constructorValue) return 2
    }
    if (frame.keys !== null) {
      if (frame.keys.has(key)) return 1
      frame.keys.add(key)
    }
    return 0
  }
}
