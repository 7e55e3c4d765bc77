import {
  type ContinuationStore,
  createMemoryStore,
  MEMORY_STORE_OPTIONS,
} from '@tollgate/continuation'
import { createRedisStore } from '@tollgate/continuation/redis'
import { assertLimit } from '@tollgate/json-budget'
import type { Audit } from './audit.js'
import { connectRedis } from './redis-connection.js'

/**
 * Default of `--max-continuations-per-credential`: the stores' own per-owner default (100), so
 * the default memory store (1,000 entries) holds the full quota of ten credentials at once.
 */
export const DEFAULT_MAX_CONTINUATIONS_PER_CREDENTIAL = MEMORY_STORE_OPTIONS.defaults
  .maxEntriesPerOwner as number

/** Highest `--max-continuations-per-credential`: the memory store's global cap (1,000). */
export const MAX_CONTINUATIONS_PER_CREDENTIAL_CEILING = MEMORY_STORE_OPTIONS.defaults.maxEntries

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
  const client = await connectRedis(redisUrl, audit, 'continuation')
  audit('continuation_store', { store: 'redis' })
  return {
    kind: 'redis',
    store: createRedisStore({ client, ...quota }),
    close: async () => {
      client.destroy()
    },
  }
}
