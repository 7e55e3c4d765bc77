import { randomBytes } from 'node:crypto'
import type { Audit } from './audit.js'
import { CAPABILITIES, type Capability } from './config.js'
import { connectRedis } from './redis-connection.js'

/**
 * What `admin` `grant` / `revoke` decided about one credential while the deployment ran: a
 * capability mapped to `true` (granted) or `false` (revoked). A capability with no decision
 * falls back to the config file. Decisions are recorded per capability rather than as a whole
 * set, so two instances changing two capabilities at once never overwrite each other.
 */
export type CapabilityDecisions = ReadonlyMap<Capability, boolean>

/** The stable code of a capability check that could not read the shared state. */
export const CAPABILITIES_UNAVAILABLE = Object.freeze({
  code: 'ERR_CAPABILITIES_UNAVAILABLE',
  message: 'Capabilities cannot be checked right now; retry later.',
} as const)

/**
 * Thrown (as a rejection) when the capability state cannot be read or written: the caller
 * refuses the call, it never falls back to a cached or configured set.
 */
export class CapabilitiesUnavailableError extends Error {
  override readonly name = 'CapabilitiesUnavailableError'
  readonly code = CAPABILITIES_UNAVAILABLE.code
}

/** Where runtime grant/revoke decisions live: this process's memory, or Redis. */
export interface CapabilityStore {
  readonly kind: 'memory' | 'redis'
  /** Every decision about `id`; rejects with {@link CapabilitiesUnavailableError}. */
  read(id: string): Promise<CapabilityDecisions>
  /**
   * Records one decision atomically and resolves the decision it replaced (`undefined`: none);
   * rejects with {@link CapabilitiesUnavailableError}.
   */
  record(id: string, capability: Capability, held: boolean): Promise<boolean | undefined>
  close(): Promise<void>
}

/** The per-process store: what a single instance (no `--redis-url`) uses. */
export function memoryCapabilityStore(): CapabilityStore {
  const decisions = new Map<string, Map<Capability, boolean>>()
  return {
    kind: 'memory',
    read: async (id) => new Map(decisions.get(id)),
    record: async (id, capability, held) => {
      let own = decisions.get(id)
      if (own === undefined) decisions.set(id, (own = new Map()))
      const previous = own.get(capability)
      own.set(capability, held)
      return previous
    },
    close: async () => {},
  }
}

/** Prefix of the one Redis hash per credential (`<prefix><credential id>`, field = capability). */
export const CAPABILITY_KEY_PREFIX = 'tollgate:capabilities:'

/** A command not answered within this many milliseconds counts as Redis unavailable. */
export const CAPABILITY_COMMAND_TIMEOUT_MS = 1000

const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString() : undefined

function decode(value: unknown): boolean | undefined {
  const t = text(value)
  return t === '1' ? true : t === '0' ? false : undefined
}

/**
 * The key holding the deployment's epoch: a random value the first instance to start writes
 * (`SET NX`) and every instance reads at start. Each capability read checks it in the same
 * `MULTI`: a Redis that lost its data (restarted without persistence, flushed, evicted) no longer
 * holds it, and the instances refuse instead of reverting every revoked credential to its
 * configured set.
 */
export const CAPABILITY_EPOCH_KEY = 'tollgate:capability-epoch'

/** The part of a node-redis client the Redis store uses. */
interface HashClient {
  set(key: string, value: string, options: { condition: 'NX' }): Promise<unknown>
  get(key: string): Promise<unknown>
  multi(): HashMulti
}

interface HashMulti {
  get(key: string): HashMulti
  hGetAll(key: string): HashMulti
  hGet(key: string, field: string): HashMulti
  hSet(key: string, field: string, value: string): HashMulti
  exec(): Promise<unknown>
}

/**
 * The Redis store over a connected node-redis client created with `disableOfflineQueue`: while
 * Redis is down every command fails at once, and one that hangs is abandoned after
 * {@link CAPABILITY_COMMAND_TIMEOUT_MS}; both reject with {@link CapabilitiesUnavailableError},
 * and so does a read that finds the epoch gone or changed (`onLost` is told, once per
 * process: only a restart, an operator's decision, accepts the configured sets again). A field
 * that is neither `"1"` nor `"0"` is ignored (no decision), so a planted value can only restore
 * the config file's answer.
 */
function redisCapabilityStore(
  client: HashClient,
  epoch: string,
  onLost: () => void,
  close: () => Promise<void>,
): CapabilityStore {
  let lost = false
  const bounded = async <T>(run: () => Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined
    try {
      return await Promise.race([
        run(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), CAPABILITY_COMMAND_TIMEOUT_MS)
        }),
      ])
    } catch {
      throw new CapabilitiesUnavailableError('capability store unavailable')
    } finally {
      clearTimeout(timer)
    }
  }
  const checkEpoch = (reply: unknown): void => {
    if (!lost && text(reply) === epoch) return
    if (!lost) onLost()
    lost = true
    throw new Error('capability state lost')
  }
  const known = new Set<string>(CAPABILITIES)
  return {
    kind: 'redis',
    read: (id) =>
      bounded(async () => {
        const [current, reply] = (await client
          .multi()
          .get(CAPABILITY_EPOCH_KEY)
          .hGetAll(`${CAPABILITY_KEY_PREFIX}${id}`)
          .exec()) as unknown[]
        checkEpoch(current)
        const entries =
          reply instanceof Map ? [...reply.entries()] : Object.entries((reply ?? {}) as object)
        const decisions = new Map<Capability, boolean>()
        for (const [field, value] of entries) {
          const held = decode(value)
          if (known.has(String(field)) && held !== undefined) {
            decisions.set(String(field) as Capability, held)
          }
        }
        return decisions
      }),
    record: (id, capability, held) =>
      bounded(async () => {
        const key = `${CAPABILITY_KEY_PREFIX}${id}`
        // One MULTI: the previous decision is read in the same atomic step that replaces it.
        // (Written even into a Redis that lost the epoch; the call is refused all the same.)
        const [current, previous] = (await client
          .multi()
          .get(CAPABILITY_EPOCH_KEY)
          .hGet(key, capability)
          .hSet(key, capability, held ? '1' : '0')
          .exec()) as unknown[]
        checkEpoch(current)
        return decode(previous)
      }),
    close,
  }
}

/**
 * Opens the capability store: per-process memory without a Redis URL, else a Redis every
 * instance shares, on its own client (the continuation store's connection is not shared, so the
 * two fail and recover independently and each audits its own outage). Start-up fails when Redis
 * cannot be reached within about two seconds; the URL is never written to the audit stream.
 */
export async function openCapabilityStore(
  redisUrl: string | undefined,
  audit: Audit,
): Promise<CapabilityStore> {
  if (redisUrl === undefined) return memoryCapabilityStore()
  const client = await connectRedis(redisUrl, audit, 'capability')
  const hashes = client as unknown as HashClient
  let epoch: string | undefined
  try {
    await hashes.set(CAPABILITY_EPOCH_KEY, randomBytes(16).toString('hex'), { condition: 'NX' })
    epoch = text(await hashes.get(CAPABILITY_EPOCH_KEY))
  } catch {
    epoch = undefined
  }
  if (epoch === undefined) {
    client.destroy()
    throw new TypeError('--redis-url: Redis cannot be reached')
  }
  audit('capability_store', { store: 'redis' })
  return redisCapabilityStore(
    hashes,
    epoch,
    () => audit('capability_state_lost', { store: 'redis' }),
    async () => {
      client.destroy()
    },
  )
}
