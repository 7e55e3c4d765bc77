// How the core reads an async iterable body source (a web stream's reader, a generator): a
// source that fails is a client abort, and a hand-written iterator without `return()` is
// still refused with the refusal's own code.
import { describe, expect, it } from 'vitest'
import { admitStream } from './helpers/admit-stream.js'

describe('admitBody over an async iterable', () => {
  it('refuses a source that fails mid-body with ERR_BODY_ABORTED', async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('[1,')
      throw new Error('stream errored')
    }
    const result = await admitStream(failing())
    expect(result).toMatchObject({ ok: false, error: { code: 'ERR_BODY_ABORTED' } })
  })

  it('refuses through an iterator without return() with the refusal that stopped it', async () => {
    let pulled = 0
    const source: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          pulled++
          return Promise.resolve({ done: false, value: Buffer.from('[1,2,3,4,5]') })
        },
      }),
    }
    const result = await admitStream(source, { maxBytes: 8 })
    expect(result).toMatchObject({ ok: false, error: { code: 'ERR_BODY_TOO_LARGE', limit: 8 } })
    expect(pulled).toBe(1)
  })
})
