/**
 * Where one body's bytes are held while it arrives, and handed on as one `Buffer`.
 *
 * A small body is held as the chunks it came in (one chunk is used as it is, several are
 * joined once at the end). A body that passes {@link SPILL_BYTES} moves into a resizable
 * `ArrayBuffer` that grows in place to exactly the bytes received (its maximum is reserved as
 * address space only, never committed), so no chunk list and no second full-size copy exist
 * at the end; and because the engine decommits the pages of a resizable buffer shrunk to zero,
 * {@link BodyStore.release} gives those pages back to the operating system the moment the
 * text is decoded, before `JSON.parse` builds the value. Measured on a 64 MiB ASCII body (Node
 * 20, `bench/http-admission.bench.mjs`): with a declared-size copy of the chunks, the socket's
 * dead chunks, the copy, the text and the value were all resident at the parse's peak, 4.01
 * times the wire bytes; now at most the dead chunks (until V8 collects them), the text and the
 * value, 2.5 to 3.0 (3.0 when V8 collects none of the chunks during the read).
 */
export interface BodyStore {
  /** Holds `chunk` (already counted, reserved and scanned by the caller). */
  push(chunk: Uint8Array): void
  /**
   * The bytes held, as one `Buffer`: the single chunk itself, the chunks joined, or a view of
   * the resizable buffer. The store drops its own references to chunks, so the returned
   * buffer is the only thing keeping them alive.
   */
  take(): Buffer
  /**
   * Decommits the resizable buffer's pages now, rather than whenever the collector runs; any
   * view returned by {@link take} is empty afterwards. A no-op for a body held as chunks.
   */
  release(): void
  /** Whether the bytes moved into the resizable buffer (the body passed the spill point). */
  readonly spilled: boolean
}

/**
 * Bytes above which a body moves into a resizable buffer: 16 MiB, a quarter of the default
 * 64 MiB cap. Below it the chunks are joined with `Buffer.concat`, whose memory the allocator
 * recycles from request to request; a resizable buffer is a fresh mapping whose pages fault in
 * as they are written, measured at about twice the join's cost per byte (with a 1 MiB spill
 * point, 10 MB bodies fell from 1.03 to 0.83 of `express.json()`'s requests per second), so it
 * is paid only where the peak is worth more than the time.
 */
export const SPILL_BYTES = 16 * 1024 * 1024

let spillBytes = SPILL_BYTES

/**
 * Internal, for tests only (not exported from the package root): moves the spill point of
 * stores created afterwards, so a test can cross it with small bodies; no argument restores
 * {@link SPILL_BYTES}.
 */
export function setSpillBytesForTests(bytes: number = SPILL_BYTES): void {
  spillBytes = bytes
}

type ResizableArrayBuffer = ArrayBuffer & { resize(byteLength: number): void }
// The ES2024 constructor form, which this package's TypeScript lib does not declare yet.
const Resizable = ArrayBuffer as unknown as new (
  byteLength: number,
  options: { maxByteLength: number },
) => ResizableArrayBuffer

// Resizable ArrayBuffers ship in Node 20 (V8 11.3); elsewhere every body is held as chunks.
const RESIZABLE =
  typeof (ArrayBuffer.prototype as { resize?: unknown }).resize === 'function' &&
  (() => {
    try {
      return (new Resizable(0, { maxByteLength: 1 }) as { resizable?: boolean }).resizable === true
    } catch {
      return false
    }
  })()

/**
 * Creates the store of one body. `maxBytes` is the most it can ever hold (the declared length,
 * or the cap). Chunks held as chunks are held by reference: a socket's and zlib's output
 * buffers are never written again once handed on.
 */
export function createBodyStore(maxBytes: number, spillAt = spillBytes): BodyStore {
  const chunks: Uint8Array[] = []
  let bytes = 0
  let area: ResizableArrayBuffer | undefined
  let view: Uint8Array | undefined
  let spillable = RESIZABLE
  const spill = (next: number): boolean => {
    try {
      area = new Resizable(next, { maxByteLength: maxBytes })
    } catch {
      // Address space refused (a huge cap): keep holding chunks, as without resizable buffers.
      spillable = false
      return false
    }
    // A length-tracking view: it follows every resize of the buffer.
    view = new Uint8Array(area)
    let at = 0
    for (const held of chunks) {
      view.set(held, at)
      at += held.byteLength
    }
    chunks.length = 0
    return true
  }
  return {
    push(chunk) {
      const next = bytes + chunk.byteLength
      if (area !== undefined && view !== undefined) {
        area.resize(next)
        view.set(chunk, bytes)
      } else if (spillable && next > spillAt && next <= maxBytes && spill(next)) {
        ;(view as Uint8Array).set(chunk, bytes)
      } else {
        chunks.push(chunk)
      }
      bytes = next
    },
    take() {
      if (area !== undefined) return Buffer.from(area, 0, bytes)
      const whole =
        chunks.length === 1 ? toBuffer(chunks[0] as Uint8Array) : Buffer.concat(chunks, bytes)
      chunks.length = 0
      return whole
    },
    release() {
      area?.resize(0)
      area = undefined
      view = undefined
    },
    get spilled() {
      return area !== undefined
    },
  }
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
