// SessionPool's pools, stream cap, lifetime and peek, in-process with fake timers (the socket
// path is the reference server's test/session-fairness.test.ts): every clock and count exactly.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { SessionPool } from '../src/index.js'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

function open<T>(pool: SessionPool<T>, key: string, id: string, value: T, poolName?: string) {
  const r = pool.reserve(key, poolName)
  if (!r.ok) throw new Error(`refused: ${r.error.code}`)
  const close = vi.fn()
  r.slot.commit(id, value, close)
  r.slot.release()
  return close
}

describe('SessionPool pools', () => {
  it('holds a pool member to poolMemberShare of maxSessionsPerKey and the pool together to maxSessionsPerKey; other keys are untouched', () => {
    const pool = new SessionPool<string>({ maxSessions: 100, maxSessionsPerKey: 8 })
    expect(pool.maxSessionsPerPoolMember).toBe(2)
    open(pool, 'ip:a', 'a1', 'v', 'anonymous')
    open(pool, 'ip:a', 'a2', 'v', 'anonymous')
    expect(pool.reserve('ip:a', 'anonymous')).toEqual({
      ok: false,
      error: { code: 'ERR_SESSION_QUOTA', status: 429, limit: 2 },
    })
    for (const [key, n] of [
      ['ip:b', 2],
      ['ip:c', 2],
      ['ip:d', 2],
    ] as const) {
      for (let i = 0; i < n; i++) open(pool, key, `${key}${i}`, 'v', 'anonymous')
    }
    expect(pool.countOfPool('anonymous')).toBe(8)
    expect(pool.reserve('ip:e', 'anonymous')).toEqual({
      ok: false,
      error: { code: 'ERR_SESSION_QUOTA', status: 429, limit: 8 },
    })
    // A credential outside the pool keeps its own quota.
    for (let i = 0; i < 8; i++) open(pool, 'alice', `alice${i}`, 'v')
    pool.delete('a1')
    expect([pool.countOfPool('anonymous'), pool.countOf('ip:a')]).toEqual([7, 1])
    expect(pool.reserve('ip:e', 'anonymous').ok).toBe(true)
  })

  it('refuses a poolMemberShare outside (0, 1] and never gives a member less than one session', () => {
    expect(() => new SessionPool({ poolMemberShare: 0 })).toThrow(TypeError)
    expect(() => new SessionPool({ poolMemberShare: 1.5 })).toThrow(TypeError)
    expect(() => new SessionPool({ maxLifetimeMs: 0 })).toThrow(TypeError)
    expect(() => new SessionPool({ streamIdleMs: -1 })).toThrow(TypeError)
    expect(new SessionPool({ maxSessionsPerKey: 1 }).maxSessionsPerPoolMember).toBe(1)
  })
})

describe('SessionPool clocks', () => {
  it('closes a session maxLifetimeMs after it opened, however busy it is', async () => {
    const pool = new SessionPool<string>({ idleMs: 100, maxLifetimeMs: 1000 })
    const close = open(pool, 'k', 's', 'v')
    const busy = pool.use('s')
    await vi.advanceTimersByTimeAsync(999)
    expect(pool.has('s')).toBe(true)
    await vi.advanceTimersByTimeAsync(1)
    expect([pool.has('s'), pool.size, close.mock.calls.length]).toEqual([false, 0, 1])
    busy?.done()
    expect(vi.getTimerCount()).toBe(0)
  })

  it('lets an open stream keep a session with nothing else in flight for streamIdleMs only', async () => {
    const pool = new SessionPool<string>({
      idleMs: 100,
      streamIdleMs: 500,
      maxLifetimeMs: false,
    })
    const close = open(pool, 'k', 's', 'v')
    const stream = pool.use('s', 'stream')
    await vi.advanceTimersByTimeAsync(499)
    expect(pool.has('s')).toBe(true)
    // A request in flight stops every clock; once it ends, the stream's clock starts again.
    const request = pool.use('s')
    await vi.advanceTimersByTimeAsync(10_000)
    expect(pool.has('s')).toBe(true)
    request?.done()
    await vi.advanceTimersByTimeAsync(499)
    expect(pool.has('s')).toBe(true)
    await vi.advanceTimersByTimeAsync(1)
    expect([pool.has('s'), close.mock.calls.length]).toEqual([false, 1])
    stream?.done()
  })

  it('control: with streamIdleMs and maxLifetimeMs false, one open stream holds the session for ever', async () => {
    const pool = new SessionPool<string>({ idleMs: 100, streamIdleMs: false, maxLifetimeMs: false })
    open(pool, 'k', 's', 'v')
    pool.use('s', 'stream')
    await vi.advanceTimersByTimeAsync(10_000_000)
    expect(pool.has('s')).toBe(true)
  })

  it('peek reads a session without touching its idle clock; use stops it', async () => {
    const pool = new SessionPool<string>({ idleMs: 1000, maxLifetimeMs: false })
    open(pool, 'alice', 's', 'v')
    await vi.advanceTimersByTimeAsync(900)
    // A refused request (another principal) reads the session and leaves it alone.
    expect(pool.peek('s')).toEqual({ value: 'v', key: 'alice' })
    expect(pool.peek('unknown')).toBeUndefined()
    await vi.advanceTimersByTimeAsync(100)
    expect(pool.has('s')).toBe(false)
  })

  it('control: use() for a request that is then refused restarts the clock (what peek avoids)', async () => {
    const pool = new SessionPool<string>({ idleMs: 1000, maxLifetimeMs: false })
    open(pool, 'alice', 's', 'v')
    await vi.advanceTimersByTimeAsync(900)
    pool.use('s')?.done()
    await vi.advanceTimersByTimeAsync(100)
    expect(pool.has('s')).toBe(true)
  })
})
