// How the core reads a Node `Readable` (an `IncomingMessage` is one) at the edges of its life:
// a stream that has already ended or been destroyed, one that closes or errors mid-body, a
// late error after a refusal, and a refusal that lands while an inflating write is pending.
// Each case is one a server meets: a client that disconnected before the handler ran, a
// socket reset mid-body or after the answer.
import { PassThrough, Readable } from 'node:stream'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { admitStream } from './helpers/admit-stream.js'

/** Settles to 'hung' when `pending` has not settled within `ms` (a generous deadline). */
function within<T>(pending: Promise<T>, ms = 5_000): Promise<T | 'hung'> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), ms)
  })
  return Promise.race([pending, deadline]).finally(() => clearTimeout(timer))
}

describe('admitBody over a Readable', () => {
  it('admits a stream that has already ended as an empty body', async () => {
    const stream = Readable.from([], { objectMode: false })
    stream.resume()
    await new Promise((resolve) => stream.once('end', resolve))
    expect(stream.readableEnded).toBe(true)
    const result = await within(admitStream(stream))
    expect(result).toMatchObject({ ok: true, value: undefined, bytes: 0 })
  })

  it('refuses a stream destroyed before the read with ERR_BODY_ABORTED', async () => {
    const stream = new PassThrough()
    stream.destroy()
    // Its 'close' already emitted, as for a request whose client left before the handler ran.
    await new Promise((resolve) => stream.once('close', resolve))
    const result = await within(admitStream(stream))
    expect(result).toMatchObject({ ok: false, error: { code: 'ERR_BODY_ABORTED' } })
  })

  it('refuses a stream that closes before its end with ERR_BODY_ABORTED', async () => {
    const stream = new PassThrough()
    const pending = within(admitStream(stream))
    stream.write('[1,')
    setTimeout(() => stream.destroy(), 10)
    expect(await pending).toMatchObject({ ok: false, error: { code: 'ERR_BODY_ABORTED' } })
  })

  it('refuses a stream that errors mid-body with ERR_BODY_ABORTED, and the error does not escape', async () => {
    const stream = new PassThrough()
    const pending = within(admitStream(stream))
    stream.write('[1,')
    setTimeout(() => stream.destroy(new Error('socket reset')), 10)
    expect(await pending).toMatchObject({ ok: false, error: { code: 'ERR_BODY_ABORTED' } })
  })

  it('keeps an error listener after a refusal, so a late socket error cannot crash the process', async () => {
    const stream = new PassThrough()
    const pending = admitStream(stream, { maxBytes: 4 })
    stream.write('[1,2,3]')
    const result = await within(pending)
    expect(result).toMatchObject({ ok: false, error: { code: 'ERR_BODY_TOO_LARGE', limit: 4 } })
    // Without a listener this 'error' would be thrown as an uncaught exception.
    stream.destroy(new Error('late reset'))
    await new Promise((resolve) => stream.once('close', resolve))
    expect(stream.listenerCount('error')).toBeGreaterThan(0)
  })

  it('leaves the stream paused when the read is stopped while an inflating write is pending', async () => {
    const stream = new PassThrough()
    const controller = new AbortController()
    const pending = admitStream(stream, {}, { contentEncoding: 'gzip', signal: controller.signal })
    // The chunk goes to zlib (a write that settles later); the abort lands before it settles.
    stream.once('pause', () => controller.abort())
    stream.write(gzipSync('[1,2,3]'))
    const result = await within(pending)
    expect(result).toMatchObject({ ok: false, error: { code: 'ERR_BODY_ABORTED' } })
    // Give the pending write time to settle: it must not resume the refused stream.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(stream.isPaused()).toBe(true)
    expect(stream.readableFlowing).toBe(false)
  })

  it('refuses a stream set to a string encoding with a TypeError instead of miscounting its bytes', async () => {
    const stream = new PassThrough()
    stream.setEncoding('utf8')
    const pending = admitStream(stream)
    stream.end('[1,2,3]')
    await expect(pending).rejects.toThrow(TypeError)
  })
})
