// The Redis store, for servers running as several instances: `@tollgate/continuation/redis`.
// It imports nothing from `redis` at run time; you pass a client made with the official `redis`
// package (v5 or v6). The value and its TTL are written by one `SET key value PX ttl`, so an
// entry never exists without its expiry. With a per-owner quota (the default) that SET runs
// inside one Lua script (`quota-script.ts`) with the owner's bookkeeping and evictions, so
// several server instances sharing the Redis cannot together exceed an owner's quota, and a
// write evicts only its own owner's oldest entries. An owner in a pool (every anonymous caller,
// one owner per address) is held to a share of the pool and the pool to one owner's quota in
// the same script, so many addresses cannot fill the Redis every credential's entries live in.

import {
  defineOptions,
  functionOption,
  integerOption,
  type OptionsOf,
  option,
  type ResolvedOf,
} from '@tollgate/json-budget'
import { OWNER_QUOTA_SCRIPT, ownerIndexKeys, poolIndexKeys } from './quota-script.js'
import {
  assertPool,
  assertPositiveInteger,
  type ContinuationStore,
  ContinuationStoreError,
  memberQuota,
  ownerQuotaRows,
  POOL_MEMBER_SHARE_ROW,
  RECORD_BYTES,
  resolveOwnerQuota,
} from './store.js'

