// The sessions control alone, in this process (the fleet, on Redis, is held by
// fleet-sessions.test.ts through three real gateways).
import { createConcurrencyLimit, memoryLimitStore } from '@tollgate/fleet-limits'
import { mintSessionId } from '@tollgate/mcp-transport'
import { describe, expect, it } from 'vitest'
import { httpSessions } from '../src/http-sessions.js'

const TAG = 'aaaaaaaaaaaa'

describe('httpSessions', () => {
  it('refuses the principal past maxSessionsPerPrincipal with 429 ERR_SESSION_QUOTA, leaving other principals their own', async () => {
    const sessions = httpSessions({ maxSessionsPerPrincipal: 2 })
    expect((await sessions.open('p')).ok).toBe(true)
    expect((await sessions.open('p')).ok).toBe(true)
    expect(await sessions.open('p')).toMatchObject({
      ok: false,
      code: 'ERR_SESSION_QUOTA',
      status: 429,
      limit: 2,
    })
    expect((await sessions.open('q')).ok).toBe(true)
    await sessions.closeAll()
  })

  it('refuses past maxSessions with 503 ERR_SESSION_LIMIT', async () => {
    const sessions = httpSessions({ maxSessions: 1 })
    expect((await sessions.open('p')).ok).toBe(true)
    expect(await sessions.open('q')).toMatchObject({ code: 'ERR_SESSION_LIMIT', status: 503 })
    await sessions.closeAll()
  })

  it("locates its own sessions as open only for their principal, another instance's id as elsewhere, and anything else as unknown", async () => {
    const sessions = httpSessions({ instanceTag: TAG })
    const opened = await sessions.open('p')
    if (!opened.ok) throw new Error('not opened')
    expect(opened.id.startsWith(`${TAG}.`)).toBe(true)
    expect(sessions.locate(opened.id, 'p')).toBe('open')
    expect(sessions.locate(opened.id, 'q')).toBe('unknown')
    expect(sessions.locate(mintSessionId('bbbbbbbbbbbb'), 'p')).toBe('elsewhere')
    expect(sessions.locate(mintSessionId(TAG), 'p')).toBe('unknown')
    expect(sessions.locate('not-a-tagged-id', 'p')).toBe('unknown')
    expect(sessions.delete(opened.id)).toBe(true)
    expect(sessions.locate(opened.id, 'p')).toBe('unknown')
    await sessions.closeAll()
  })

  it('counts on the leases when given them, and a closed session gives its lease back', async () => {
    const leases = createConcurrencyLimit({ store: memoryLimitStore(), name: 's', limit: 1 })
    const one = httpSessions({ leases })
    const two = httpSessions({ leases })
    const first = await one.open('p')
    expect(first.ok).toBe(true)
    expect(await two.open('p')).toMatchObject({ code: 'ERR_SESSION_QUOTA', status: 429 })
    if (first.ok) one.delete(first.id)
    await new Promise((resolve) => setImmediate(resolve))
    expect((await two.open('p')).ok).toBe(true)
    await Promise.all([one.closeAll(), two.closeAll()])
  })

  it('holds anonymous principals to maxAnonymousSessions together and a quarter of it each, and frees a closed slot', async () => {
    const sessions = httpSessions({ maxAnonymousSessions: 4, maxSessions: 10 })
    expect((await sessions.open('a', true)).ok).toBe(true)
    expect(await sessions.open('a', true)).toMatchObject({ code: 'ERR_SESSION_QUOTA', limit: 1 })
    const held = await sessions.open('b', true)
    expect((await sessions.open('c', true)).ok).toBe(true)
    expect((await sessions.open('d', true)).ok).toBe(true)
    expect(await sessions.open('e', true)).toMatchObject({
      code: 'ERR_SESSION_QUOTA',
      status: 429,
      limit: 4,
    })
    // A named principal is outside the pool.
    expect((await sessions.open('named')).ok).toBe(true)
    if (held.ok) sessions.delete(held.id)
    expect((await sessions.open('e', true)).ok).toBe(true)
    await sessions.closeAll()
  })

  it('refuses a bad option at construction', () => {
    expect(() => httpSessions({ instanceTag: 'XYZ' })).toThrow(TypeError)
    expect(() => httpSessions({ instanceTag: 'XYZ' })).toThrow(/instanceTag/)
    expect(() => httpSessions({ maxSessionsPerPrincipal: 0 })).toThrow(TypeError)
    expect(() => httpSessions({ maxSessionsPerPrincipal: 0 })).toThrow(/maxSessionsPerPrincipal/)
    expect(() => httpSessions({ maxAnonymousSessions: 0 })).toThrow(TypeError)
    expect(() => httpSessions({ maxAnonymousSessions: 0 })).toThrow(/maxAnonymousSessions/)
  })
})
