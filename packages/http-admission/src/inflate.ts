import type { Transform } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import { isAdmissionError } from '@tollgate/json-budget'
import { admissionError } from './codes.js'

/** A `Content-Encoding` this package can inflate. */
export type BodyEncoding = 'gzip' | 'deflate' | 'br'

/**
 * Parses `Content-Encoding` against the policy.
 * @returns `undefined` for no encoding or `identity`, otherwise the one encoding to inflate.
 * @throws AdmissionError `ERR_BODY_ENCODING` for an unknown encoding, a list of several, or any
 * encoding when `inflate` is false.
 */
export function parseContentEncoding(
  header: string | undefined | null,
  inflate: boolean,
): BodyEncoding | undefined {
  if (header === undefined || header === null) return undefined
  const value = header.trim().toLowerCase()
  if (value === '' || value === 'identity') return undefined
  if (inflate && (value === 'gzip' || value === 'x-gzip')) return 'gzip'
  if (inflate && (value === 'deflate' || value === 'br')) return value
  throw admissionError('ERR_BODY_ENCODING')
}

/** A streaming inflater that hands each inflated chunk to `onOutput` as it is produced. */
export interface Inflater {
  /** Feeds wire bytes; settles once they are inflated (rejects with the refusal that stopped it). */
  write(chunk: Uint8Array): Promise<void>
  /** Ends the input and settles once all output has been handed on. */
  end(): Promise<void>
  /** Releases the zlib state (idempotent). */
  destroy(): void
}

/**
 * Creates an inflater for `encoding`. When `onOutput` throws (the byte cap or ratio was passed,
 * the preflight refused), the inflater is destroyed at once: nothing more is inflated, which is
 * what keeps a decompression bomb from costing more than the cap. Corrupt or truncated input
 * is refused as `ERR_JSON_SYNTAX` (the bytes are not a JSON text under their encoding).
 */
export function createInflater(
  encoding: BodyEncoding,
  onOutput: (chunk: Uint8Array) => void,
): Inflater {
  const stream: Transform =
    encoding === 'gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : createBrotliDecompress()
  let failure: unknown
  // A write whose callback a destroyed stream may never call is settled from here instead.
  const waiting = new Set<(error: unknown) => void>()
  const fail = (error: unknown) => {
    if (failure === undefined) {
      failure = isAdmissionError(error) ? error : admissionError('ERR_JSON_SYNTAX')
    }
    stream.destroy()
    for (const reject of waiting) reject(failure)
    waiting.clear()
  }
  stream.on('data', (chunk: Buffer) => {
    if (failure !== undefined) return
    try {
      onOutput(chunk)
    } catch (error) {
      fail(error)
    }
  })
  stream.on('error', fail)
  return {
    write(chunk) {
      return new Promise<void>((resolve, reject) => {
        if (failure !== undefined) {
          reject(failure)
          return
        }
        waiting.add(reject)
        stream.write(chunk, (error?: Error | null) => {
          waiting.delete(reject)
          if (failure !== undefined || error) {
            if (failure === undefined) fail(error)
            reject(failure)
          } else {
            resolve()
          }
        })
      })
    },
    end() {
      return new Promise<void>((resolve, reject) => {
        if (failure !== undefined) {
          reject(failure)
          return
        }
        const onEnd = () => {
          stream.off('close', onClose)
          if (failure !== undefined) reject(failure)
          else resolve()
        }
        const onClose = () => {
          stream.off('end', onEnd)
          reject(failure ?? admissionError('ERR_JSON_SYNTAX'))
        }
        stream.once('end', onEnd)
        stream.once('close', onClose)
        stream.end()
      })
    },
    destroy() {
      stream.destroy()
    },
  }
}
