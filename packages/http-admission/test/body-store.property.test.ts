// Helper test: the internal body store (src/body-store.ts) against Buffer.concat, the join it
// replaces for large bodies, over random chunkings and spill points.
import { fc, test } from '@fast-check/vitest'
import { describe, expect, it } from 'vitest'
import { createBodyStore, SPILL_BYTES } from '../src/body-store.js'

/** `bytes` cut at `cuts` (positions modulo its length), in order. */
function cut(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const out: Uint8Array[] = []
  let from = 0
  for (const to of [...at, bytes.length]) {
    out.push(bytes.subarray(from, to))
    from = to
  }
  return out
}

describe('createBodyStore', () => {
  test.prop(
    [
      fc.uint8Array({ minLength: 1, maxLength: 4096 }),
      fc.array(fc.nat(), { maxLength: 12 }),
      fc.nat({ max: 4096 }),
      fc.nat({ max: 64 }),
    ],
    { numRuns: 300 },
  )(
    'holds exactly the bytes Buffer.concat would join, for any chunking and spill point',
    (bytes, cuts, spillAt, slack) => {
      const chunks = cut(bytes, cuts)
      const store = createBodyStore(bytes.length + slack, spillAt)
      for (const c of chunks) store.push(c)
      const taken = store.take()
      expect(Buffer.compare(taken, Buffer.concat(chunks))).toBe(0)
      expect(taken.length).toBe(bytes.length)
    },
  )

  it('moves into a resizable buffer past the spill point, grown to exactly the bytes pushed', () => {
    const store = createBodyStore(1000, 10)
    store.push(Buffer.from('0123456789'))
    store.push(Buffer.from('abc'))
    const taken = store.take()
    const area = taken.buffer as ArrayBuffer & { resizable?: boolean; maxByteLength?: number }
    expect(area.resizable).toBe(true)
    expect(area.byteLength).toBe(13)
    expect(area.maxByteLength).toBe(1000)
    expect(taken.toString()).toBe('0123456789abc')
  })

  it('copies what it holds once spilled, so a chunk reused by its producer cannot change the body', () => {
    const store = createBodyStore(100, 4)
    const reused = Buffer.from('aaaa')
    store.push(reused)
    store.push(Buffer.from('bb'))
    reused.fill(0x7a)
    expect(store.take().toString()).toBe('aaaabb')
  })

  it('hands a single chunk on without copying it', () => {
    const store = createBodyStore(100, SPILL_BYTES)
    const only = Buffer.from('{"a":1}')
    store.push(only)
    expect(store.take()).toBe(only)
  })

  it('empties the resizable buffer on release, leaving the decoded copy to the caller', () => {
    const store = createBodyStore(100, 1)
    store.push(Buffer.from('ab'))
    store.push(Buffer.from('cd'))
    const taken = store.take()
    const text = taken.toString()
    store.release()
    expect(taken.buffer.byteLength).toBe(0)
    expect(text).toBe('abcd')
  })

  it('keeps holding chunks when the address space for the maximum is refused', () => {
    // 2^53 is past any engine's largest resizable buffer (Node 24 reserves 1 TiB where Node 20
    // refuses it): the reservation throws and the store falls back to the join.
    const store = createBodyStore(2 ** 53, 1)
    store.push(Buffer.from('ab'))
    store.push(Buffer.from('cd'))
    store.push(Buffer.from('ef'))
    const taken = store.take()
    expect((taken.buffer as { resizable?: boolean }).resizable).not.toBe(true)
    expect(taken.toString()).toBe('abcdef')
  })
})
