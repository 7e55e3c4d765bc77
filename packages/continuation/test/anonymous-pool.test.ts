// The anonymous pool, on the memory store and on a real redis-server alike (TOLLGATE_REDIS_URL
// when set, else a private server this file starts): callers without a credential are each
// their own quota owner (one per address), so without a pool every new address brings a full
// quota and together they fill the store credentials' tokens live in. With `pool`, the pool's
// owners together hold one owner's quota and each a quarter of it; a write still evicts only
// its own owner's entries. Each attack runs through `createContinuations().mint()` and
// `redeem()`, and again with the pool left out (the control removed).
import { describe, expect, it } from 'vitest'
import {
  CONTINUATION_REFUSED,
  type ContinuationStore,
  createContinuations,
  createMemoryStore,
  isContinuationStoreError,
  MEMORY_STORE_OPTIONS,
} from '../src/index.js'
import { REDIS_STORE_OPTIONS } from '../src/redis.js'
import { ALL, group, heavyPayload, target, team } from './fixtures/routes.js'
import { useRedisStores } from './helpers/redis-stores.js'
import type { StoreUnderTest } from './helpers/store-contract.js'

const TTL = 60_000
const POOL = 'anonymous'
const ADDRESSES = 10
// The memory store's global cap holds the whole pool and one credential's quota, and a little
// more; Redis has no global cap of its own (its memory is the cap).
const capsOf = (store: string) =>
  store === 'memory'
    ? { maxEntries: 20, maxEntriesPerOwner: 8 }
    : // A command slowed by a loaded machine must not count as Redis being down.
      { maxEntriesPerOwner: 8, commandTimeoutMs: 60_000 }

const redis = useRedisStores()
const stores: [string, boolean, () => StoreUnderTest][] = [
  ['memory', true, () => ({ make: (options = {}) => createMemoryStore(options), overhead: 0 })],
  ['redis', redis.available, () => redis.sut],
]

const t = target(team, group('documents', 'get'))
const as = (ownerKey: string) => ({ ownerKey, route: team, permissions: ALL })

interface Minted {
  readonly owner: string
  readonly token: string | undefined
  readonly code: string | undefined
}

/**
 * `ADDRESSES` anonymous callers each mint `perAddress` tokens: every session its own owner, the
 * caller's address its quota key, in the pool unless `pooled` is false.
 */
async function flood(store: ContinuationStore, pooled: boolean, perAddress: number) {
  const service = createContinuations({ store, ttlMs: TTL })
  const minted: Minted[][] = []
  for (let a = 0; a < ADDRESSES; a++) {
    const row: Minted[] = []
    for (let i = 0; i < perAddress; i++) {
      const owner = `anonymous:${a}:${i}`
      const m = await service.mint({
        ownerKey: owner,
        quotaKey: `anonymous@ip:198.51.100.${a + 1}`,
        ...(pooled ? { pool: POOL } : {}),
        target: t,
        payload: heavyPayload('a'),
      })
      row.push({
        owner,
        token: m.ok ? m.token : undefined,
        code: m.ok ? undefined : m.error.code,
      })
    }
    minted.push(row)
  }
  const held = async (m: Minted) =>
    m.token !== undefined && (await service.redeem(m.token, as(m.owner))) !== CONTINUATION_REFUSED
  return { service, minted, held }
}

/** A credential mints `n` tokens; how many were stored and how many redeem. */
async function credentialMints(
  service: ReturnType<typeof createContinuations>,
  n: number,
): Promise<{ codes: (string | undefined)[]; redeemed: number }> {
  const codes: (string | undefined)[] = []
  let redeemed = 0
  for (let i = 0; i < n; i++) {
    const m = await service.mint({ ownerKey: 'credential:ops', target: t, payload: heavyPayload() })
    codes.push(m.ok ? undefined : m.error.code)
    if (m.ok && (await service.redeem(m.token, as('credential:ops'))) !== CONTINUATION_REFUSED) {
      redeemed++
    }
  }
  return { codes, redeemed }
}

