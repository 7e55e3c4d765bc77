// SessionPool's instance tags through its public surface (mintId, locate, the instanceTag
// option). What a load balancer without affinity produces on live servers is held by
// apps/mcp-server/test/session-elsewhere.test.ts.
import { describe, expect, it } from 'vitest'
import { SessionPool, sessionIdTag } from '../src/index.js'

const TAGGED = /^[0-9a-f]{12}\.[A-Za-z0-9_-]{22}$/

describe('SessionPool.locate', () => {
  it('finds an open session here, a closed one of its own gone, and another pool’s id elsewhere', () => {
    const here = new SessionPool<string>()
    const there = new SessionPool<string>()
    const id = here.mintId()
    const reserved = here.reserve('k')
    if (!reserved.ok) throw new Error('reserve refused')
    reserved.slot.commit(id, 'v', () => {})
    reserved.slot.release()
    expect(here.locate(id)).toBe('open')
    expect(there.locate(id)).toBe('elsewhere')
    here.delete(id)
    expect(here.locate(id)).toBe('gone')
    expect(here.locate(here.mintId())).toBe('gone')
  })

  it('takes an id of any other shape as gone, never as elsewhere', () => {
    const pool = new SessionPool()
    for (const id of [
      '',
      'x',
      crypto.randomUUID(),
      `${'a'.repeat(12)}.short`,
      `${'A'.repeat(12)}.${'b'.repeat(22)}`,
    ]) {
      expect(pool.locate(id)).toBe('gone')
    }
  })
})

describe('SessionPool.mintId', () => {
  it('mints distinct ids that carry the pool’s tag, a configured tag as given', () => {
    const pool = new SessionPool({ instanceTag: '0123456789ab' })
    const ids = new Set(Array.from({ length: 1000 }, () => pool.mintId()))
    expect(ids.size).toBe(1000)
    for (const id of ids) {
      expect(id).toMatch(TAGGED)
      expect(sessionIdTag(id)).toBe('0123456789ab')
    }
    expect(new SessionPool().instanceTag).not.toBe(new SessionPool().instanceTag)
  })

  it('refuses at construction an instance tag that is not 12 lowercase hex digits', () => {
    for (const instanceTag of ['', '0123456789AB', '0123456789a', 'host-name.lan', 42]) {
      expect(() => new SessionPool({ instanceTag: instanceTag as string })).toThrow(/instanceTag/)
    }
  })
})
