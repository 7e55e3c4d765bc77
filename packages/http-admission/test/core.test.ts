import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { expectRefused } from '@tollgate/test-kit/expect-refused'
import { describe, expect, it } from 'vitest'
import { bodyAdmission, createInFlightBudget } from '../src/index.js'
import { admitStream } from './helpers/admit-stream.js'

async function* chunks(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? Buffer.from(part) : part
}

/** A source that records how many chunks were pulled and then stalls forever. */
function stalling(parts: (string | Uint8Array)[]) {
  const state = { pulled: 0, returned: false }
  const iterable: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]() {
      return {
        next: () => {
          const part = parts[state.pulled]
          state.pulled++
          if (part === undefined) return new Promise(() => {})
          return Promise.resolve({
            done: false,
            value: typeof part === 'string' ? Buffer.from(part) : part,
          })
        },
        return: () => {
          state.returned = true
          return Promise.resolve({ done: true, value: undefined })
        },
      }
    },
  }
  return { iterable, state }
}

const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`

describe('bodyAdmission().admit', () => {
  it('admits a JSON body and decodes it once', async () => {
    const result = await admitStream(chunks('{"a":', '[1,2]}'), {
      budget: createInFlightBudget(1024),
    })
    expect(result).toMatchObject({ ok: true, value: { a: [1, 2] }, bytes: 11, wireBytes: 11 })
  })

  it('admits a body of exactly maxBytes and refuses maxBytes + 1 with ERR_BODY_TOO_LARGE', async () => {
    const options = bodyAdmission({
      maxBytes: 10,
      budget: createInFlightBudget(1024),
      strict: false,
    })
    const at = await admitStream(chunks('"12345', '678"'), options)
    expect(at).toMatchObject({ ok: true, value: '12345678', bytes: 10 })
    const past = await admitStream(chunks('"12345', '6789"'), options)
    expectRefused(past, 'ERR_BODY_TOO_LARGE')
    expect(past.error).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', limit: 10, status: 413 })
  })

  it('refuses a declared length above maxBytes before reading a byte', async () => {
    const { iterable, state } = stalling(['[]'])
    const result = await admitStream(iterable, { maxBytes: 100 }, { declaredLength: 101 })
    expectRefused(result, 'ERR_BODY_TOO_LARGE')
    expect(result.error).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', limit: 100, observed: 101 })
    expect(state.pulled).toBe(0)
  })

  it('refuses a body that ends short of its declared length with ERR_BODY_INCOMPLETE', async () => {
    const result = await admitStream(chunks('[1,2]'), {}, { declaredLength: 10 })
    expectRefused(result, 'ERR_BODY_INCOMPLETE')
    expect(result.error).toMatchObject({ code: 'ERR_BODY_INCOMPLETE', status: 400, observed: 5 })
  })

  it('refuses a body longer than its declared length with ERR_BODY_INVALID_LENGTH', async () => {
    const result = await admitStream(chunks('[1,', '2]'), {}, { declaredLength: 3 })
    expectRefused(result, 'ERR_BODY_INVALID_LENGTH')
  })

  it('refuses depth 65 with ERR_JSON_TOO_DEEP before the body ends', async () => {
    const { iterable, state } = stalling(['['.repeat(65)])
    const result = await admitStream(iterable, {})
    expectRefused(result, 'ERR_JSON_TOO_DEEP')
    expect(result.error).toMatchObject({ code: 'ERR_JSON_TOO_DEEP', limit: 64, status: 422 })
    expect(state.pulled).toBe(1)
    expect(state.returned).toBe(true)
  })

  it('admits depth 64', async () => {
    const result = await admitStream(chunks(deep(64)), {})
    expect(result).toMatchObject({ ok: true, depth: 64 })
  })

  it('refuses the 100,001st node with ERR_JSON_TOO_MANY_NODES and admits 100,000', async () => {
    const body = (n: number) => `[${Array.from({ length: n - 1 }, () => '0').join(',')}]`
    const at = await admitStream(chunks(body(100_000)), {})
    expect(at).toMatchObject({ ok: true, nodes: 100_000 })
    const past = await admitStream(chunks(body(100_001)), {})
    expectRefused(past, 'ERR_JSON_TOO_MANY_NODES')
    expect(past.error).toMatchObject({ code: 'ERR_JSON_TOO_MANY_NODES', limit: 100_000 })
  })

  it('refuses invalid UTF-8 with ERR_JSON_INVALID_UTF8 even when split across chunks', async () => {
    const result = await admitStream(
      chunks(Buffer.from('["a'), Buffer.from([0xe2, 0x82]), Buffer.from([0x41, 0x22, 0x5d])),
      {},
    )
    expectRefused(result, 'ERR_JSON_INVALID_UTF8')
    expect(result.error).toMatchObject({ code: 'ERR_JSON_INVALID_UTF8', status: 422 })
  })

  it('admits a UTF-8 sequence split across chunks', async () => {
    const euro = Buffer.from('["€"]')
    const result = await admitStream(chunks(euro.subarray(0, 3), euro.subarray(3)), {})
    expect(result).toMatchObject({ ok: true, value: ['€'] })
  })

  it('refuses a syntax error with ERR_JSON_SYNTAX', async () => {
    const result = await admitStream(chunks('{"a":1,}'), {})
    expectRefused(result, 'ERR_JSON_SYNTAX')
    expect(result.error).toMatchObject({ code: 'ERR_JSON_SYNTAX', status: 422 })
  })

  it('resolves an empty body to undefined', async () => {
    expect(await admitStream(chunks(), {})).toMatchObject({ ok: true, value: undefined, bytes: 0 })
  })

  it('hands on the admitted bytes with keepRaw', async () => {
    const result = await admitStream(chunks('[1]'), { keepRaw: true })
    expect(result.ok && result.raw?.toString()).toBe('[1]')
  })

  for (const [encoding, compress] of [
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const) {
    it(`inflates Content-Encoding ${encoding} and counts the cap on inflated bytes`, async () => {
      const text = JSON.stringify({ items: Array.from({ length: 50 }, (_, i) => i) })
      const ok = await admitStream(
        chunks(compress(Buffer.from(text))),
        {},
        { contentEncoding: encoding },
      )
      expect(ok).toMatchObject({ ok: true, bytes: text.length })
      const past = await admitStream(
        chunks(compress(Buffer.from(text))),
        { maxBytes: text.length - 1 },
        { contentEncoding: encoding },
      )
      expectRefused(past, 'ERR_BODY_TOO_LARGE')
      expect(past.error).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', limit: text.length - 1 })
    })
  }

  it('refuses an inflation ratio above maxInflationRatio with ERR_BODY_INFLATION_RATIO', async () => {
    const bomb = gzipSync(Buffer.from(`[${' '.repeat(1_000_000)}]`))
    const result = await admitStream(
      chunks(bomb),
      { maxInflationRatio: 100 },
      { contentEncoding: 'gzip' },
    )
    expectRefused(result, 'ERR_BODY_INFLATION_RATIO')
    expect(result.error).toMatchObject({
      code: 'ERR_BODY_INFLATION_RATIO',
      limit: 100,
      status: 413,
    })
  })

  it('refuses corrupt gzip with ERR_JSON_SYNTAX', async () => {
    const result = await admitStream(
      chunks(Buffer.from('not gzip at all')),
      {},
      { contentEncoding: 'gzip' },
    )
    expectRefused(result, 'ERR_JSON_SYNTAX')
  })

  it('refuses any Content-Encoding with inflate: false, and an unknown one always, with ERR_BODY_ENCODING', async () => {
    const off = await admitStream(
      chunks(gzipSync('[]')),
      { inflate: false },
      { contentEncoding: 'gzip' },
    )
    expect(!off.ok && off.error).toMatchObject({ code: 'ERR_BODY_ENCODING', status: 415 })
    const unknown = await admitStream(chunks('[]'), {}, { contentEncoding: 'compress' })
    expect(!unknown.ok && unknown.error.code).toBe('ERR_BODY_ENCODING')
    const identity = await admitStream(
      chunks('[]'),
      { inflate: false },
      { contentEncoding: 'identity' },
    )
    expect(identity.ok).toBe(true)
  })

  it('refuses a stalled body with ERR_BODY_TIMEOUT after idleTimeoutMs', async () => {
    const { iterable } = stalling(['[1,'])
    const result = await admitStream(iterable, { idleTimeoutMs: 20 })
    expect(!result.ok && result.error).toMatchObject({
      code: 'ERR_BODY_TIMEOUT',
      limit: 20,
      status: 408,
    })
  })

  it('refuses a body still arriving after timeoutMs with ERR_BODY_TIMEOUT', async () => {
    async function* drip() {
      yield Buffer.from('[')
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 5))
        yield Buffer.from('0,')
      }
    }
    const result = await admitStream(drip(), { timeoutMs: 50, idleTimeoutMs: 10_000 })
    expect(!result.ok && result.error).toMatchObject({ code: 'ERR_BODY_TIMEOUT', limit: 50 })
  })

  it('stops with ERR_BODY_ABORTED when the signal aborts', async () => {
    const { iterable } = stalling(['[1,'])
    const controller = new AbortController()
    const pending = admitStream(iterable, {}, { signal: controller.signal })
    setTimeout(() => controller.abort(), 5)
    const result = await pending
    expect(!result.ok && result.error.code).toBe('ERR_BODY_ABORTED')
  })

  it('refuses with ERR_ADMISSION_BUSY (503) when the in-flight budget cannot hold the body', async () => {
    const budget = createInFlightBudget(100)
    // Counted on bytes received: a declared 101 is refused once the 101st byte arrives.
    const body = `"${'a'.repeat(99)}"`
    const declared = await admitStream(chunks(body), { budget }, { declaredLength: 101 })
    expect(!declared.ok && declared.error).toMatchObject({
      code: 'ERR_ADMISSION_BUSY',
      status: 503,
      limit: 100,
    })
    const counted = await admitStream(chunks(`"${'a'.repeat(120)}"`), { budget })
    expect(!counted.ok && counted.error.code).toBe('ERR_ADMISSION_BUSY')
  })

  it('releases the in-flight budget on success, refusal, abort and timeout', async () => {
    const budget = createInFlightBudget(1_000_000)
    const o = { budget }
    const seen: number[] = []
    const watch = async function* (parts: string[]) {
      for (const part of parts) {
        yield Buffer.from(part)
        seen.push(budget.inFlight)
      }
    }
    await admitStream(watch(['[1,', '2]']), o, { declaredLength: 5 })
    expect(budget.inFlight).toBe(0)
    await admitStream(watch(['[[[', ']]']), { ...o, maxDepth: 2 })
    expect(budget.inFlight).toBe(0)
    const controller = new AbortController()
    const aborted = admitStream(stalling(['[1,']).iterable, o, {
      signal: controller.signal,
      declaredLength: 500,
    })
    await new Promise((resolve) => setTimeout(resolve, 5))
    // Held: the 3 bytes received, not the 500 declared.
    expect(budget.inFlight).toBe(3)
    controller.abort()
    await aborted
    expect(budget.inFlight).toBe(0)
    await admitStream(stalling(['[1,']).iterable, { ...o, idleTimeoutMs: 10 })
    expect(budget.inFlight).toBe(0)
    expect(Math.max(...seen)).toBeGreaterThan(0)
  })

  it('refuses a signal aborted before the read with ERR_BODY_ABORTED without pulling a chunk', async () => {
    const { iterable, state } = stalling(['[1]'])
    const controller = new AbortController()
    controller.abort()
    const budget = createInFlightBudget(1024)
    const result = await admitStream(iterable, { budget }, { signal: controller.signal })
    expect(!result.ok && result.error.code).toBe('ERR_BODY_ABORTED')
    expect(state.pulled).toBe(0)
    expect(budget.inFlight).toBe(0)
  })

  it('admits a body of exactly its declared length in several chunks, kept whole with keepRaw', async () => {
    const text = '{"a":[1,2,3],"b":"xyz"}'
    const parts = [text.slice(0, 4), text.slice(4, 9), text.slice(9, 15), text.slice(15)]
    const result = await admitStream(
      chunks(...parts),
      { keepRaw: true, budget: createInFlightBudget(1024) },
      { declaredLength: text.length },
    )
    expect(result).toMatchObject({
      ok: true,
      value: JSON.parse(text),
      bytes: text.length,
      wireBytes: text.length,
      nodes: 8,
      depth: 2,
    })
    expect(result.ok && result.raw?.toString()).toBe(text)
  })

  it('admits a body of plain Uint8Array chunks (not Buffers), one chunk or several', async () => {
    const bytes = (text: string) => new Uint8Array(Buffer.from(text))
    expect(await admitStream(chunks(bytes('[1,2]')), {})).toMatchObject({
      ok: true,
      value: [1, 2],
    })
    expect(await admitStream(chunks(bytes('{"a"'), bytes(':true}')), {})).toMatchObject({
      ok: true,
      value: { a: true },
    })
  })

  it('decodes a body whose BOM the bom: strip policy admits', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')])
    const stripped = await admitStream(chunks(body), { bom: 'strip' })
    expect(stripped).toMatchObject({ ok: true, value: { a: 1 }, bytes: 10 })
    const refused = await admitStream(chunks(body), {})
    expect(!refused.ok && refused.error.code).toBe('ERR_JSON_BOM')
  })

  it('counts wire bytes and inflated bytes apart for an encoded body', async () => {
    const text = JSON.stringify(Array.from({ length: 200 }, () => 'same'))
    const wire = gzipSync(Buffer.from(text))
    const result = await admitStream(
      chunks(wire.subarray(0, 10), wire.subarray(10)),
      { keepRaw: true },
      { contentEncoding: 'gzip' },
    )
    expect(result).toMatchObject({ ok: true, bytes: text.length, wireBytes: wire.length })
    expect(result.ok && result.raw?.toString()).toBe(text)
  })

  it('refuses wire bytes above maxBytes with ERR_BODY_TOO_LARGE even when they inflate to less', async () => {
    const wire = gzipSync(Buffer.from('[]'))
    const at = await admitStream(
      chunks(wire),
      { maxBytes: wire.length },
      { contentEncoding: 'gzip' },
    )
    expect(at.ok).toBe(true)
    const past = await admitStream(
      chunks(wire),
      { maxBytes: wire.length - 1 },
      { contentEncoding: 'gzip' },
    )
    expect(!past.ok && past.error).toMatchObject({
      code: 'ERR_BODY_TOO_LARGE',
      limit: wire.length - 1,
      observed: wire.length,
    })
  })

  it('admits an inflated body at exactly maxInflationRatio times its wire bytes', async () => {
    const text = `[${' '.repeat(4000)}]`
    const wire = gzipSync(Buffer.from(text))
    const ratio = Math.ceil(text.length / wire.length)
    const at = await admitStream(
      chunks(wire),
      { maxInflationRatio: ratio },
      { contentEncoding: 'gzip' },
    )
    expect(at).toMatchObject({ ok: true, bytes: text.length })
    const past = await admitStream(
      chunks(wire),
      { maxInflationRatio: Math.floor(text.length / wire.length) },
      { contentEncoding: 'gzip' },
    )
    expect(!past.ok && past.error).toMatchObject({ code: 'ERR_BODY_INFLATION_RATIO' })
  })

  it('admits a declared length of exactly maxBytes', async () => {
    const result = await admitStream(chunks('[1,', '2]'), { maxBytes: 5 }, { declaredLength: 5 })
    expect(result).toMatchObject({ ok: true, value: [1, 2], bytes: 5 })
  })
})
