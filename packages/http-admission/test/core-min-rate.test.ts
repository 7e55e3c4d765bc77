// The minimum data rate of the core (`minBytesPerSecond` after `minRateGraceMs`): it is an
// average since admission began, so a body that sent enough early may pause, and the refusal
// reports the rate it measured. No timing is asserted: each case waits on the outcome.
import { describe, expect, it } from 'vitest'
import { admitStream } from './helpers/admit-stream.js'

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('minBytesPerSecond in bodyAdmission().admit', () => {
  it('admits a body that paused past the grace period while its average stayed above the minimum', async () => {
    async function* body(): AsyncGenerator<Uint8Array> {
      // 5,000 bytes at once keep a 1,000 B/s average for five seconds.
      yield Buffer.from(`[${'0,'.repeat(2_499)}`)
      await pause(300)
      yield Buffer.from('0]')
    }
    const result = await admitStream(body(), {
      minBytesPerSecond: 1_000,
      minRateGraceMs: 100,
      idleTimeoutMs: 10_000,
    })
    expect(result).toMatchObject({ ok: true, bytes: 5_001 })
  })

  it('refuses a body below the minimum with ERR_BODY_TIMEOUT naming minBytesPerSecond and the rate it measured', async () => {
    async function* body(): AsyncGenerator<Uint8Array> {
      yield Buffer.from(`[${'0,'.repeat(99)}`)
      await new Promise(() => {})
    }
    const result = await admitStream(body(), {
      minBytesPerSecond: 100_000,
      minRateGraceMs: 50,
      idleTimeoutMs: 10_000,
    })
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'ERR_BODY_TIMEOUT', limit: 100_000, option: 'minBytesPerSecond' },
    })
    const observed = !result.ok ? result.error.observed : undefined
    // 199 bytes over at least the 50 ms grace: a rate above zero and below the minimum (a
    // count of bytes per millisecond instead would pass the minimum).
    expect(observed).toBeGreaterThan(0)
    expect(observed).toBeLessThan(100_000)
  })
})