for (const [name, available, sut] of stores) {
  describe.runIf(available)(`${name} store pool (ContinuationStore.set with a pool)`, () => {
    it('holds ten anonymous addresses to one owner’s quota together, two entries each, and a credential still mints its full quota', async () => {
      const run = await flood(sut().make(capsOf(name)), true, 8)
      const kept = await Promise.all(run.minted.map((row) => Promise.all(row.map(run.held))))
      // Each of the first four addresses keeps its own two newest; the pool (8) is then full of
      // live entries of others, so the later addresses are refused, evicting no one.
      for (let a = 0; a < 4; a++) {
        expect(kept[a]).toEqual([false, false, false, false, false, false, true, true])
      }
      for (let a = 4; a < ADDRESSES; a++) {
        expect(kept[a]).toEqual(Array(8).fill(false))
        expect(run.minted[a]?.map((m) => m.code)).toEqual(
          Array(8).fill('ERR_CONTINUATION_STORE_FULL'),
        )
      }
      const ops = await credentialMints(run.service, 8)
      expect(ops.codes).toEqual(Array(8).fill(undefined))
      expect(ops.redeemed).toBe(8)
    })

    it('lets each anonymous address take a full owner’s quota when the pool is left out (control removed)', async () => {
      const run = await flood(sut().make(capsOf(name)), false, 8)
      const kept = (
        await Promise.all(run.minted.map((row) => Promise.all(row.map(run.held))))
      ).flat()
      const ops = await credentialMints(run.service, 8)
      if (name === 'memory') {
        // The addresses fill the global cap (20): the credential is locked out.
        expect(kept.filter(Boolean)).toHaveLength(20)
        expect(ops.codes).toEqual(Array(8).fill('ERR_CONTINUATION_STORE_FULL'))
        expect(ops.redeemed).toBe(0)
      } else {
        // Redis has no cap of its own: every address holds its full quota, 80 entries where the
        // pool holds 8, growing with the number of addresses until Redis memory is spent.
        expect(kept.filter(Boolean)).toHaveLength(ADDRESSES * 8)
      }
    })

    it('refuses a pool member only with ERR_CONTINUATION_STORE_FULL and the pool’s limit, other members’ entries untouched', async () => {
      const store = sut().make({ maxEntriesPerOwner: 4, maxBytesPerOwner: false })
      for (const owner of ['a', 'b', 'c', 'd'])
        await store.set(`${owner}1`, owner, TTL, owner, POOL)
      const error = await store.set('e1', 'e', TTL, 'e', POOL).catch((e: unknown) => e)
      expect(isContinuationStoreError(error)).toBe(true)
      expect(error).toMatchObject({ code: 'ERR_CONTINUATION_STORE_FULL', limit: 4 })
      expect(await store.get('e1')).toBeUndefined()
      expect(await Promise.all(['a1', 'b1', 'c1', 'd1'].map((k) => store.get(k)))).toEqual([
        'a',
        'b',
        'c',
        'd',
      ])
      // An entry given up (deleted, or expired) frees its place in the pool for anyone.
      await store.delete('a1')
      await store.set('e1', 'e', TTL, 'e', POOL)
      expect(await store.get('e1')).toBe('e')
      // A credential (no pool) is not held by the pool's cap.
      await store.set('z1', 'z', TTL, 'z')
      expect(await store.get('z1')).toBe('z')
    })

    it('refuses a record over a pool member’s byte share with ERR_CONTINUATION_TOO_LARGE and that limit', async () => {
      const store = sut().make({ maxEntriesPerOwner: false, maxBytesPerOwner: 4096 })
      const error = await store.set('k1', 'x'.repeat(2048), TTL, 'a', POOL).catch((e: unknown) => e)
      expect(error).toMatchObject({ code: 'ERR_CONTINUATION_TOO_LARGE', limit: 1024 })
      // The same record is one owner's to hold outside the pool.
      await store.set('k1', 'x'.repeat(2048), TTL, 'a')
      expect(await store.get('k1')).toHaveLength(2048)
    })

    it('refuses a pool name outside 1-64 of A-Z a-z 0-9 . _ - with a TypeError', async () => {
      const store = sut().make()
      for (const pool of ['', 'a:b', 'x'.repeat(65), 7]) {
        await expect(store.set('k', 'v', TTL, 'o', pool as string)).rejects.toThrow(TypeError)
      }
    })
  })
}

describe('poolMemberShare', () => {
  it('defaults to 0.25 in both stores and refuses a share outside (0, 1] at construction', () => {
    expect(MEMORY_STORE_OPTIONS.defaults.poolMemberShare).toBe(0.25)
    expect(REDIS_STORE_OPTIONS.defaults.poolMemberShare).toBe(0.25)
    for (const share of [0, 1.5, -1, Number.NaN, '0.5']) {
      expect(() => createMemoryStore({ poolMemberShare: share as number })).toThrow(TypeError)
    }
  })
})
