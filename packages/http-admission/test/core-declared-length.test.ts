// The declared length (`Content-Length`) in the core, beyond the cases of core.test.ts: a body
// that runs past it is stopped at the first byte too many, an encoded body is held to it on
// the wire, the in-flight budget counts inflated bytes even when a length is declared, and a
// body without one is held correctly past the store's spill point.
import { gzipSync } from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { setSpillBytesForTests } from '../src/body-store.js'
import { createInFlightBudget } from '../src/index.js'
import { admitStream } from './helpers/admit-stream.js'

async function* chunks(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? Buffer.from(part) : part
}

afterEach(() => setSpillBytesForTests())

describe('admitBody and the declared length', () => {
  it('stops a body at the first chunk past its declared length with ERR_BODY_INVALID_LENGTH', async () => {
    let pulled = 0
    async function* liar(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('[0,0,0,')
      // Far more than maxBytes: only a read that stops here answers the length's code.
      for (let i = 0; i < 500; i++) {
        pulled++
        yield Buffer.from('0,0,0,0,')
      }
    }
    const result = await admitStream(liar(), { maxBytes: 1_000 }, { declaredLength: 10 })
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'ERR_BODY_INVALID_LENGTH', status: 400, observed: 15 },
    })
    expect(pulled).toBe(1)
  })

  it('refuses an encoded body whose wire bytes run past its declared length with ERR_BODY_INVALID_LENGTH', async () => {
    const wire = gzipSync('{"a":[1,2,3]}')
    const result = await admitStream(
      chunks(wire),
      {},
      { contentEncoding: 'gzip', declaredLength: wire.byteLength - 1 },
    )
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'ERR_BODY_INVALID_LENGTH', observed: wire.byteLength },
    })
  })

  it('counts the inflated bytes of an encoded body in the in-flight budget though its wire length is declared', async () => {
    // Random digits: about 100 KB inflated from about 45 KB, well inside maxInflationRatio.
    const inflated = JSON.stringify(
      Array.from({ length: 12_000 }, () => Math.floor(Math.random() * 1e8)),
    )
    const wire = gzipSync(inflated)
    const budget = createInFlightBudget(80_000)
    const refused = await admitStream(
      chunks(wire),
      { budget },
      { contentEncoding: 'gzip', declaredLength: wire.byteLength },
    )
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'ERR_ADMISSION_BUSY', limit: 80_000 },
    })
    expect(budget.inFlight).toBe(0)
    // Control: with room for the inflated bytes the same body is admitted.
    const roomy = createInFlightBudget(400_000)
    const admitted = await admitStream(
      chunks(wire),
      { budget: roomy },
      { contentEncoding: 'gzip', declaredLength: wire.byteLength },
    )
    expect(admitted).toMatchObject({ ok: true, bytes: inflated.length })
  })

  it('admits a body without a declared length past the spill point byte for byte', async () => {
    setSpillBytesForTests(1_024)
    const parts = Array.from({ length: 8 }, (_, i) => `${i === 0 ? '[' : ','}"${'x'.repeat(500)}"`)
    const text = `${parts.join('')}]`
    const result = await admitStream(chunks(...parts, ']'), { keepRaw: true })
    expect(result).toMatchObject({ ok: true, bytes: text.length })
    expect(result.ok && result.raw?.toString()).toBe(text)
    expect(result.ok && (result.value as string[]).length).toBe(8)
  })
})
