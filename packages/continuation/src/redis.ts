// The Redis store, for servers running as several instances: `@tollgate/continuation/redis`.
// It imports nothing from `redis` at run time; you pass a client made with the official `redis`
// package (v5 or v6). The value and its TTL are written by one `SET key value PX ttl`, so an
// entry never exists without its expiry. With a per-owner quota (the default) that SET runs
// inside one Lua script (`quota-script.ts`) with the owner's bookkeeping and evictions, so
// several server instances sharing the Redis cannot together exceed an owner's quota, and a
// write evicts only its own owner's oldest entries.

import { OWNER_QUOTA_SCRIPT, ownerIndexKeys } from './quota-script.js'
import {
  assertPositiveInteger,
  type ContinuationStore,
  ContinuationStoreError,
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

/** Options of {@link createRedisStore}. */
export interface RedisStoreOptions {
  /** A connected node-redis client. Create it with `disableOfflineQueue: true` so commands fail at once while Redis is down. Required. */
  readonly client: RedisLikeClient
  /** Prefix of every key. Default: `'tollgate:continuation:'`. */
  readonly prefix?: string
  /** Largest record in UTF-8 bytes (key and value); larger is refused before sending. Default: 64 MiB + 4 KiB. */
  readonly maxRecordBytes?: number
  /**
   * Most live entries one owner holds across every instance sharing this Redis; a write beyond
   * it evicts that owner's oldest-written entries, never another owner's. `false` turns it off.
   * Default: 100.
   */
  readonly maxEntriesPerOwner?: number | false
  /**
   * Most bytes (prefix + key + value, UTF-8) one owner holds; a write beyond it evicts that
   * owner's oldest-written entries. `false` turns it off; with both per-owner options `false`
   * the store writes a plain `SET` and keeps no owner index. Default: 64 MiB + 4 KiB.
   */
  readonly maxBytesPerOwner?: number | false
  /** A command not answered within this many milliseconds counts as the store unavailable. Default: 1,000. */
  readonly commandTimeoutMs?: number
  /** Receives client `error` events when the client has no other listener. Default: ignore. */
  readonly onError?: (error: unknown) => void
}

/** The defaults of {@link createRedisStore} (frozen). */
export const REDIS_STORE_DEFAULTS = Object.freeze({
  prefix: 'tollgate:continuation:',
  maxRecordBytes: 64 * 1024 * 1024 + 4096,
  commandTimeoutMs: 1000,
  maxEntriesPerOwner: 100,
  maxBytesPerOwner: 64 * 1024 * 1024 + 4096,
})

/**
 * A {@link ContinuationStore} on Redis. Throws a `TypeError` at construction on a missing
 * client or a bad limit. Every failure of the client (offline, closed, timed out) is thrown as
 * `ERR_CONTINUATION_STORE_UNAVAILABLE`; a record over `maxRecordBytes` as
 * `ERR_CONTINUATION_TOO_LARGE`. With a per-owner quota the client needs `eval`, and
 * `maxRecordBytes` must not exceed `maxBytesPerOwner` (`TypeError` otherwise); a `set` without
 * an owner is charged to one shared owner. The store has no global cap of its own: configure
 * Redis with `maxmemory-policy noeviction` so Redis never evicts another owner's entry. When the client has no `error` listener one is attached, so a
 * lost connection cannot crash the process with an unhandled `error` event.
 */
export function createRedisStore(options: RedisStoreOptions): ContinuationStore {
  const client = options?.client
  for (const method of ['get', 'set', 'del'] as const) {
    if (typeof client?.[method] !== 'function')
      throw new TypeError(`client.${method} must be a function`)
  }
  const prefix = options.prefix ?? REDIS_STORE_DEFAULTS.prefix
  if (typeof prefix !== 'string' || prefix.length > 256) {
    throw new TypeError('prefix must be a string of at most 256 characters')
  }
  const quota = resolveOwnerQuota(options, REDIS_STORE_DEFAULTS)
  const maxRecordBytes = assertPositiveInteger(
    'maxRecordBytes',
    options.maxRecordBytes ??
      Math.min(REDIS_STORE_DEFAULTS.maxRecordBytes, quota.maxBytes || Number.MAX_SAFE_INTEGER),
  )
  if (quota.maxBytes !== 0 && maxRecordBytes > quota.maxBytes) {
    throw new TypeError('maxRecordBytes must not exceed maxBytesPerOwner')
  }
  const quotaOn = quota.maxEntries !== 0 || quota.maxBytes !== 0
  if (quotaOn && typeof client.eval !== 'function') {
    throw new TypeError('client.eval must be a function while a per-owner quota is on')
  }
  const timeoutMs = assertPositiveInteger(
    'commandTimeoutMs',
    options.commandTimeoutMs ?? REDIS_STORE_DEFAULTS.commandTimeoutMs,
  )
  const onError = options.onError ?? (() => {})
  if (typeof onError !== 'function') throw new TypeError('onError must be a function')
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
    async set(key: string, value: string, ttlMs: number, owner = '') {
      assertPositiveInteger('ttlMs', ttlMs)
      if (typeof owner !== 'string' || owner.length > 1024) {
        throw new TypeError('owner must be a string of at most 1,024 characters')
      }
      const bytes = Buffer.byteLength(prefix) + Buffer.byteLength(key) + Buffer.byteLength(value)
      if (bytes > maxRecordBytes) {
        throw new ContinuationStoreError('ERR_CONTINUATION_TOO_LARGE', {
          limit: maxRecordBytes,
          observed: bytes,
        })
      }
      if (!quotaOn) {
        await call(() =>
          client.set(prefix + key, value, { expiration: { type: 'PX', value: ttlMs } }),
        )
        return
      }
      const result = await call(() =>
        client.eval!(OWNER_QUOTA_SCRIPT, {
          keys: [prefix + key, ...ownerIndexKeys(prefix, owner)],
          arguments: [
            value,
            String(ttlMs),
            String(bytes),
            String(quota.maxEntries),
            String(quota.maxBytes),
          ],
        }),
      )
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
