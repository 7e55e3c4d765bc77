// maxInflationRatio at its exact boundary: a body inflating to exactly N times its wire bytes
// is admitted under ratio N and refused under N - 1 with the ratio it reached.
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { admitStream } from './helpers/admit-stream.js'

async function* chunks(...parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield part
}

/** A JSON text whose length is an exact multiple of its gzip length (found by padding). */
function exactBody(): { text: string; wire: Buffer; ratio: number } {
  for (let pad = 4_000; pad < 8_000; pad++) {
    const text = `[${' '.repeat(pad)}]`
    const wire = gzipSync(Buffer.from(text))
    if (text.length % wire.byteLength === 0) {
      return { text, wire, ratio: text.length / wire.byteLength }
    }
  }
  throw new Error('no exact padding found')
}

describe('maxInflationRatio', () => {
  it('admits a body inflating to exactly maxInflationRatio times its wire bytes and refuses it under one less', async () => {
    const { text, wire, ratio } = exactBody()
    const at = await admitStream(
      chunks(wire),
      { maxInflationRatio: ratio },
      { contentEncoding: 'gzip' },
    )
    expect(at).toMatchObject({ ok: true, bytes: text.length, wireBytes: wire.byteLength })
    const past = await admitStream(
      chunks(wire),
      { maxInflationRatio: ratio - 1 },
      { contentEncoding: 'gzip' },
    )
    expect(past).toMatchObject({
      ok: false,
      error: { code: 'ERR_BODY_INFLATION_RATIO', limit: ratio - 1, observed: ratio },
    })
  })
})
