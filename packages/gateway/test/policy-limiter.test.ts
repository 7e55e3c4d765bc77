import { describe, expect, it } from 'vitest'
import { limiter } from '../src/limiter.js'

function clock(start = 0) {
  let t = start
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

describe('limiter', () => {
  it('admits concurrentPerPrincipal calls in flight and refuses one more with Retry-After 1', () => {
    const l = limiter({ concurrentPerPrincipal: 3, now: clock().now })
    const leases = [l.acquire('p', 'a'), l.acquire('p', 'b'), l.acquire('p', 'a')]
    expect(leases.every((x) => x.ok)).toBe(true)
    expect(l.acquire('p', 'c')).toEqual({
      ok: false,
      code: 'ERR_CONCURRENCY_LIMIT',
      status: 429,
      retryAfterSeconds: 1,
    })
    expect(l.acquire('q', 'a').ok).toBe(true)
    const first = leases[0]!
    if (first.ok) {
      first.release()
      first.release()
    }
    expect(l.acquire('p', 'c').ok).toBe(true)
    expect(l.acquire('p', 'c').ok).toBe(false)
  })

  it('admits burst calls per principal and tool, then refuses with whole-second Retry-After', () => {
    const c = clock()
    const l = limiter({ burst: 3, ratePerMinute: 20, concurrentPerPrincipal: 100, now: c.now })
    for (let i = 0; i < 3; i++) expect(l.acquire('p', 'echo').ok).toBe(true)
    // 20 per minute: one token every 3 s.
    expect(l.acquire('p', 'echo')).toEqual({
      ok: false,
      code: 'ERR_RATE_LIMITED',
      status: 429,
      retryAfterSeconds: 3,
    })
    expect(l.acquire('p', 'other').ok).toBe(true)
    expect(l.acquire('q', 'echo').ok).toBe(true)
    c.advance(1_000)
    expect(l.acquire('p', 'echo')).toMatchObject({ ok: false, retryAfterSeconds: 2 })
    c.advance(2_000)
    expect(l.acquire('p', 'echo').ok).toBe(true)
    expect(l.acquire('p', 'echo').ok).toBe(false)
  })

  it('rounds a fractional wait up and never answers Retry-After 0', () => {
    const c = clock()
    const l = limiter({ burst: 1, ratePerMinute: 7, now: c.now })
    l.acquire('p', 't')
    c.advance(8_500) // 60/7 = 8.57 s per token
    expect(l.acquire('p', 't')).toMatchObject({ ok: false, retryAfterSeconds: 1 })
  })

  it('takes no token for a call refused by concurrency', () => {
    const l = limiter({ concurrentPerPrincipal: 1, burst: 1, ratePerMinute: 1, now: clock().now })
    const held = l.acquire('p', 't')
    expect(l.acquire('p', 't')).toMatchObject({ code: 'ERR_CONCURRENCY_LIMIT' })
    if (held.ok) held.release()
    expect(l.acquire('p', 'u').ok).toBe(true)
  })

  it('keeps at most maxTrackedKeys buckets, evicting the least recently used', () => {
    const c = clock()
    const l = limiter({
      burst: 2,
      ratePerMinute: 1,
      maxTrackedKeys: 3,
      concurrentPerPrincipal: 1000,
      now: c.now,
    })
    for (let i = 0; i < 100; i++) l.acquire(`p${i}`, 't')
    expect(l.trackedKeys()).toBe(3)
    l.acquire('a', 't')
    l.acquire('a', 't')
    expect(l.acquire('a', 't').ok).toBe(false)
    for (let i = 0; i < 3; i++) l.acquire(`q${i}`, 't')
    // a was evicted: it starts full again.
    expect(l.acquire('a', 't').ok).toBe(true)
  })

  it('drops buckets that refilled while idle', () => {
    const c = clock()
    const l = limiter({ burst: 2, ratePerMinute: 60, concurrentPerPrincipal: 1000, now: c.now })
    for (let i = 0; i < 50; i++) l.acquire(`p${i}`, 't')
    c.advance(60_000)
    for (let i = 0; i < 50; i++) l.acquire('fresh', `t${i % 2}`)
    expect(l.trackedKeys()).toBeLessThanOrEqual(2)
  })

  it('throws at construction on a bad option', () => {
    expect(() => limiter({ burst: 0 })).toThrow(TypeError)
    expect(() => limiter({ rate: 1 } as never)).toThrow(TypeError)
  })
})
