// What a settled admission leaves behind: no deadline timer (a timer per finished request
// would keep thousands alive, each holding its body's state, until its deadline), no listener
// on a signal that outlives the request, and no harm to another read's deadlines.
import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { admitStream } from './helpers/admit-stream.js'

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield Buffer.from(part)
}

/** A body that arrives across a few event-loop turns, so its deadline timer is armed. */
async function* slowly(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    yield Buffer.from(part)
  }
}

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('a settled admission', () => {
  it('leaves no deadline timer behind once a body that was still arriving is admitted', async () => {
    const before = timers()
    for (let i = 0; i < 5; i++) {
      const result = await admitStream(slowly('[1,', '2]'))
      expect(result).toMatchObject({ ok: true, value: [1, 2] })
    }
    await turn()
    // Five admissions, so a timer left by each would show whatever else the worker runs.
    expect(timers()).toBeLessThanOrEqual(before + 1)
  })

  it('leaves no deadline timer behind for bodies admitted before the loop turned', async () => {
    const before = timers()
    const results = await Promise.all(
      ['[1]', '{}', '[2]', '{"a":3}', '[4]'].map((body) => admitStream(chunks(body))),
    )
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true])
    await turn()
    await turn()
    expect(timers()).toBeLessThanOrEqual(before + 1)
  })

  it('still times out a stalled body started in the same turn as one that settled at once', async () => {
    const fast = admitStream(chunks('[1]'))
    const stalled = admitStream(
      {
        [Symbol.asyncIterator]: () => ({
          next: () => new Promise<IteratorResult<Uint8Array>>(() => {}),
          return: () => Promise.resolve({ done: true as const, value: undefined }),
        }),
      },
      { idleTimeoutMs: 50 },
    )
    expect(await fast).toMatchObject({ ok: true, value: [1] })
    let timer: ReturnType<typeof setTimeout> | undefined
    const hung = new Promise<'hung'>((resolve) => {
      timer = setTimeout(() => resolve('hung'), 5_000)
    })
    const result = await Promise.race([stalled, hung])
    clearTimeout(timer)
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'ERR_BODY_TIMEOUT', limit: 50, option: 'idleTimeoutMs' },
    })
  })

  it('removes its abort listener from a signal that outlives the request', async () => {
    const controller = new AbortController()
    for (const body of ['[1]', '{"a":2}', '[']) {
      await admitStream(slowly(body), {}, { signal: controller.signal })
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })
})
