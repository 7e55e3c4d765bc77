// The store contract, run against every store (memory here, Redis in redis-store.test.ts).
// Helper for tests; the describe blocks live in the *.test.ts files that call it.
import { describe, expect, it } from 'vitest'
import {
  CONTINUATION_REFUSED,
  type ContinuationStore,
  createContinuations,
  isContinuationStoreError,
} from '../../src/index.js'
import { ALL, group, heavyPayload, pub, target, team } from '../fixtures/routes.js'

/** Store options every store takes (records capped at key + value UTF-8 bytes, prefix included). */
export interface ContractOptions {
  readonly maxRecordBytes?: number
  readonly maxEntriesPerOwner?: number | false
  readonly maxBytesPerOwner?: number | false
}

export interface StoreUnderTest {
  /** A fresh store (its own key space) with these options. */
  make(options?: ContractOptions): ContinuationStore
  /** Bytes the store adds to key + value when charging a record. */
  readonly overhead: number
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export function storeContract(name: string, sut: () => StoreUnderTest) {
  describe(`${name} store contract`, () => {
    it('returns what was set and undefined for an absent key', async () => {
      const store = sut().make()
      await store.set('k1', 'v1', 60_000)
      expect(await store.get('k1')).toBe('v1')
      expect(await store.get('absent')).toBeUndefined()
    })

    it('replaces a value and deletes a key', async () => {
      const store = sut().make()
      await store.set('k2', 'a', 60_000)
      await store.set('k2', 'b', 60_000)
      expect(await store.get('k2')).toBe('b')
      await store.delete('k2')
      expect(await store.get('k2')).toBeUndefined()
      await store.delete('k2')
    })

    it('keeps UTF-8 and newlines byte for byte', async () => {
      const store = sut().make()
      const value = '{"v":1}\nline two é 𝄞 \u2028'
      await store.set('k3', value, 60_000)
      expect(await store.get('k3')).toBe(value)
    })

    it('forgets a value after its TTL', async () => {
      const store = sut().make()
      await store.set('k4', 'v', 30)
      await sleep(120)
      expect(await store.get('k4')).toBeUndefined()
    })

    it('admits a record of maxRecordBytes and refuses one byte more with ERR_CONTINUATION_TOO_LARGE', async () => {
      const s = sut()
      const store = s.make({ maxRecordBytes: 200 + s.overhead })
      await store.set('k05', 'a'.repeat(197), 60_000) // 3 + 197 = 200
      expect(await store.get('k05')).toHaveLength(197)
      const error = await store.set('k06', 'a'.repeat(198), 60_000).catch((e: unknown) => e)
      expect(isContinuationStoreError(error)).toBe(true)
      expect(error).toMatchObject({
        code: 'ERR_CONTINUATION_TOO_LARGE',
        limit: 200 + s.overhead,
        observed: 201 + s.overhead,
      })
      expect(await store.get('k06')).toBeUndefined()
    })

    it('backs mint and redeem: served on the minting route, the one outcome on a route that carves the target out', async () => {
      const service = createContinuations({ store: sut().make() })
      const payload = heavyPayload()
      const m = await service.mint({
        ownerKey: 'o',
        target: target(team, group('notes', 'list')),
        payload,
      })
      if (!m.ok) throw new Error('mint failed')
      expect(
        await service.redeem(m.token, { ownerKey: 'o', route: team, permissions: ALL }),
      ).toMatchObject({
        ok: true,
        payload,
      })
      expect(await service.redeem(m.token, { ownerKey: 'o', route: pub, permissions: ALL })).toBe(
        CONTINUATION_REFUSED,
      )
    })
  })
}
