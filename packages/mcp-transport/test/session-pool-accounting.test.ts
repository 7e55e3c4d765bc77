// SessionPool's slot accounting, in-process with fake timers: reserve, commit, release, use,
// done, delete, close and idle expiry, each counted against both limits. The limits against
// concurrent initializes on a real socket are in session-pool.test.ts.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { isInitializeBody, SessionPool } from '../src/index.js'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

function reserved<T>(pool: SessionPool<T>, key: string) {
  const r = pool.reserve(key)
  if (!r.ok) throw new Error(`refused: ${r.error.code}`)
  return r.slot
}

describe('SessionPool accounting', () => {
  it('refuses at maxSessions with 503 and at the key quota with 429, and counts both ways', () => {
    const pool = new SessionPool<string>({ maxSessions: 3, maxSessionsPerKey: 2 })
    const a1 = reserved(pool, 'a')
    reserved(pool, 'a')
    expect([pool.size, pool.countOf('a'), pool.countOf('b')]).toEqual([2, 2, 0])
    expect(pool.reserve('a')).toEqual({
      ok: false,
      error: { code: 'ERR_SESSION_QUOTA', status: 429, limit: 2 },
    })
    reserved(pool, 'b')
    expect(pool.reserve('c')).toEqual({
      ok: false,
      error: { code: 'ERR_SESSION_LIMIT', status: 503, limit: 3 },
    })
    a1.release()
    a1.release()
    expect([pool.size, pool.countOf('a')]).toEqual([2, 1])
    expect(pool.reserve('c').ok).toBe(true)
  })

  it('commits a slot once, to an id not in the pool, and never after a release', () => {
    const pool = new SessionPool<string>({ idleMs: false })
    const slot = reserved(pool, 'a')
    expect(slot.key).toBe('a')
    slot.commit('s1', 'v1', () => {})
    expect(pool.has('s1')).toBe(true)
    expect(() => slot.commit('s2', 'v2', () => {})).toThrow('session slot already committed')
    const other = reserved(pool, 'a')
    expect(() => other.commit('s1', 'v', () => {})).toThrow('session id already in the pool')
    other.release()
    expect(() => other.commit('s3', 'v', () => {})).toThrow('session slot already released')
    expect([pool.size, pool.countOf('a')]).toEqual([1, 1])
    slot.release()
    expect(pool.size).toBe(1)
    expect(pool.delete('s1')).toBe(true)
    expect(pool.delete('s1')).toBe(false)
    expect([pool.size, pool.countOf('a'), pool.has('s1')]).toEqual([0, 0, false])
  })

  it('closes a session idle for idleMs after its opening request, and frees its slot first', async () => {
    const pool = new SessionPool<string>({ idleMs: 1000 })
    const closed: string[] = []
    const slot = reserved(pool, 'a')
    slot.commit('s1', 'v1', () => {
      closed.push(`s1 at size ${pool.size}`)
    })
    // Still in its opening request: no idle clock yet.
    await vi.advanceTimersByTimeAsync(5000)
    expect(pool.has('s1')).toBe(true)
    slot.release()
    await vi.advanceTimersByTimeAsync(999)
    expect(pool.has('s1')).toBe(true)
    await vi.advanceTimersByTimeAsync(1)
    expect(pool.has('s1')).toBe(false)
    expect(closed).toEqual(['s1 at size 0'])
    expect(pool.countOf('a')).toBe(0)
  })

  it('stops the idle clock while a request uses the session and restarts it at done', async () => {
    const pool = new SessionPool<string>({ idleMs: 1000 })
    const closes = vi.fn()
    const slot = reserved(pool, 'k')
    slot.commit('s1', 'v1', closes)
    slot.release()
    await vi.advanceTimersByTimeAsync(900)
    const use = pool.use('s1')
    expect(use).toMatchObject({ value: 'v1', key: 'k' })
    const second = pool.use('s1')
    await vi.advanceTimersByTimeAsync(5000)
    expect(pool.has('s1')).toBe(true)
    use?.done()
    use?.done()
    // One request still in flight: still no clock.
    await vi.advanceTimersByTimeAsync(5000)
    expect(pool.has('s1')).toBe(true)
    second?.done()
    await vi.advanceTimersByTimeAsync(999)
    expect(pool.has('s1')).toBe(true)
    await vi.advanceTimersByTimeAsync(1)
    expect(pool.has('s1')).toBe(false)
    expect(closes).toHaveBeenCalledTimes(1)
    expect(pool.use('s1')).toBeUndefined()
  })

  it('keeps sessions with idleMs false, and a failing close frees the slot all the same', async () => {
    const kept = new SessionPool<string>({ idleMs: false, maxLifetimeMs: false })
    const slot = reserved(kept, 'a')
    slot.commit('s', 'v', () => {})
    slot.release()
    await vi.advanceTimersByTimeAsync(10_000_000)
    expect(kept.has('s')).toBe(true)
    const pool = new SessionPool<string>({ idleMs: 10 })
    const failing = reserved(pool, 'a')
    failing.commit('f', 'v', () => Promise.reject(new Error('close failed')))
    failing.release()
    await vi.advanceTimersByTimeAsync(10)
    expect([pool.has('f'), pool.size]).toEqual([false, 0])
  })

  it('does not close a session deleted before its idle clock ran out, nor re-arm a deleted one', async () => {
    const pool = new SessionPool<string>({ idleMs: 100 })
    const closes = vi.fn()
    const slot = reserved(pool, 'a')
    slot.commit('s', 'v', closes)
    const use = pool.use('s')
    pool.delete('s')
    slot.release()
    use?.done()
    await vi.advanceTimersByTimeAsync(1000)
    expect(closes).not.toHaveBeenCalled()
    expect(pool.size).toBe(0)
  })

  it('restarts the idle clock from the last request to end, never from an earlier one', async () => {
    const pool = new SessionPool<string>({ idleMs: 1000 })
    const closes = vi.fn()
    const slot = reserved(pool, 'k')
    slot.commit('s', 'v', closes)
    slot.release()
    // A request at 900 ms stops the clock the release started; it must not fire at 1000 ms.
    await vi.advanceTimersByTimeAsync(900)
    const first = pool.use('s')
    await vi.advanceTimersByTimeAsync(50)
    first?.done()
    await vi.advanceTimersByTimeAsync(999)
    expect(pool.has('s')).toBe(true)
    // Two requests at once: the first to end starts no clock while the other is in flight.
    const a = pool.use('s')
    const b = pool.use('s')
    a?.done()
    await vi.advanceTimersByTimeAsync(990)
    b?.done()
    await vi.advanceTimersByTimeAsync(999)
    expect(pool.has('s')).toBe(true)
    await vi.advanceTimersByTimeAsync(1)
    expect(pool.has('s')).toBe(false)
    expect(closes).toHaveBeenCalledTimes(1)
  })

  it('holds no idle timer for a session that is deleted, however its requests end', async () => {
    const pool = new SessionPool<string>({ idleMs: 1000, maxLifetimeMs: false })
    // Deleted while idle: its clock is stopped with it.
    const idle = reserved(pool, 'a')
    idle.commit('idle', 'v', () => {})
    idle.release()
    expect(vi.getTimerCount()).toBe(1)
    pool.delete('idle')
    expect(vi.getTimerCount()).toBe(0)
    // Deleted during its opening request, then during a later one: neither end arms a clock.
    const opening = reserved(pool, 'a')
    opening.commit('opening', 'v', () => {})
    pool.delete('opening')
    opening.release()
    expect(vi.getTimerCount()).toBe(0)
    const used = reserved(pool, 'a')
    used.commit('used', 'v', () => {})
    used.release()
    const use = pool.use('used')
    pool.delete('used')
    use?.done()
    expect(vi.getTimerCount()).toBe(0)
    expect(pool.size).toBe(0)
  })

  it('takes a second release of a committed slot as a no-op', () => {
    const pool = new SessionPool<string>({ idleMs: false })
    const slot = reserved(pool, 'a')
    slot.commit('s', 'v', () => {})
    slot.release()
    expect(() => slot.release()).not.toThrow()
    expect([pool.size, pool.countOf('a'), pool.has('s')]).toEqual([1, 1, true])
    const use = pool.use('s')
    use?.done()
    expect(pool.has('s')).toBe(true)
  })

  it('closes every session on close(), failing closes included, and empties the pool', async () => {
    const pool = new SessionPool<string>()
    const closed: string[] = []
    for (const id of ['x', 'y']) {
      const slot = reserved(pool, id)
      slot.commit(id, id, () => {
        closed.push(id)
        return id === 'x' ? Promise.reject(new Error('close failed')) : undefined
      })
    }
    await pool.close()
    expect(closed).toEqual(['x', 'y'])
    expect([pool.size, pool.has('x'), pool.has('y'), pool.countOf('x')]).toEqual([
      0,
      false,
      false,
      0,
    ])
  })

  it('closes every later session when one close() callback throws synchronously', async () => {
    const pool = new SessionPool<string>()
    const closed: string[] = []
    for (const id of ['x', 'y', 'z']) {
      const slot = reserved(pool, id)
      slot.commit(id, id, () => {
        closed.push(id)
        if (id === 'x') throw new Error('close threw')
      })
    }
    await expect(pool.close()).resolves.toBeUndefined()
    expect(closed).toEqual(['x', 'y', 'z'])
    expect([pool.size, pool.has('y'), pool.has('z')]).toEqual([0, false, false])
  })
})

describe('isInitializeBody', () => {
  it('is true for a lone initialize request, or a batch of exactly one', () => {
    const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: {} }
    expect(isInitializeBody(init)).toBe(true)
    expect(isInitializeBody([init])).toBe(true)
    expect(isInitializeBody([init, init])).toBe(false)
    expect(isInitializeBody([[init]])).toBe(false)
    expect(isInitializeBody({ ...init, id: undefined })).toBe(false)
    expect(isInitializeBody({ ...init, method: 'ping' })).toBe(false)
    expect(isInitializeBody(null)).toBe(false)
    expect(isInitializeBody('initialize')).toBe(false)
    expect(isInitializeBody([])).toBe(false)
    expect(isInitializeBody(undefined)).toBe(false)
    expect(isInitializeBody([undefined])).toBe(false)
  })
})
