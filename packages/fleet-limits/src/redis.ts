// The Redis store, for limits shared by several instances: `@tollgate/fleet-limits/redis`. It
// imports nothing from `redis` at run time; you pass a client made with the official `redis`
// package (v5 or v6). Each decision is one script (`redis-scripts.ts`): one round trip, atomic,
// on Redis's clock. Keys carry the limit's name in a hash tag (`{name}`), so a limit's key and
// pool sit in one slot and the scripts also run on Redis Cluster.

import { defineOptions, functionOption, integerOption, option } from '@tollgate/json-budget'
import { ACQUIRE_SCRIPT, RELEASE_SCRIPT, RENEW_SCRIPT, TAKE_SCRIPT } from './redis-scripts.js'
import {
  type LeaseAnswer,
  type LeaseRef,
  type LimitScope,
  type LimitStore,
  LimitStoreUnavailableError,
  type TakeAnswer,
} from './store.js'

export {
  type ConnectableRedisClient,
  connectRedis,
  REDIS_CONNECTION_OPTIONS,
  type RedisConnectionOptions,
  type RedisConnectionSettings,
  type RedisOutage,
} from './redis-connection.js'

/** The part of a node-redis client the store uses (`createClient()` from `redis` fits). */
export interface RedisLimitClient {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>
  on?(event: 'error', listener: (error: unknown) => void): unknown
  listenerCount?(event: string): number
}

function clientOption(value: unknown, name: string): void {
  if (typeof (value as { eval?: unknown } | null)?.eval !== 'function') {
    throw new TypeError(`${name} must be a node-redis client (with eval)`)
  }
}

function prefixOption(value: unknown, name: string): void {
  if (typeof value !== 'string' || value.length > 256 || /[{}]/.test(value)) {
    throw new TypeError(`${name} must be a string of at most 256 characters without { or }`)
  }
}

/** The options of {@link redisLimitStore}, declared once. `client` is required. */
export const REDIS_LIMIT_STORE_OPTIONS = defineOptions('redisLimitStore', {
  client: option<RedisLimitClient | undefined>({
    default: undefined,
    check: clientOption,
    shown: 'required',
    doc: 'a connected node-redis client; create it with `disableOfflineQueue: true` so a command fails at once while Redis is down and the failure rule decides',
  }),
  prefix: option({
    default: 'tollgate:limits:',
    check: prefixOption,
    doc: 'prefix of every key (at most 256 characters, no `{` or `}`); instances that share limits use the same prefix',
  }),
  commandTimeoutMs: option({
    default: 1000,
    check: integerOption(),
    ceiling: 60_000,
    doc: 'a decision not answered within this many ms counts as the store unavailable',
  }),
  onError: option<(error: unknown) => void>({
    default: () => {},
    check: functionOption,
    shown: 'ignore',
    doc: 'receives client `error` events when the client has no other listener',
  }),
})

/** Options of {@link redisLimitStore}; `client` is required. */
export interface RedisLimitStoreOptions {
  readonly client: RedisLimitClient
  readonly prefix?: string | undefined
  readonly commandTimeoutMs?: number | undefined
  readonly onError?: ((error: unknown) => void) | undefined
}

/**
 * A {@link LimitStore} on Redis, shared by every instance given the same Redis and `prefix`.
 * Any failure of the client (offline, closed, a script error, no answer within
 * `commandTimeoutMs`) rejects with a {@link LimitStoreUnavailableError}, and the limit applies
 * its failure rule. When the client has no `error` listener one is attached, so a lost
 * connection cannot crash the process. Needs Redis 5 or later (`TIME` inside scripts).
 * @throws TypeError naming the option: a missing client or one without `eval`, a bad prefix.
 */
export function redisLimitStore(options: RedisLimitStoreOptions): LimitStore {
  const o = REDIS_LIMIT_STORE_OPTIONS.resolve(options)
  if (o.client === undefined) throw new TypeError('redisLimitStore: client is required')
  const { client, prefix, commandTimeoutMs, onError } = o as typeof o & { client: RedisLimitClient }
  if (typeof client.on === 'function' && (client.listenerCount?.('error') ?? 0) === 0) {
    client.on('error', (error) => {
      try {
        onError(error)
      } catch {
        // never let a logging callback crash the process
      }
    })
  }
  const keyOf = (s: LimitScope, kind: string, key: string) => `${prefix}{${s.name}}:${kind}:${key}`

  const run = async (script: string, keys: string[], args: string[]): Promise<unknown> => {
    let command: Promise<unknown>
    try {
      // A closed client may throw synchronously rather than reject.
      command = Promise.resolve(client.eval(script, { keys, arguments: args }))
    } catch {
      throw new LimitStoreUnavailableError()
    }
    // A command abandoned at the deadline may still reject later; that must not be unhandled.
    command.catch(() => {})
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new LimitStoreUnavailableError()), commandTimeoutMs)
    })
    try {
      return await Promise.race([command, deadline])
    } catch {
      throw new LimitStoreUnavailableError()
    } finally {
      clearTimeout(timer)
    }
  }
  const leaseKeys = (l: LeaseRef) => {
    const keys = [keyOf(l, 'l', l.key)]
    if (l.pool !== undefined) keys.push(keyOf(l, 'lp', l.pool))
    return keys
  }

  return Object.freeze({
    kind: 'redis',
    async acquire(r): Promise<LeaseAnswer> {
      const keys = [keyOf(r, 'l', r.key)]
      if (r.pool !== undefined) keys.push(keyOf(r, 'lp', r.pool.key))
      const answer = await run(ACQUIRE_SCRIPT, keys, [
        r.id,
        String(r.limit),
        String(r.leaseMs),
        String(r.pool?.limit ?? 0),
      ])
      if (answer === 0) return { ok: true }
      if (answer === 1) return { ok: false, full: 'key' }
      if (answer === 2) return { ok: false, full: 'pool' }
      throw new LimitStoreUnavailableError()
    },
    async renew(l): Promise<void> {
      await run(RENEW_SCRIPT, leaseKeys(l), [
        l.id,
        String(l.leaseMs),
        l.pool === undefined ? '0' : '1',
      ])
    },
    async release(l): Promise<void> {
      await run(RELEASE_SCRIPT, leaseKeys(l), [l.id])
    },
    async take(r): Promise<TakeAnswer> {
      const keys = [keyOf(r, 'r', r.key)]
      if (r.pool !== undefined) keys.push(keyOf(r, 'rp', r.pool.key))
      const answer = await run(TAKE_SCRIPT, keys, [
        String(r.cost),
        String(r.perMinute),
        String(r.burst),
        String(r.pool?.perMinute ?? 0),
        String(r.pool?.burst ?? 0),
      ])
      if (
        !Array.isArray(answer) ||
        typeof answer[0] !== 'number' ||
        typeof answer[1] !== 'number'
      ) {
        throw new LimitStoreUnavailableError()
      }
      const [verdict, figure] = answer as [number, number]
      if (verdict === 0) return { ok: true, remaining: figure }
      const retryAfterMs = figure < 0 ? Number.POSITIVE_INFINITY : figure
      return { ok: false, full: verdict === 1 ? 'key' : 'pool', retryAfterMs }
    },
  } satisfies LimitStore)
}
