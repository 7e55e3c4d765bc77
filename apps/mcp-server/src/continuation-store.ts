import {
  type ContinuationStore,
  createMemoryStore,
  MEMORY_STORE_DEFAULTS,
} from '@tollgate/continuation'
import { createRedisStore } from '@tollgate/continuation/redis'
import { assertLimit } from '@tollgate/json-budget'
import { createClient } from 'redis'
import type { Audit } from './audit.js'

/**
 * Default of `--max-continuations-per-credential`: the stores' own per-owner default (100), so
 * the default memory store (1,000 entries) holds the full quota of ten credentials at once.
 */
export const DEFAULT_MAX_CONTINUATIONS_PER_CREDENTIAL = MEMORY_STORE_DEFAULTS.maxEntriesPerOwner

/** Highest `--max-continuations-per-credential`: the memory store's global cap (1,000). */
export const MAX_CONTINUATIONS_PER_CREDENTIAL_CEILING = MEMORY_STORE_DEFAULTS.maxEntries

/** The continuation flags `parseArgs` takes (spread into the CLI's options). */
export const CONTINUATION_CLI_OPTIONS = Object.freeze({
  'max-continuations-per-credential': { type: 'string' },
} as const)

/** The `--help` lines of {@link CONTINUATION_CLI_OPTIONS}. */
export const CONTINUATION_USAGE = `  --max-continuations-per-credential <n>
                             outstanding continuations one credential holds (memory and Redis
                             alike); a mint beyond it evicts that credential's oldest, never
                             another credential's (default ${DEFAULT_MAX_CONTINUATIONS_PER_CREDENTIAL}, at most ${MAX_CONTINUATIONS_PER_CREDENTIAL_CEILING})
`

/** The resolved continuation flags. */
export interface ContinuationCliOptions {
  /** Continuations one credential holds in the store. Default: 100; at most 1,000. */
  readonly maxContinuationsPerCredential: number
}

/** Resolves {@link CONTINUATION_CLI_OPTIONS}; a bad value throws a TypeError naming the flag. */
export function parseContinuationCli(values: {
  readonly 'max-continuations-per-credential'?: string | undefined
}): ContinuationCliOptions {
  const raw = values['max-continuations-per-credential']
  if (raw === undefined) {
    return { maxContinuationsPerCredential: DEFAULT_MAX_CONTINUATIONS_PER_CREDENTIAL }
  }
  const n = assertLimit('--max-continuations-per-credential', Number(raw))
  if (n > MAX_CONTINUATIONS_PER_CREDENTIAL_CEILING) {
    throw new TypeError(
      `--max-continuations-per-credential must be at most ${MAX_CONTINUATIONS_PER_CREDENTIAL_CEILING}`,
    )
  }
  return { maxContinuationsPerCredential: n }
}

/** Tries to reach Redis at start before giving up (one try every 200 ms: about 2 seconds). */
const START_ATTEMPTS = 10

/** Longest wait between two reconnection attempts once the server has been up. */
const MAX_RECONNECT_DELAY_MS = 2000

/** Where continuations live, and how to let go of it at shutdown. */
export interface OpenedStore {
  readonly kind: 'memory' | 'redis'
  readonly store: ContinuationStore
  close(): Promise<void>
}

/** Accepts `redis://` and `rediss://` URLs only; throws a TypeError naming `where` otherwise. */
export function assertRedisUrl(where: string, value: unknown): string {
  let url: URL | undefined
  try {
    url = typeof value === 'string' && value.length <= 2048 ? new URL(value) : undefined
  } catch {
    url = undefined
  }
  if (url === undefined || (url.protocol !== 'redis:' && url.protocol !== 'rediss:')) {
    throw new TypeError(`${where}: must be a redis:// or rediss:// URL`)
  }
  return value as string
}

/**
 * Opens the continuation store: the per-process memory store by default, or, with a Redis URL,
 * a store every instance pointing at the same Redis shares. The client is created with the
 * offline queue disabled, so while Redis is down every command fails at once and redemption
 * fails closed (the one expired-or-unknown refusal) instead of waiting; it reconnects in the
 * background. Start-up fails when Redis cannot be reached within about two seconds. The URL is
 * never written to the audit stream (it may carry a password). Either store holds at most
 * `maxPerCredential` continuations per credential (default 100).
 */
export async function openContinuationStore(
  redisUrl: string | undefined,
  audit: Audit,
  maxPerCredential: number = DEFAULT_MAX_CONTINUATIONS_PER_CREDENTIAL,
): Promise<OpenedStore> {
  // Owners are credentials (the service passes the hash of `ownerKey(credentialId)`): one
  // credential's mints evict only its own oldest continuations.
  const quota = { maxEntriesPerOwner: maxPerCredential }
  if (redisUrl === undefined) {
    return { kind: 'memory', store: createMemoryStore(quota), close: async () => {} }
  }
  let connected = false
  let reported = false
  const client = createClient({
    url: redisUrl,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 2000,
      reconnectStrategy: (retries: number) => {
        if (!connected && retries >= START_ATTEMPTS) return new Error('redis unreachable')
        return connected ? Math.min(100 * (retries + 1), MAX_RECONNECT_DELAY_MS) : 200
      },
    },
  })
  // One audit line per outage, not one per reconnection attempt.
  client.on('error', (error: unknown) => {
    if (reported || !connected) return
    reported = true
    audit('continuation_store_error', {
      store: 'redis',
      error: error instanceof Error ? error.name : 'unknown',
    })
  })
  client.on('ready', () => {
    if (reported) audit('continuation_store_recovered', { store: 'redis' })
    reported = false
  })
  try {
    await client.connect()
  } catch {
    try {
      client.destroy()
    } catch {
      // already closed by the reconnection strategy
    }
    throw new TypeError('--redis-url: Redis cannot be reached')
  }
  connected = true
  audit('continuation_store', { store: 'redis' })
  return {
    kind: 'redis',
    store: createRedisStore({ client, ...quota }),
    close: async () => {
      client.destroy()
    },
  }
}
