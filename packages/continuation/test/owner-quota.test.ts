// The per-owner quota, on the memory store and on a real redis-server alike (TOLLGATE_REDIS_URL
// when set, else a private server this file starts): a write evicts only its own owner's oldest
// entries, an entry already gone costs nobody a live one, concurrent writes of one owner cannot
// exceed its quota, and with the quota off (the control removed) one owner holds as many
// entries as it writes.
import { describe, expect, it } from 'vitest'
import { CONTINUATION_REFUSED, createContinuations, createMemoryStore } from '../src/index.js'
import { ALL, group, heavyPayload, target, team } from './fixtures/routes.js'
import { useRedisStores } from './helpers/redis-stores.js'
import type { StoreUnderTest } from './helpers/store-contract.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const TTL = 60_000
const keys = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}${i + 1}`)

const redis = useRedisStores()
const stores: [string, boolean, () => StoreUnderTest][] = [
  ['memory', true, () => ({ make: (options = {}) => createMemoryStore(options), overhead: 0 })],
  ['redis', redis.available, () => redis.sut],
]

for (const [name, available, sut] of stores) {
  describe.runIf(available)(`${name} store per-owner quota`, () => {
    it('evicts only the writing owner’s oldest entries at its entry quota, never another owner’s', async () => {
      const store = sut().make({ maxEntriesPerOwner: 3 })
      await store.set('a1', 'victim', TTL, 'owner-a')
      for (const k of keys('b', 10)) await store.set(k, k, TTL, 'owner-b')
      expect(await store.get('a1')).toBe('victim')
      const held = await Promise.all(keys('b', 10).map((k) => store.get(k)))
      expect(held).toEqual([...Array(7).fill(undefined), 'b8', 'b9', 'b10'])
    })

    it('holds the entry quota with the byte quota off, evicting only that owner’s oldest entries', async () => {
      const store = sut().make({ maxEntriesPerOwner: 3, maxBytesPerOwner: false })
      await store.set('a1', 'victim', TTL, 'owner-a')
      for (const k of keys('b', 5)) await store.set(k, k, TTL, 'owner-b')
      expect(await store.get('a1')).toBe('victim')
      const held = await Promise.all(keys('b', 5).map((k) => store.get(k)))
      expect(held).toEqual([undefined, undefined, 'b3', 'b4', 'b5'])
    })

    it('keeps an owner within its byte quota by evicting that owner’s oldest entries, never another’s', async () => {
      const s = sut()
      const record = 100 + s.overhead // key (2) + value (98) + the store's prefix
      const store = s.make({ maxEntriesPerOwner: false, maxBytesPerOwner: 3 * record })
      await store.set('a1', 'a'.repeat(98), TTL, 'owner-a')
      for (const k of keys('b', 5)) await store.set(k, 'b'.repeat(98), TTL, 'owner-b')
      expect(await store.get('a1')).toHaveLength(98)
      const held = await Promise.all(
        keys('b', 5).map(async (k) => (await store.get(k)) !== undefined),
      )
      expect(held).toEqual([false, false, true, true, true])
    })

    it('does not let an entry already deleted or expired cost the owner a live one', async () => {
      const store = sut().make({ maxEntriesPerOwner: 2 })
      await store.set('x1', 'v', TTL, 'o')
      await store.set('x2', 'v', TTL, 'o')
      await store.delete('x1')
      await store.set('x3', 'v', TTL, 'o')
      expect([await store.get('x2'), await store.get('x3')]).toEqual(['v', 'v'])
      await store.set('y1', 'v', 30, 'p')
      await store.set('y2', 'v', TTL, 'p')
      await sleep(120)
      await store.set('y3', 'v', TTL, 'p')
      expect([await store.get('y2'), await store.get('y3')]).toEqual(['v', 'v'])
    })

    it('holds an owner at its quota when forty of its writes arrive at once', async () => {
      const store = sut().make({ maxEntriesPerOwner: 5 })
      await store.set('other', 'kept', TTL, 'owner-a')
      const written = keys('c', 40)
      await Promise.all(written.map((k) => store.set(k, k, TTL, 'owner-c')))
      const live = (await Promise.all(written.map((k) => store.get(k)))).filter(
        (v) => v !== undefined,
      )
      expect(live).toHaveLength(5)
      expect(await store.get('other')).toBe('kept')
    })

    it('lets one owner hold every entry it writes when the per-owner quota is off (control removed)', async () => {
      const store = sut().make({ maxEntriesPerOwner: false, maxBytesPerOwner: false })
      for (const k of keys('b', 10)) await store.set(k, k, TTL, 'owner-b')
      const held = await Promise.all(keys('b', 10).map((k) => store.get(k)))
      expect(held).toEqual(keys('b', 10))
    })

    it('backs mint: one owner minting past its quota leaves another owner’s fresh token redeemable', async () => {
      const service = createContinuations({ store: sut().make({ maxEntriesPerOwner: 2 }) })
      const t = target(team, group('documents', 'get'))
      const victim = await service.mint({
        ownerKey: 'victim',
        target: t,
        payload: heavyPayload('v'),
      })
      if (!victim.ok) throw new Error('mint failed')
      const flood: string[] = []
      for (let i = 0; i < 12; i++) {
        const m = await service.mint({ ownerKey: 'flood', target: t, payload: heavyPayload('f') })
        if (!m.ok) throw new Error('mint failed')
        flood.push(m.token)
      }
      const as = (ownerKey: string) => ({ ownerKey, route: team, permissions: ALL })
      expect(await service.redeem(victim.token, as('victim'))).toMatchObject({ ok: true })
      // The flooding owner paid with its own oldest token, and still holds its newest.
      expect(await service.redeem(flood[0], as('flood'))).toBe(CONTINUATION_REFUSED)
      expect(await service.redeem(flood.at(-1), as('flood'))).toMatchObject({ ok: true })
    })

    it('counts owners who share a quotaKey as one: many of them cannot evict another owner, and each redeems only its own', async () => {
      const service = createContinuations({ store: sut().make({ maxEntriesPerOwner: 2 }) })
      const t = target(team, group('documents', 'get'))
      const victim = await service.mint({
        ownerKey: 'victim',
        target: t,
        payload: heavyPayload('v'),
      })
      if (!victim.ok) throw new Error('mint failed')
      const minted: { owner: string; token: string }[] = []
      for (let i = 0; i < 6; i++) {
        const owner = `anonymous:${i}`
        const m = await service.mint({
          ownerKey: owner,
          quotaKey: 'anonymous',
          target: t,
          payload: heavyPayload('a'),
        })
        if (!m.ok) throw new Error('mint failed')
        minted.push({ owner, token: m.token })
      }
      const as = (ownerKey: string) => ({ ownerKey, route: team, permissions: ALL })
      expect(await service.redeem(victim.token, as('victim'))).toMatchObject({ ok: true })
      // Six owners, one quota of two: only the last two entries are held.
      // The quota key is not an owner: another anonymous caller cannot redeem the newest token.
      expect(await service.redeem(minted[5]!.token, as('anonymous:0'))).toBe(CONTINUATION_REFUSED)
      expect(await service.redeem(minted[5]!.token, as('anonymous'))).toBe(CONTINUATION_REFUSED)
      const held = await Promise.all(minted.map((m) => service.redeem(m.token, as(m.owner))))
      expect(held.map((h) => h !== CONTINUATION_REFUSED)).toEqual([
        false,
        false,
        false,
        false,
        true,
        true,
      ])
    })
  })
}
