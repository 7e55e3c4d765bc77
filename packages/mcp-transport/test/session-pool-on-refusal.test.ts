import { refusalPrincipal } from '@tollgate/http-admission'
import type { RefusalEvent } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { SessionPool } from '../src/index.js'

describe('SessionPool onRefusal', () => {
  it('reports each refused reservation once, with its code, status, limit and option', () => {
    const events: RefusalEvent[] = []
    const pool = new SessionPool<string>({
      maxSessions: 3,
      maxSessionsPerKey: 2,
      onRefusal: (event) => {
        events.push(event)
      },
    })
    expect(pool.reserve('alice').ok).toBe(true)
    expect(pool.reserve('alice').ok).toBe(true)
    expect(pool.reserve('alice')).toMatchObject({ ok: false, error: { code: 'ERR_SESSION_QUOTA' } })
    expect(pool.reserve('anon-1', 'anonymous').ok).toBe(true)
    expect(pool.reserve('bob')).toMatchObject({ ok: false, error: { code: 'ERR_SESSION_LIMIT' } })
    expect(events).toEqual([
      {
        code: 'ERR_SESSION_QUOTA',
        status: 429,
        limit: 2,
        option: 'maxSessionsPerKey',
        control: 'mcp-session-pool',
        principal: 'alice',
      },
      {
        code: 'ERR_SESSION_LIMIT',
        status: 503,
        limit: 3,
        option: 'maxSessions',
        control: 'mcp-session-pool',
        principal: 'bob',
      },
    ])
    expect(Object.isFrozen(events[0])).toBe(true)
  })

  it('names poolMemberShare for a pool member at its share, and a throwing hook changes nothing', () => {
    const events: RefusalEvent[] = []
    const pool = new SessionPool<string>({
      maxSessionsPerKey: 4,
      onRefusal: (event) => {
        events.push(event)
        throw new Error('broken sink')
      },
    })
    expect(pool.reserve('10.0.0.1', 'anonymous').ok).toBe(true)
    const refused = pool.reserve('10.0.0.1', 'anonymous')
    expect(refused).toMatchObject({ ok: false, error: { code: 'ERR_SESSION_QUOTA', limit: 1 } })
    expect(events.map((e) => e.option)).toEqual(['poolMemberShare'])
  })

  it('counts nothing without the hook, while the same reservation is refused (the control)', () => {
    const pool = new SessionPool<string>({ maxSessions: 1 })
    expect(pool.reserve('alice').ok).toBe(true)
    expect(pool.reserve('bob')).toMatchObject({ ok: false, error: { code: 'ERR_SESSION_LIMIT' } })
  })

  it('refuses a hook that is not a function at construction', () => {
    expect(() => new SessionPool({ onRefusal: 'log' as never })).toThrow(TypeError)
  })
})

describe('SessionPool onRefusal (principal and route)', () => {
  it('reports a pool member by its pool and a keyed hash, never its address, with the route given', () => {
    const events: RefusalEvent[] = []
    const pool = new SessionPool<string>({
      maxSessionsPerKey: 4,
      poolMemberShare: 0.25,
      onRefusal: (event) => {
        events.push(event)
      },
    })
    expect(pool.reserve('ip:198.51.100.4', 'anonymous', 'mcp').ok).toBe(true)
    expect(pool.reserve('ip:198.51.100.4', 'anonymous', 'mcp').ok).toBe(false)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ code: 'ERR_SESSION_QUOTA', route: 'mcp' })
    expect(events[0]?.principal).toBe(refusalPrincipal('ip:198.51.100.4', 'anonymous'))
    expect(events[0]?.principal).toMatch(/^anonymous#[0-9a-f]{16}$/)
    expect(JSON.stringify(events)).not.toContain('198.51.100')
  })
})
