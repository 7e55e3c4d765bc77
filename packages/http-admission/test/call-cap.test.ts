// A call's own byte cap (`AdmitCall.maxBytes`): a route that knows from the request head which
// operation a body is for caps it lower than the control, as the chunks arrive.
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { bodyAdmission, createInFlightBudget } from '../src/index.js'

/** An endless source of `{"a":"xxxx…` in 1 KiB chunks; `pulled` counts what was read. */
function endless() {
  const state = { pulled: 0 }
  const piece = Buffer.alloc(1024, 0x78)
  const iterable: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]() {
      return {
        next: () => {
          state.pulled++
          const value = state.pulled === 1 ? Buffer.from('{"a":"') : piece
          return Promise.resolve({ done: false, value })
        },
        return: () => Promise.resolve({ done: true, value: undefined }),
      }
    },
  }
  return { iterable, state }
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes
}

const control = () => bodyAdmission({ budget: createInFlightBudget(1 << 24), maxBytes: 1 << 20 })
const body = (n: number) => Buffer.from(JSON.stringify({ a: 'x'.repeat(n - 8) }))

describe('AdmitCall.maxBytes', () => {
  it('refuses a body of unknown length at the call cap with ERR_BODY_TOO_LARGE, reading a bounded amount', async () => {
    const { iterable, state } = endless()
    const result = await control().admit(iterable, undefined, { maxBytes: 4096 })
    expect(result.ok).toBe(false)
    expect(result.ok ? undefined : result.error).toMatchObject({
      code: 'ERR_BODY_TOO_LARGE',
      limit: 4096,
    })
    expect(state.pulled).toBeLessThanOrEqual(6)
  })

  it('admits a body at the call cap and refuses one byte past it', async () => {
    const at = await control().admit(once(body(4096)), undefined, { maxBytes: 4096 })
    expect(at.ok && at.bytes).toBe(4096)
    const past = await control().admit(once(body(4097)), undefined, { maxBytes: 4096 })
    expect(past.ok ? undefined : past.error).toMatchObject({
      code: 'ERR_BODY_TOO_LARGE',
      limit: 4096,
    })
  })

  it('counts inflated bytes against the call cap', async () => {
    const admission = bodyAdmission({
      budget: createInFlightBudget(1 << 24),
      maxBytes: 1 << 20,
      inflate: true,
    })
    const packed = gzipSync(body(64 * 1024))
    const decision = admission.classify({
      method: 'POST',
      contentType: 'application/json',
      contentLength: undefined,
      contentEncoding: 'gzip',
      hasBody: true,
    })
    const result = await admission.admit(once(packed), decision, { maxBytes: 4096 })
    expect(result.ok ? undefined : result.error).toMatchObject({
      code: 'ERR_BODY_TOO_LARGE',
      limit: 4096,
    })
  })

  it('never raises the control cap', async () => {
    const small = bodyAdmission({ budget: createInFlightBudget(1 << 24), maxBytes: 1024 })
    const result = await small.admit(once(body(2048)), undefined, { maxBytes: 1 << 20 })
    expect(result.ok ? undefined : result.error).toMatchObject({
      code: 'ERR_BODY_TOO_LARGE',
      limit: 1024,
    })
  })

  it('reads the endless body until the control cap when the call sets none (the control)', async () => {
    const { iterable, state } = endless()
    const result = await control().admit(iterable, undefined, {})
    expect(result.ok ? undefined : result.error).toMatchObject({ limit: 1 << 20 })
    expect(state.pulled).toBeGreaterThan(1000)
  })

  it('rejects a call cap that is not a positive integer', async () => {
    for (const maxBytes of [0, -1, 1.5, Number.NaN]) {
      await expect(control().admit(once(body(16)), undefined, { maxBytes })).rejects.toThrow(
        TypeError,
      )
    }
  })
})
