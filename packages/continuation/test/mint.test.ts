import { describe, expect, it } from 'vitest'
import {
  CONTINUATIONS_OPTIONS,
  type ContinuationAuditEvent,
  type ContinuationStore,
  createContinuations,
  createMemoryStore,
  isTokenShape,
  TOKEN_LENGTH,
} from '../src/index.js'
import { group, MARKER, target, team } from './fixtures/routes.js'

const OWNER = 'owner-a'

describe('createContinuations', () => {
  it('treats exactly thresholdBytes as light and one byte more as heavy (default 64 KiB)', () => {
    const service = createContinuations()
    expect(service.options.thresholdBytes).toBe(65_536)
    expect(service.isHeavy('a'.repeat(65_536))).toBe(false)
    expect(service.isHeavy('a'.repeat(65_537))).toBe(true)
    expect(service.isHeavy(`${'a'.repeat(65_535)}é`)).toBe(true) // 65,537 UTF-8 bytes
    expect(service.isHeavy(`${'a'.repeat(65_534)}é`)).toBe(false) // 65,536 UTF-8 bytes
    expect(service.isHeavy(65_536)).toBe(false)
  })

  it('throws a TypeError at construction for a limit that is not a positive safe integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, '10', 2 ** 53]) {
      expect(() => createContinuations({ thresholdBytes: bad as number })).toThrow(TypeError)
      expect(() => createContinuations({ ttlMs: bad as number })).toThrow(TypeError)
      expect(() => createContinuations({ maxPayloadBytes: bad as number })).toThrow(TypeError)
    }
    expect(() => createContinuations({ store: {} as ContinuationStore })).toThrow(TypeError)
    expect(() => createContinuations({ audit: {} as never })).toThrow(TypeError)
    expect(Object.isFrozen(createContinuations().options)).toBe(true)
  })

  it('exports the defaults it applies', () => {
    const o = createContinuations().options
    expect({
      thresholdBytes: o.thresholdBytes,
      ttlMs: o.ttlMs,
      maxPayloadBytes: o.maxPayloadBytes,
    }).toEqual({
      thresholdBytes: CONTINUATIONS_OPTIONS.defaults.thresholdBytes,
      ttlMs: CONTINUATIONS_OPTIONS.defaults.ttlMs,
      maxPayloadBytes: CONTINUATIONS_OPTIONS.defaults.maxPayloadBytes,
    })
  })
})

