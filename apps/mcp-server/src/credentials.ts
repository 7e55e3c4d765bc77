import { createHash, timingSafeEqual } from 'node:crypto'
import { type CapabilityStore, memoryCapabilityStore } from './capability-store.js'
import { type Capability, MAX_TOKEN_LENGTH, type ServerConfig } from './config.js'

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest()
}

/**
 * The live credential table: authenticates bearer tokens (the config file's, fixed for the
 * process) and answers each credential's current capabilities, which `admin` `revoke` / `grant`
 * change while the server runs. A credential's capabilities are its configured set with the
 * recorded runtime decisions applied; the decisions live in a {@link CapabilityStore}, this
 * process's memory or, with `--redis-url`, a Redis every instance shares. Nothing is cached:
 * every lookup reads the store, so a revocation made on any instance holds on every instance
 * from the next call on, continuation redemptions included. A lookup that cannot read the
 * store rejects (`CapabilitiesUnavailableError`): the caller refuses, never guesses.
 */
export class CredentialRegistry {
  readonly #byDigest: { digest: Buffer; id: string }[]
  readonly #configured = new Map<string, ReadonlySet<Capability>>()
  readonly #store: CapabilityStore

  constructor(config: ServerConfig, store: CapabilityStore = memoryCapabilityStore()) {
    this.#byDigest = config.credentials.map((c) => ({ digest: digest(c.token), id: c.id }))
    for (const c of config.credentials) this.#configured.set(c.id, new Set(c.capabilities))
    this.#store = store
  }

  /** The credential id a bearer token belongs to, or `undefined`; compares digests in constant time. */
  authenticate(token: string): string | undefined {
    if (token.length > MAX_TOKEN_LENGTH) return undefined
    const d = digest(token)
    let found: string | undefined
    for (const entry of this.#byDigest) {
      if (timingSafeEqual(entry.digest, d)) found = entry.id
    }
    return found
  }

  /** Whether `id` names a credential of the config file. */
  has(id: string): boolean {
    return this.#configured.has(id)
  }

  /**
   * The current capabilities of a principal (empty for an unknown id), read from the store at
   * each call. The one place a principal id is turned into capabilities.
   * @throws (rejects) `CapabilitiesUnavailableError` when the shared state cannot be read.
   */
  async capabilitiesOf(id: string): Promise<ReadonlySet<Capability>> {
    const configured = this.#configured.get(id)
    if (configured === undefined) return new Set()
    const held = new Set(configured)
    for (const [capability, granted] of await this.#store.read(id)) {
      if (granted) held.add(capability)
      else held.delete(capability)
    }
    return held
  }

  /**
   * Removes a capability on every instance sharing the store; resolves whether the credential
   * held it. Rejects `CapabilitiesUnavailableError` (nothing recorded) when the store is down.
   */
  async revoke(id: string, capability: Capability): Promise<boolean> {
    const configured = this.#configured.get(id)
    if (configured === undefined) return false
    const previous = await this.#store.record(id, capability, false)
    return previous ?? configured.has(capability)
  }

  /**
   * Adds a capability on every instance sharing the store; resolves whether the credential
   * exists. Rejects `CapabilitiesUnavailableError` (nothing recorded) when the store is down.
   */
  async grant(id: string, capability: Capability): Promise<boolean> {
    if (!this.#configured.has(id)) return false
    await this.#store.record(id, capability, true)
    return true
  }
}
