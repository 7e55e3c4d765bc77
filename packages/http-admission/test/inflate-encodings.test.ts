// The Content-Encoding values the core reads (RFC 9110 §8.4): `x-gzip` is gzip, and an empty
// header, like `identity`, is no encoding at all; neither is refused.
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { admitStream } from './helpers/admit-stream.js'

async function* chunks(...parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield part
}

describe('Content-Encoding in admitBody', () => {
  it('inflates x-gzip as gzip, whatever its case', async () => {
    for (const contentEncoding of ['x-gzip', 'X-GZIP']) {
      const result = await admitStream(chunks(gzipSync('{"a":1}')), {}, { contentEncoding })
      expect(result).toMatchObject({ ok: true, value: { a: 1 }, bytes: 7 })
    }
  })

  it('reads a body with an empty Content-Encoding as unencoded', async () => {
    for (const contentEncoding of ['', '  ']) {
      const result = await admitStream(chunks(Buffer.from('{"a":1}')), {}, { contentEncoding })
      expect(result).toMatchObject({ ok: true, value: { a: 1 }, bytes: 7, wireBytes: 7 })
    }
  })
})
