import { Writable } from 'node:stream'

/** Most stderr bytes forwarded per second; past it lines are counted, not logged. */
const MAX_BYTES_PER_SECOND = 64 * 1024

/**
 * A sink for a child's stderr that calls `onLine` once per line, each cut to `maxLineBytes`
 * (the rest of the line is dropped as it arrives, never held), at most 64 KiB of lines per
 * second (past it, lines are counted and the count is reported with the next forwarded line as
 * `dropped`), so a child that floods its stderr cannot flood the log or grow memory.
 */
export function cappedLines(
  maxLineBytes: number,
  onLine: (line: string, dropped: number | undefined) => void,
): Writable {
  let held: Buffer[] = []
  let heldBytes = 0
  let windowStart = Date.now()
  let windowBytes = 0
  let dropped = 0
  const flush = (): void => {
    const line = Buffer.concat(held).toString('utf8').replace(/\r$/, '')
    held = []
    const bytes = heldBytes
    heldBytes = 0
    const now = Date.now()
    if (now - windowStart >= 1000) {
      windowStart = now
      windowBytes = 0
    }
    if (windowBytes + bytes > MAX_BYTES_PER_SECOND) {
      dropped += 1
      return
    }
    windowBytes += bytes
    onLine(line, dropped === 0 ? undefined : dropped)
    dropped = 0
  }
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      let start = 0
      while (start < chunk.length) {
        const nl = chunk.indexOf(0x0a, start)
        const end = nl === -1 ? chunk.length : nl
        const room = maxLineBytes - heldBytes
        if (room > 0) {
          const piece = chunk.subarray(start, Math.min(end, start + room))
          held.push(Buffer.from(piece))
          heldBytes += piece.length
        }
        if (nl === -1) break
        flush()
        start = nl + 1
      }
      callback()
    },
    final(callback) {
      if (heldBytes > 0) flush()
      callback()
    },
  })
}