/** The part of a node-redis client the store uses (`createClient()` from `redis` fits). */
export interface RedisLikeClient {
  set(
    key: string,
    value: string,
    options: { expiration: { type: 'PX'; value: number } },
  ): Promise<unknown>
  get(key: string): Promise<unknown>
  del(key: string): Promise<unknown>
  /** `EVAL`; required while a per-owner quota is on. */
  eval?(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>
  on?(event: 'error', listener: (error: unknown) => void): unknown
  listenerCount?(event: string): number
}

function clientOption(value: unknown, name: string): void {
  for (const method of ['get', 'set', 'del'] as const) {
    if (typeof (value as Record<string, unknown> | null)?.[method] !== 'function') {
      throw new TypeError(`${name}.${method} must be a function`)
    }
  }
}

function prefixOption(value: unknown, name: string): void {
  if (typeof value !== 'string' || value.length > 256) {
    throw new TypeError(`${name} must be a string of at most 256 characters`)
  }
}

/**
 * The options of {@link createRedisStore}, declared once. `client` is required. The default
 * `maxRecordBytes` is lowered to `maxBytesPerOwner` when that is smaller.
 */
export const REDIS_STORE_OPTIONS = defineOptions('createRedisStore', {
  client: option<RedisLikeClient | undefined>({
    default: undefined,
    check: clientOption,
    shown: 'required',
    doc: 'a connected node-redis client; create it with `disableOfflineQueue: true` so commands fail at once while Redis is down',
  }),
  prefix: option({
    default: 'tollgate:continuation:',
    check: prefixOption,
    doc: 'prefix of every key (at most 256 characters)',
  }),
  maxRecordBytes: option({
    default: RECORD_BYTES,
    check: integerOption(),
    shown: '64 MiB + 4 KiB',
    doc: 'largest record in UTF-8 bytes (key and value); larger is refused before sending; at most `maxBytesPerOwner`',
  }),
  ...ownerQuotaRows({
    entries:
      "most live entries one owner holds across every instance; a write beyond it evicts that owner's oldest-written entries, never another owner's; `false` is off",
    bytes:
      'most bytes (prefix + key + value) one owner holds; `false` is off; with both per-owner options `false` the store writes a plain `SET` and keeps no owner index',
  }),
  poolMemberShare: POOL_MEMBER_SHARE_ROW,
  commandTimeoutMs: option({
    default: 1000,
    check: integerOption(),
    doc: 'a command not answered within this many ms counts as the store unavailable',
  }),
  onError: option<(error: unknown) => void>({
    default: () => {},
    check: functionOption,
    shown: 'ignore',
    doc: 'receives client `error` events when the client has no other listener',
  }),
})

/** Options of {@link createRedisStore} (see {@link REDIS_STORE_OPTIONS}); `client` is required. */
export type RedisStoreOptions = OptionsOf<typeof REDIS_STORE_OPTIONS.rows> & {
  readonly client: RedisLikeClient
}

/** What a Redis store holds: every option set, frozen; a quota turned off is `false`. */
export interface ResolvedRedisStoreOptions
  extends Omit<ResolvedOf<typeof REDIS_STORE_OPTIONS.rows>, 'client'> {
  readonly client: RedisLikeClient
}

/**
 * Validates once, fills the defaults, lowers the default `maxRecordBytes` to
 * `maxBytesPerOwner`, and freezes.
 * @throws TypeError naming the option: an unknown option, a missing client or one without
 *   `get`/`set`/`del` (or without `eval` while a per-owner quota is on), a bad limit, or a
 *   `maxRecordBytes` above `maxBytesPerOwner`.
 */
export function resolveRedisStoreOptions(options: RedisStoreOptions): ResolvedRedisStoreOptions {
  const o = REDIS_STORE_OPTIONS.resolve(options)
  const client = o.client as RedisLikeClient
  clientOption(client, 'client')
  const quota = resolveOwnerQuota(
    { maxEntriesPerOwner: options.maxEntriesPerOwner, maxBytesPerOwner: options.maxBytesPerOwner },
    REDIS_STORE_OPTIONS.defaults as { maxEntriesPerOwner: number; maxBytesPerOwner: number },
  )
  const maxRecordBytes =
    options.maxRecordBytes ?? Math.min(RECORD_BYTES, quota.maxBytes || Number.MAX_SAFE_INTEGER)
  if (quota.maxBytes !== 0 && maxRecordBytes > quota.maxBytes) {
    throw new TypeError('maxRecordBytes must not exceed maxBytesPerOwner')
  }
  if ((quota.maxEntries !== 0 || quota.maxBytes !== 0) && typeof client.eval !== 'function') {
    throw new TypeError('client.eval must be a function while a per-owner quota is on')
  }
  return Object.freeze({
    ...o,
    client,
    maxRecordBytes,
    maxEntriesPerOwner: quota.maxEntries === 0 ? false : quota.maxEntries,
    maxBytesPerOwner: quota.maxBytes === 0 ? false : quota.maxBytes,
  })
}

/**
 * A {@link ContinuationStore} on Redis. Throws a `TypeError` at construction on bad options
 * (see {@link resolveRedisStoreOptions}). Every failure of the client (offline, closed, timed
 * out) is thrown as `ERR_CONTINUATION_STORE_UNAVAILABLE`; a record over `maxRecordBytes` as
 * `ERR_CONTINUATION_TOO_LARGE` (over a pool member's byte share too), and a pool full of other
 * owners' entries as `ERR_CONTINUATION_STORE_FULL` with the pool's `limit`. A `set` with a
 * `pool` holds the pool to one owner's quota and the owner to `poolMemberShare` of it; with
 * both per-owner quotas off a pool limits nothing either. A `set` without an owner is charged
 * to one shared owner. The
 * store has no global cap of its own: configure Redis with `maxmemory-policy noeviction` so
 * Redis never evicts another owner's entry. When the client has no `error` listener one is
 * attached, so a lost connection cannot crash the process with an unhandled `error` event.
 */
export function createRedisStore(
  options: RedisStoreOptions | ResolvedRedisStoreOptions,
): ContinuationStore {
  const resolved = resolveRedisStoreOptions(options)
  const { client, prefix, maxRecordBytes, onError } = resolved
  const timeoutMs = resolved.commandTimeoutMs
  // 0 is "off" inside the store, as the quota script reads it.
  const quota = {
    maxEntries: resolved.maxEntriesPerOwner || 0,
    maxBytes: resolved.maxBytesPerOwner || 0,
  }
  const quotaOn = quota.maxEntries !== 0 || quota.maxBytes !== 0
  const member = memberQuota(quota, resolved.poolMemberShare)
  if (typeof client.on === 'function' && (client.listenerCount?.('error') ?? 0) === 0) {
    client.on('error', (error) => {
      try {
        onError(error)
      } catch {
        // never let a logging callback crash the process
      }
    })
  }

  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    let command: Promise<T>
    try {
      // A client may throw synchronously (closed) rather than reject.
      command = Promise.resolve(run())
    } catch {
      throw new ContinuationStoreError('ERR_CONTINUATION_STORE_UNAVAILABLE')
    }
    // A command abandoned at the timeout may still reject later; that must not be unhandled.
    command.catch(() => {})
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ContinuationStoreError('ERR_CONTINUATION_STORE_UNAVAILABLE')),
        timeoutMs,
      )
    })
    try {
      return await Promise.race([command, timeout])
    } catch {
      throw new ContinuationStoreError('ERR_CONTINUATION_STORE_UNAVAILABLE')
    } finally {
      clearTimeout(timer)
    }
  }

  return Object.freeze({
    async set(key: string, value: string, ttlMs: number, owner = '', pool?: string) {
      assertPositiveInteger('ttlMs', ttlMs)
      if (typeof owner !== 'string' || owner.length > 1024) {
        throw new TypeError('owner must be a string of at most 1,024 characters')
      }
      assertPool(pool)
      const pooled = quotaOn && pool !== undefined
      const bytes = Buffer.byteLength(prefix) + Buffer.byteLength(key) + Buffer.byteLength(value)
      // A pool member can never hold more than its byte share, however much it evicts.
      const limit =
        pooled && member.maxBytes !== 0 ? Math.min(maxRecordBytes, member.maxBytes) : maxRecordBytes
      if (bytes > limit) {
        throw new ContinuationStoreError('ERR_CONTINUATION_TOO_LARGE', { limit, observed: bytes })
      }
      if (!quotaOn) {
        await call(() =>
          client.set(prefix + key, value, { expiration: { type: 'PX', value: ttlMs } }),
        )
        return
      }
      const own = pooled ? member : quota
      const result = await call(() =>
        client.eval!(OWNER_QUOTA_SCRIPT, {
          keys: [
            prefix + key,
            ...ownerIndexKeys(prefix, owner, pooled ? pool : undefined),
            ...(pooled ? poolIndexKeys(prefix, pool) : []),
          ],
          arguments: [
            value,
            String(ttlMs),
            String(bytes),
            String(own.maxEntries),
            String(own.maxBytes),
            ...(pooled ? [String(quota.maxEntries), String(quota.maxBytes)] : []),
          ],
        }),
      )
      if (typeof result === 'string' && result.startsWith('FULL:')) {
        throw new ContinuationStoreError('ERR_CONTINUATION_STORE_FULL', {
          limit: Number(result.slice(5)),
        })
      }
      // The script answers 'OK' once the entry is written; anything else is not a write.
      if (result !== 'OK') throw new ContinuationStoreError('ERR_CONTINUATION_STORE_UNAVAILABLE')
    },
    async get(key: string) {
      const value = await call(() => client.get(prefix + key))
      return typeof value === 'string' ? value : undefined
    },
    async delete(key: string) {
      await call(() => client.del(prefix + key))
    },
  })
}