describe('mint', () => {
  it('returns a 128-bit base64url token and stores no redeemable token', async () => {
    const keys: string[] = []
    const values: string[] = []
    const memory = createMemoryStore()
    const store: ContinuationStore = {
      set: (k, v, ttl) => {
        keys.push(k)
        values.push(v)
        return memory.set(k, v, ttl)
      },
      get: (k) => memory.get(k),
      delete: (k) => memory.delete(k),
    }
    const service = createContinuations({ store })
    const m = await service.mint({
      ownerKey: OWNER,
      target: target(team, group('documents', 'get')),
      payload: 'p',
    })
    if (!m.ok) throw new Error('mint failed')
    expect(m.token).toHaveLength(TOKEN_LENGTH)
    expect(Buffer.from(m.token, 'base64url')).toHaveLength(16)
    expect(isTokenShape(m.token)).toBe(true)
    expect(keys[0]).toMatch(/^[0-9a-f]{64}$/)
    expect(keys.join() + values.join()).not.toContain(m.token)
    expect(values.join()).not.toContain(OWNER)
  })

  it('admits a payload of maxPayloadBytes and refuses one byte more with ERR_CONTINUATION_TOO_LARGE', async () => {
    const events: ContinuationAuditEvent[] = []
    const service = createContinuations({
      maxPayloadBytes: 100,
      audit: { record: (e) => events.push(e) },
    })
    const t = target(team, group('documents', 'get'))
    expect((await service.mint({ ownerKey: OWNER, target: t, payload: 'a'.repeat(100) })).ok).toBe(
      true,
    )
    const r = await service.mint({
      ownerKey: OWNER,
      target: t,
      payload: `${MARKER}${'a'.repeat(101 - MARKER.length)}`,
    })
    expect(r).toEqual({ ok: false, error: { code: 'ERR_CONTINUATION_TOO_LARGE', limit: 100 } })
    expect(events.at(-1)).toMatchObject({ event: 'continuation_mint_failed', bytes: 101 })
    expect(JSON.stringify(events)).not.toContain(MARKER)
  })

  it('maps a store refusing the record size to ERR_CONTINUATION_TOO_LARGE', async () => {
    const service = createContinuations({ store: createMemoryStore({ maxRecordBytes: 300 }) })
    const r = await service.mint({
      ownerKey: OWNER,
      target: target(team, group('documents', 'get')),
      payload: 'a'.repeat(400),
    })
    expect(r).toEqual({ ok: false, error: { code: 'ERR_CONTINUATION_TOO_LARGE', limit: 300 } })
  })

  it('reports ERR_CONTINUATION_STORE_UNAVAILABLE when the store fails, without throwing', async () => {
    const down: ContinuationStore = {
      set: () => Promise.reject(new Error('down')),
      get: () => Promise.reject(new Error('down')),
      delete: () => Promise.reject(new Error('down')),
    }
    const service = createContinuations({ store: down })
    const r = await service.mint({
      ownerKey: OWNER,
      target: target(team, group('documents', 'get')),
      payload: 'p',
    })
    expect(r).toEqual({ ok: false, error: { code: 'ERR_CONTINUATION_STORE_UNAVAILABLE' } })
  })

  it('returns a failure with no limit key when none is known, and never a store’s non-numeric limit', async () => {
    // A store from another copy of the package (or a foreign one) is recognized by its code; a
    // limit that is not a number is not passed on to the server that maps the failure.
    const foreign = (limit: unknown): ContinuationStore => ({
      set: () => Promise.reject({ code: 'ERR_CONTINUATION_STORE_FULL', limit }),
      get: async () => undefined,
      delete: async () => {},
    })
    const t = target(team, group('documents', 'get'))
    for (const limit of ['5', undefined]) {
      const r = await createContinuations({ store: foreign(limit) }).mint({
        ownerKey: OWNER,
        target: t,
        payload: 'p',
      })
      expect(r).toStrictEqual({ ok: false, error: { code: 'ERR_CONTINUATION_STORE_FULL' } })
    }
    const r = await createContinuations({ store: foreign(7) }).mint({
      ownerKey: OWNER,
      target: t,
      payload: 'p',
    })
    expect(r).toStrictEqual({ ok: false, error: { code: 'ERR_CONTINUATION_STORE_FULL', limit: 7 } })
    if (r.ok) throw new Error('expected a failure')
    expect(Object.isFrozen(r.error)).toBe(true)
  })

  it('throws a TypeError for a target not returned by resolveScoped()', async () => {
    const service = createContinuations()
    const real = target(team, group('documents', 'get'))
    const forged = { ...real }
    await expect(service.mint({ ownerKey: OWNER, target: forged, payload: 'p' })).rejects.toThrow(
      TypeError,
    )
    await expect(service.mint({ ownerKey: '', target: real, payload: 'p' })).rejects.toThrow(
      TypeError,
    )
    await expect(
      service.mint({ ownerKey: 'o'.repeat(1025), target: real, payload: 'p' }),
    ).rejects.toThrow(TypeError)
    await expect(
      service.mint({ ownerKey: 'o'.repeat(1024), target: real, payload: 'p' }),
    ).resolves.toMatchObject({ ok: true })
    await expect(
      service.mint({ ownerKey: OWNER, target: real, payload: {} as never }),
    ).rejects.toThrow(TypeError)
  })
})
