// The deadline timer is armed lazily, from one shared setImmediate per event-loop iteration
// (src/core.ts). These hold that nothing is lost by that: a read whose deadline already passed
// by the time the loop gets there is stopped at once with the same refusal, and many reads
// started in the same iteration are each armed.
import { describe, expect, it } from 'vitest'
import { admitStream } from './helpers/admit-stream.js'

/** A source that yields `first` and then never yields again. */
function stalled(first: string): AsyncIterable<Uint8Array> {
  let sent = false
  return {
    [Symbol.asyncIterator]() {
      return {
        next: () => {
          if (sent) return new Promise(() => {})
          sent = true
          return Promise.resolve({ done: false, value: Buffer.from(first) })
        },
        return: () => Promise.resolve({ done: true, value: undefined }),
      }
    },
  }
}

describe('lazily armed deadlines', () => {
  it('refuses with ERR_BODY_TIMEOUT and its limit a read whose deadline passed while the loop was blocked before the timer was armed', async () => {
    const pending = admitStream(stalled('[1,'), { timeoutMs: 20, idleTimeoutMs: 10_000 })
    // Hold the loop past the deadline before it reaches the check phase.
    const until = Date.now() + 60
    while (Date.now() < until) {}
    const result = await pending
    expect(!result.ok && result.error).toMatchObject({
      code: 'ERR_BODY_TIMEOUT',
      limit: 20,
      status: 408,
    })
  })

  it('arms every one of many reads started in the same loop iteration', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, () => admitStream(stalled('{"a":'), { idleTimeoutMs: 20 })),
    )
    for (const result of results) {
      expect(!result.ok && result.error).toMatchObject({ code: 'ERR_BODY_TIMEOUT', limit: 20 })
    }
  })
})
