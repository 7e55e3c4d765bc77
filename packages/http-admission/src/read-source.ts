import type { Readable } from 'node:stream'
import type { AdmissionError } from '@tollgate/json-budget'
import { admissionError } from './codes.js'

/** A body source: a Node `Readable` (such as an `IncomingMessage`) or any async iterable of byte chunks. */
export type BodySource = Readable | AsyncIterable<Uint8Array>

/** Called for each chunk; throwing (or rejecting) stops the read with that error. */
export type ChunkHandler = (chunk: Uint8Array) => void | Promise<void>

/** A running read that can be stopped from outside (deadline, abort signal). */
export interface SourceRead {
  /** Settles when the source ends (resolves) or the read stops (rejects). */
  readonly done: Promise<void>
  /** Stops reading with `error`; a `Readable` is paused, never drained, never destroyed. */
  stop(error: AdmissionError): void
}

function isReadable(source: BodySource): source is Readable {
  return (
    typeof (source as Readable).on === 'function' &&
    typeof (source as Readable).pause === 'function' &&
    typeof (source as Readable).resume === 'function'
  )
}

function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk
  // A string chunk means someone called setEncoding() on the stream: the byte count would be
  // wrong and invalid UTF-8 already replaced, so it is refused rather than re-encoded.
  throw new TypeError('body chunks must be Uint8Array (was setEncoding() called on the stream?)')
}

/**
 * Reads `source` chunk by chunk into `onChunk`. A `Readable` is read through its events and
 * paused when stopped, so the caller can still answer on the same connection and nothing more
 * is pulled off the socket; an async iterable is stopped with `return()`. A stream that closes or
 * errors before its end stops the read with `ERR_BODY_ABORTED`.
 */
export function readSource(source: BodySource, onChunk: ChunkHandler): SourceRead {
  return isReadable(source) ? readStream(source, onChunk) : readIterable(source, onChunk)
}

function readStream(stream: Readable, onChunk: ChunkHandler): SourceRead {
  let settled = false
  let resolveDone!: () => void
  let rejectDone!: (error: unknown) => void
  const done = new Promise<void>((resolve, reject) => {
    resolveDone = resolve
    rejectDone = reject
  })
  const cleanup = () => {
    stream.off('data', onData)
    stream.off('end', onEnd)
    stream.off('error', onError)
    stream.off('close', onClose)
  }
  const finish = (error?: unknown) => {
    if (settled) return
    settled = true
    cleanup()
    if (error === undefined) {
      resolveDone()
    } else {
      stream.pause()
      // Keep an error listener so a late socket reset cannot crash the process.
      stream.on('error', noop)
      rejectDone(error)
    }
  }
  const onData = (chunk: unknown) => {
    if (settled) return
    let pending: void | Promise<void>
    try {
      pending = onChunk(toBytes(chunk))
    } catch (error) {
      finish(error)
      return
    }
    if (pending !== undefined) {
      stream.pause()
      pending.then(() => {
        if (!settled) stream.resume()
      }, finish)
    }
  }
  const onEnd = () => finish()
  const onError = () => finish(admissionError('ERR_BODY_ABORTED'))
  const onClose = () => finish(admissionError('ERR_BODY_ABORTED'))
  if (stream.readableEnded) {
    finish()
  } else if (stream.destroyed) {
    finish(admissionError('ERR_BODY_ABORTED'))
  } else {
    stream.on('data', onData)
    stream.on('end', onEnd)
    stream.on('error', onError)
    stream.on('close', onClose)
    stream.resume()
  }
  return { done, stop: finish }
}

function readIterable(iterable: AsyncIterable<Uint8Array>, onChunk: ChunkHandler): SourceRead {
  let stopError: AdmissionError | undefined
  let wake: ((error: AdmissionError) => void) | undefined
  const stopped = new Promise<never>((_, reject) => {
    wake = reject
  })
  stopped.catch(noop)
  const iterator = iterable[Symbol.asyncIterator]()
  const done = (async () => {
    try {
      for (;;) {
        const step = await Promise.race([iterator.next().catch(aborted), stopped])
        if (step.done) return
        await Promise.race([onChunk(toBytes(step.value)), stopped])
        if (stopError) throw stopError
      }
    } catch (error) {
      // Ending the iterator early (a web stream's reader is cancelled) is best effort; the
      // error that stopped the read is the one reported.
      iterator.return?.().catch(noop)
      throw stopError ?? error
    }
  })()
  return {
    done,
    stop(error) {
      if (stopError) return
      stopError = error
      wake?.(error)
    },
  }
}

function noop(): void {}

// The source failing (a web stream errored, a socket reset) is a client abort, not a refusal.
function aborted(): never {
  throw admissionError('ERR_BODY_ABORTED')
}
