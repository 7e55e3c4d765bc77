// The one refusal outcome (a route refusal looks like an expired token, so a token holder learns
// nothing of other routes) and the audit trail that carries the reason instead.
import { createHash } from 'node:crypto'
import { Writable } from 'node:stream'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import {
  CONTINUATION_REFUSAL_REASONS,
  CONTINUATION_REFUSED,
  type ContinuationAuditEvent,
  type ContinuationStore,
  createContinuations,
  createMemoryStore,
  createToken,
  hashToken,
  pinoAuditSink,
} from '../src/index.js'
import { ALL, group, heavyPayload, klass, MARKER, pub, target, team } from './fixtures/routes.js'

const OWNER = 'owner-secret-key-a'
const sha = (s: string) => createHash('sha256').update(s).digest('hex')

/** A store that is down: the public interface, every call rejecting. */
const downStore: ContinuationStore = {
  set: () => Promise.reject(new Error('ECONNREFUSED')),
  get: () => Promise.reject(new Error('ECONNREFUSED')),
  delete: () => Promise.reject(new Error('ECONNREFUSED')),
}

describe('CONTINUATION_REFUSED', () => {
  it('is the byte-identical outcome of every refusal reason, and the audit reason differs for each', async () => {
    const events: ContinuationAuditEvent[] = []
    const audit = { record: (e: ContinuationAuditEvent) => events.push(e) }
    let now = 1_800_000_000_000
    const store = createMemoryStore()
    const service = createContinuations({ store, audit, now: () => now, ttlMs: 60_000 })
    const down = createContinuations({ store: downStore, audit })
    const mint = async (t = target(team, group('documents', 'get'))) => {
      const m = await service.mint({ ownerKey: OWNER, target: t, payload: heavyPayload() })
      if (!m.ok) throw new Error('mint failed')
      return m.token
    }
    const ctx = { ownerKey: OWNER, route: team, permissions: ALL }
    const outcomes: string[] = []
    const attempt = async (run: () => Promise<unknown>) => {
      outcomes.push(JSON.stringify(await run()))
    }

    await attempt(() => service.redeem(createToken(), ctx)) // unknown
    await attempt(() => down.redeem(createToken(), ctx)) // store unavailable
    const garbage = createToken()
    await store.set(hashToken(garbage), 'not a record', 60_000)
    await attempt(() => service.redeem(garbage, ctx)) // record invalid
    const old = await mint()
    now += 60_000
    await attempt(() => service.redeem(old, ctx)) // expired
    now -= 60_000
    const owned = await mint()
    await attempt(() => service.redeem(owned, { ...ctx, ownerKey: 'owner-b' })) // owner mismatch
    const legacy = createToken()
    const legacyHeader = JSON.stringify({ v: 1, o: sha(OWNER), e: now + 60_000 })
    await store.set(hashToken(legacy), `${legacyHeader}\n${heavyPayload()}`, 60_000)
    await attempt(() => service.redeem(legacy, ctx)) // target unrecorded
    const notes = await mint(target(team, group('notes', 'list')))
    await attempt(() => service.redeem(notes, { ...ctx, route: pub })) // route not authorized
    const exported = await mint(target(team, klass('export')))
    await attempt(() => service.redeem(exported, { ...ctx, permissions: [] })) // capability revoked

    expect(new Set(outcomes)).toEqual(new Set([JSON.stringify(CONTINUATION_REFUSED)]))
    expect(outcomes).toHaveLength(8)
    const reasons = events.flatMap((e) => (e.event === 'continuation_refused' ? [e.reason] : []))
    expect(reasons).toEqual([
      'continuation_unknown',
      'continuation_store_unavailable',
      'continuation_record_invalid',
      'continuation_expired',
      'continuation_owner_mismatch',
      'continuation_target_unrecorded',
      'continuation_route_not_authorized',
      'continuation_capability_revoked',
    ])
    expect(new Set(reasons)).toEqual(new Set(CONTINUATION_REFUSAL_REASONS))
  })

  it('returns the same frozen object for a token that is not token-shaped, whatever its type', async () => {
    const service = createContinuations()
    for (const token of [
      '',
      'x'.repeat(23),
      `${'A'.repeat(21)}=`,
      42,
      null,
      { token: 'x' },
      'A'.repeat(10_000),
    ]) {
      expect(await service.redeem(token, { ownerKey: OWNER, route: team, permissions: [] })).toBe(
        CONTINUATION_REFUSED,
      )
    }
    expect(Object.isFrozen(CONTINUATION_REFUSED)).toBe(true)
    expect(Object.isFrozen(CONTINUATION_REFUSED.error)).toBe(true)
    expect(CONTINUATION_REFUSED).toStrictEqual({
      ok: false,
      error: { code: 'ERR_CONTINUATION_EXPIRED_OR_UNKNOWN', message: expect.any(String) },
    })
  })

  it('refuses a non-string owner key at redemption as an owner mismatch, without throwing', async () => {
    const events: ContinuationAuditEvent[] = []
    const service = createContinuations({ audit: { record: (e) => events.push(e) } })
    const m = await service.mint({
      ownerKey: OWNER,
      target: target(team, group('documents', 'get')),
      payload: 'p',
    })
    if (!m.ok) throw new Error('mint failed')
    const ctx = { ownerKey: 42 as unknown as string, route: team, permissions: ALL }
    expect(await service.redeem(m.token, ctx)).toBe(CONTINUATION_REFUSED)
    expect(events.at(-1)).toMatchObject({ reason: 'continuation_owner_mismatch' })
  })

  it('audits a token that is not token-shaped as continuation_unknown without a token hash', async () => {
    const events: ContinuationAuditEvent[] = []
    const service = createContinuations({ audit: { record: (e) => events.push(e) } })
    expect(await service.redeem('nope', { ownerKey: OWNER, route: team, permissions: [] })).toBe(
      CONTINUATION_REFUSED,
    )
    expect(events).toEqual([
      {
        event: 'continuation_refused',
        reason: 'continuation_unknown',
        tokenHash: undefined,
        route: '/mcp/team',
        target: undefined,
        dimension: undefined,
      },
    ])
  })

  it('refuses a legacy entry with no recorded target even though owner and route match', async () => {
    const events: ContinuationAuditEvent[] = []
    const store = createMemoryStore()
    const service = createContinuations({ store, audit: { record: (e) => events.push(e) } })
    const token = createToken()
    const header = JSON.stringify({ v: 1, o: sha(OWNER), t: null, a: null, e: Date.now() + 60_000 })
    await store.set(hashToken(token), `${header}\npayload`, 60_000)
    expect(await service.redeem(token, { ownerKey: OWNER, route: team, permissions: ALL })).toBe(
      CONTINUATION_REFUSED,
    )
    expect(events).toMatchObject([{ reason: 'continuation_target_unrecorded' }])
  })

  it('never puts the token, the owner key or the payload in an audit event', async () => {
    const events: ContinuationAuditEvent[] = []
    const service = createContinuations({ audit: { record: (e) => events.push(e) } })
    const m = await service.mint({
      ownerKey: OWNER,
      target: target(team, group('notes', 'list')),
      payload: heavyPayload(),
    })
    if (!m.ok) throw new Error('mint failed')
    await service.redeem(m.token, { ownerKey: OWNER, route: team, permissions: ALL })
    await service.redeem(m.token, { ownerKey: OWNER, route: pub, permissions: ALL })
    await service.redeem(m.token, { ownerKey: `${MARKER}-owner`, route: team, permissions: ALL })
    const text = JSON.stringify(events)
    expect(events.map((e) => e.event)).toEqual([
      'continuation_minted',
      'continuation_served',
      'continuation_refused',
      'continuation_refused',
    ])
    expect(text).not.toContain(m.token)
    expect(text).not.toContain(OWNER)
    expect(text).not.toContain(MARKER)
    expect(text).toContain(hashToken(m.token))
  })

  it('keeps the outcome when the audit sink throws', async () => {
    const service = createContinuations({
      audit: {
        record: () => {
          throw new Error('sink down')
        },
      },
    })
    expect(
      await service.redeem(createToken(), { ownerKey: OWNER, route: team, permissions: [] }),
    ).toBe(CONTINUATION_REFUSED)
  })
})

describe('pinoAuditSink', () => {
  it('writes refusals at warn and serves at info through a real pino logger', async () => {
    const lines: Record<string, unknown>[] = []
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line))
        done()
      },
    })
    const service = createContinuations({ audit: pinoAuditSink(pino({ level: 'info' }, stream)) })
    const m = await service.mint({
      ownerKey: OWNER,
      target: target(team, group('notes', 'list')),
      payload: 'p',
    })
    if (!m.ok) throw new Error('mint failed')
    await service.redeem(m.token, { ownerKey: OWNER, route: team, permissions: ALL })
    await service.redeem(m.token, { ownerKey: OWNER, route: pub, permissions: ALL })
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [30, 'continuation_minted'],
      [30, 'continuation_served'],
      [40, 'continuation_refused'],
    ])
    expect(lines[2]).toMatchObject({
      reason: 'continuation_route_not_authorized',
      tokenHash: hashToken(m.token),
      route: '/mcp/public',
    })
    expect(JSON.stringify(lines)).not.toContain(m.token)
  })

  it('throws a TypeError for an object that is not a logger', () => {
    expect(() => pinoAuditSink({} as never)).toThrow(TypeError)
  })
})
