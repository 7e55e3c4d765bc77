import type { Continuations, SealedHandles } from '@tollgate/continuation'
import type { Audit } from '../audit.js'
import type { CredentialRegistry } from '../credentials.js'
import type { KnowledgeStore } from '../store/knowledge-store.js'
import type { Route } from '../surfaces.js'

/** What every session of the process shares. */
export interface ServerContext {
  readonly store: KnowledgeStore
  readonly credentials: CredentialRegistry
  readonly continuations: Continuations
  /** Seals and opens the `requestState` of tools of several rounds (`--sealing-keys-file`). */
  readonly handles: SealedHandles
  /** Writes the continuation store has taken since start: what `admin` `stats` reports. */
  readonly continuationWrites: () => number
  readonly audit: Audit
  /** Route paths that admit a request with no `Authorization` header as an anonymous principal. */
  readonly anonymousRoutes: ReadonlySet<string>
  /** Test-only: registers `probe.unpublished`, a tool with no published schema. */
  readonly registerUnpublishedProbe: boolean
}

/** What one MCP session is bound to: its route and the credential that opened it. */
export interface SessionContext {
  readonly route: Route
  readonly credentialId: string
  /**
   * Whose continuation quota what it mints counts against, when that is not the credential:
   * an anonymous caller's own key (`anonymous@ip:…`), so one anonymous caller's mints evict
   * only its own oldest continuations, never another anonymous caller's.
   */
  readonly quotaKey?: string | undefined
}
