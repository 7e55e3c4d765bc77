import { describe, expect, it } from 'vitest'
import { SESSION_POOL_DEFAULTS, SessionPool } from '../src/index.js'

// poolMemberShare's range is (0, 1]: its upper end admitted, anything but a number in it
// refused at construction naming the option.
describe('SessionPool', () => {
  it.each<[unknown]>([['0.5'], [Number.NaN], [null], [0], [1.0001]])(
    'refuses poolMemberShare %j naming poolMemberShare and its range',
    (poolMemberShare) => {
      expect(() => new SessionPool({ poolMemberShare } as never)).toThrow(
        new TypeError('poolMemberShare must be a number in (0, 1]'),
      )
    },
  )

  it('admits a poolMemberShare of 1: a pool member may hold the whole quota of its pool', () => {
    const pool = new SessionPool<string>({
      maxSessions: 100,
      maxSessionsPerKey: 8,
      poolMemberShare: 1,
    })
    expect(pool.maxSessionsPerPoolMember).toBe(8)
    for (let i = 0; i < 8; i++) expect(pool.reserve('ip:a', 'anonymous').ok).toBe(true)
    expect(pool.reserve('ip:a', 'anonymous')).toEqual({
      ok: false,
      error: { code: 'ERR_SESSION_QUOTA', status: 429, limit: 8 },
    })
  })

  it('is built with SESSION_POOL_DEFAULTS when given no options', () => {
    const pool = new SessionPool()
    expect(SESSION_POOL_DEFAULTS).toEqual({
      maxSessions: pool.maxSessions,
      poolMemberShare: pool.maxSessionsPerPoolMember / pool.maxSessionsPerKey,
      idleMs: pool.idleMs,
      streamIdleMs: pool.streamIdleMs,
      maxLifetimeMs: pool.maxLifetimeMs,
    })
    expect(Object.isFrozen(SESSION_POOL_DEFAULTS)).toBe(true)
  })
})
