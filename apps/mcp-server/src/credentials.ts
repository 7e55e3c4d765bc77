import { createHash, timingSafeEqual } from 'node:crypto'
import { type Capability, MAX_TOKEN_LENGTH, type ServerConfig } from './config.js'

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest()
}

/**
 * The live credential table: authenticates bearer tokens and holds each credential's current
 * capabilities, which `admin` `revoke` / `grant` change while the server runs. Capabilities
 * are read at every call, so a revocation takes effect on the next request, redemptions
 * included.
 */
export class CredentialRegistry {
  readonly #byDigest: { digest: Buffer; id: string }[]
  readonly #capabilities = new Map<string, Set<Capability>>()
  // Every anonymous principal (`anonymous:<uuid>`) holds the one configured set; never mutated.
  readonly #anonymous: ReadonlySet<Capability>

  constructor(config: ServerConfig) {
    this.#anonymous = new Set(config.anonymous?.capabilities ?? [])
    this.#byDigest = config.credentials.map((c) => ({ digest: digest(c.token), id: c.id }))
    for (const c of config.credentials) this.#capabilities.set(c.id, new Set(c.capabilities))
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

  /** Whether `id` names a credential. */
  has(id: string): boolean {
    return this.#capabilities.has(id)
  }

  /** The current capabilities of a credential (empty for an unknown id). */
  capabilitiesOf(id: string): ReadonlySet<Capability> {
    if (id.startsWith('anonymous:')) return new Set(this.#anonymous)
    return this.#capabilities.get(id) ?? new Set()
  }

  /** Removes a capability; returns whether the credential held it. */
  revoke(id: string, capability: Capability): boolean {
    return this.#capabilities.get(id)?.delete(capability) ?? false
  }

  /** Adds a capability; returns whether the credential exists. */
  grant(id: string, capability: Capability): boolean {
    const set = this.#capabilities.get(id)
    set?.add(capability)
    return set !== undefined
  }
}
