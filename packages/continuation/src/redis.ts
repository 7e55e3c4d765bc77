// The Redis store, for servers running as several instances: `@tollgate/continuation/redis`.
// It imports nothing from `redis` at run time; you pass a client made with the official `redis`
// package (v5 or v6). The value and its TTL are written by one `SET key value PX ttl`, so an
// entry never exists without its expiry.

import { assertPositiveInteger, type ContinuationStore, ContinuationStoreError } from './store.js'

/** The part of a node-redis client the store uses (`createClient()` from `redis` fits). */
export interface RedisLikeClient {
  set(
    key: string,
    value: string,
    options: { expiration: { type: 'PX'; value: number } },
  ): Promise<unknown>
  get(key: string): Promise<unknown>
  del(key: string): Promise<unknown>
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
})

/**
 * A {@link ContinuationStore} on Redis. Throws a `TypeError` at construction on a missing
 * client or a bad limit. Every failure of the client (offline, closed, timed out) is thrown as
 * `ERR_CONTINUATION_STORE_UNAVAILABLE`; a record over `maxRecordBytes` as
 * `ERR_CONTINUATION_TOO_LARGE`. When the client has no `error` listener one is attached, so a
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
  const maxRecordBytes = assertPositiveInteger(
    'maxRecordBytes',
    options.maxRecordBytes ?? REDIS_STORE_DEFAULTS.maxRecordBytes,
  )
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
    async set(key: string, value: string, ttlMs: number) {
      assertPositiveInteger('ttlMs', ttlMs)
      const bytes = Buffer.byteLength(prefix) + Buffer.byteLength(key) + Buffer.byteLength(value)
      if (bytes > maxRecordBytes) {
        throw new ContinuationStoreError('ERR_CONTINUATION_TOO_LARGE', {
          limit: maxRecordBytes,
          observed: bytes,
        })
      }
      await call(() =>
        client.set(prefix + key, value, { expiration: { type: 'PX', value: ttlMs } }),
      )
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
