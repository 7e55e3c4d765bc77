// The pin file of `pinStore({ file })`: its format is described at the top of pins.ts.
import { randomBytes } from 'node:crypto'
import {
  closeSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import { namesDigest, type Pins, PinsFileError } from './pins.js'

const HEX64 = /^[0-9a-f]{64}$/

/**
 * Reads the pin file `file`.
 * @returns the pins, or `undefined` when there is no file (nothing pinned yet).
 * @throws PinsFileError when it cannot be read or is not a version 1 pin file.
 */
export function readPins(file: string): Pins | undefined {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined
    throw new PinsFileError(`pin file cannot be read (${(error as { code?: unknown }).code})`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new PinsFileError('pin file is not JSON')
  }
  const doc = parsed as { version?: unknown; names?: unknown; tools?: unknown }
  if (typeof parsed !== 'object' || parsed === null || doc.version !== 1) {
    throw new PinsFileError('pin file is not a version 1 pin file')
  }
  const entries = doc.tools
  if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) {
    throw new PinsFileError('pin file has no tools object')
  }
  const tools = new Map<string, string>()
  for (const [name, digest] of Object.entries(entries)) {
    if (typeof digest !== 'string' || !HEX64.test(digest)) {
      throw new PinsFileError('pin file holds a pin that is not a sha-256 hex digest')
    }
    tools.set(name, digest)
  }
  // `names` is derived from the entries (rewritten on every write, for whoever reads the
  // file); the entries are what is judged, so a hand edit of one digest is an approval.
  if (doc.names !== undefined && typeof doc.names !== 'string') {
    throw new PinsFileError('pin file names digest is not a string')
  }
  return { tools }
}

/**
 * Writes `pins` to `file` (mode 0600) through a temporary file renamed over it, so a reader
 * never sees half of it.
 * @throws PinsFileError when it cannot be written.
 */
export function writePins(file: string, pins: Pins): void {
  const names = [...pins.tools.keys()].sort()
  const tools: Record<string, string> = {}
  for (const name of names) {
    Object.defineProperty(tools, name, {
      value: pins.tools.get(name),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  const text = `${JSON.stringify({ version: 1, names: namesDigest(names), tools }, null, 2)}\n`
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  try {
    const fd = openSync(temp, 'wx', 0o600)
    try {
      writeSync(fd, text)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temp, file)
  } catch (error) {
    try {
      unlinkSync(temp)
    } catch {}
    throw new PinsFileError(`pin file cannot be written (${(error as { code?: unknown }).code})`)
  }
}
