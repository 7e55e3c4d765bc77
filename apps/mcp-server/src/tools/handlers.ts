import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import {
  type ResolvedTarget,
  resolveScoped,
  type ScopedRequest,
  TOOL_NOT_FOUND,
} from '@tollgate/continuation'
import { CAPABILITIES_UNAVAILABLE } from '../capability-store.js'
import type { Capability } from '../config.js'
import { mountedResources } from '../surfaces.js'
import type { ServerContext, SessionContext } from './context.js'
import { refusal } from './results.js'
import { redeem, serveValue } from './serve.js'

type Result = CallToolResult

/** Arguments of `admin` after the SDK's parsing. */
export interface AdminArgs {
  action: string
  params?:
    | {
        projectId?: string | undefined
        credentialId?: string | undefined
        capability?: Capability | undefined
      }
    | undefined
  continuation?: string | undefined
}

/** Arguments of `knowledge` after the SDK's parsing. */
export interface KnowledgeArgs {
  projectId: string
  snapshotId?: string | undefined
  resource: string
  action: string
  id?: string | undefined
  continuation?: string | undefined
}

/**
 * The refusal of a call naming a snapshot the store cannot serve. The reference store keeps no
 * snapshots, so every `snapshotId` meets it: a caller who asked for a fixed view is told it did
 * not get one, instead of being served live data as if it had.
 */
export const SNAPSHOT_UNAVAILABLE = Object.freeze({
  code: 'ERR_SNAPSHOT_UNAVAILABLE',
  message: 'This store cannot serve the requested snapshot.',
} as const)

type Caps = ReadonlySet<Capability>

/** The handlers of one session, closed over its route and credential. */
export function createHandlers(server: ServerContext, session: SessionContext) {
  const { store, audit } = server
  const where = { route: session.route.name, credential: session.credentialId }

  /** The sentinel: every handler says so on the audit stream before it does anything. */
  const invoked = (tool: string) => audit('tool_invoked', { tool, ...where })

  const isResult = (v: object): v is Result => 'content' in v

  /**
   * The caller's current capabilities, read once per call (from Redis with `--redis-url`): a
   * store that cannot be read refuses the call (fail closed), it never falls back to a cache.
   */
  const capabilities = async (): Promise<Caps | Result> => {
    try {
      return await server.credentials.capabilitiesOf(session.credentialId)
    } catch {
      audit('call_refused', { reason: 'capabilities_unavailable', ...where })
      return refusal(CAPABILITIES_UNAVAILABLE)
    }
  }

  /**
   * Scoped resolution against this session's route, with the caller's current capabilities:
   * one refusal whatever the reason (not mounted, carved out, above the ceiling, missing
   * capability, nowhere at all).
   */
  const resolve = (request: ScopedRequest, caps: Caps): ResolvedTarget | Result => {
    const r = resolveScoped(session.route.view, request, caps)
    if (r.ok) return r.target
    audit('call_refused', { reason: 'tool_not_found', kind: request.kind, ...where })
    return refusal(TOOL_NOT_FOUND.error)
  }

  /** The resources of `knowledge` this caller can list on this route (what search and status describe). */
  const readable = (caps: Caps): ReadonlySet<string> =>
    new Set(
      mountedResources(session.route.view).filter(
        (r) =>
          resolveScoped(
            session.route.view,
            { kind: 'group', dispatcher: 'knowledge', resource: r, action: 'list' },
            caps,
          ).ok,
      ),
    )

  const project = (projectId: string): Result | undefined =>
    store.hasProject(projectId) ? undefined : refusal('ERR_PROJECT_NOT_FOUND')

  /** A snapshot the store cannot serve is refused, never silently read live. */
  const snapshot = (snapshotId: string | undefined): Result | undefined => {
    if (snapshotId === undefined || store.hasSnapshot(snapshotId)) return undefined
    audit('call_refused', { reason: 'snapshot_unavailable', ...where })
    return refusal(SNAPSHOT_UNAVAILABLE)
  }

  /** A flat tool: invoked, capabilities read, resolved on the route, then run. */
  const flat = async (
    name: string,
    run: (target: ResolvedTarget, caps: Caps) => Result | Promise<Result>,
  ): Promise<Result> => {
    invoked(name)
    const caps = await capabilities()
    if (isResult(caps)) return caps
    const target = resolve({ kind: 'tool', name }, caps)
    return isResult(target) ? target : run(target, caps)
  }

  /** Redemption with the caller's capabilities as they are now. */
  const redeemNow = async (token: string): Promise<Result> => {
    const caps = await capabilities()
    return isResult(caps) ? caps : redeem(server, session, token, caps)
  }

  return {
    'project.list': () =>
      flat('project.list', (t) =>
        serveValue(server, session, t, { projects: store.listProjects() }),
      ),

    'system.capabilities': () =>
      flat('system.capabilities', (t, caps) =>
        serveValue(server, session, t, {
          route: session.route.path,
          ceiling: session.route.view.ceiling,
          tools: session.route.view.list(caps).map((d) => d.name),
          capabilities: [...caps],
        }),
      ),

    'knowledge.search': (a: {
      projectId: string
      snapshotId?: string | undefined
      query: string
      limit?: number | undefined
    }) =>
      flat(
        'knowledge.search',
        (t, caps) =>
          snapshot(a.snapshotId) ??
          project(a.projectId) ??
          // Search reads only the resources this caller can list on this route.
          serveValue(server, session, t, {
            hits: store.search(a.projectId, a.query, a.limit ?? 10, readable(caps)),
          }),
      ),

    'knowledge.get': (a: {
      projectId: string
      snapshotId?: string | undefined
      documentId: string
    }) =>
      flat('knowledge.get', (t) => {
        const refused = snapshot(a.snapshotId) ?? project(a.projectId)
        if (refused) return refused
        const doc = store.getDocument(a.projectId, a.documentId)
        return doc ? serveValue(server, session, t, doc) : refusal('ERR_ITEM_NOT_FOUND')
      }),

    'knowledge.status': (a: { projectId: string; snapshotId?: string | undefined }) =>
      flat(
        'knowledge.status',
        // Counted over what the caller can read here only: a count or a byte total of a
        // resource it may not list would describe that resource.
        (t, caps) =>
          snapshot(a.snapshotId) ??
          project(a.projectId) ??
          serveValue(server, session, t, store.status(a.projectId, readable(caps))),
      ),

    knowledge: async (a: KnowledgeArgs): Promise<Result> => {
      invoked('knowledge')
      // The dispatcher is mounted everywhere and needs no capability, so refusing a snapshot
      // before resolution says nothing about the route; it covers redemption too (a token
      // holds the live result it was minted from, not a snapshot).
      const unservable = snapshot(a.snapshotId)
      if (unservable) return unservable
      // A token is redeemed on its recorded target; the caller's resource and action are ignored.
      if (a.continuation !== undefined) return redeemNow(a.continuation)
      const caps = await capabilities()
      if (isResult(caps)) return caps
      // Scoped resolution: `knowledge.<resource>.<action>` is looked up in this route's own
      // surface, so a resource mounted elsewhere and one that exists nowhere get the same bytes.
      const target = resolve(
        { kind: 'group', dispatcher: 'knowledge', resource: a.resource, action: a.action },
        caps,
      )
      if (isResult(target)) return target
      const refused = project(a.projectId)
      if (refused) return refused
      switch (target.name) {
        case 'knowledge.documents.list':
          return serveValue(server, session, target, {
            documents: store.listDocuments(a.projectId),
          })
        case 'knowledge.notes.list':
          return serveValue(server, session, target, { notes: store.listNotes(a.projectId) })
        case 'knowledge.documents.get': {
          const doc = a.id === undefined ? undefined : store.getDocument(a.projectId, a.id)
          return doc ? serveValue(server, session, target, doc) : refusal('ERR_ITEM_NOT_FOUND')
        }
        default: {
          const note = a.id === undefined ? undefined : store.getNote(a.projectId, a.id)
          return note ? serveValue(server, session, target, note) : refusal('ERR_ITEM_NOT_FOUND')
        }
      }
    },

    admin: async (a: AdminArgs): Promise<Result> => {
      invoked('admin')
      // A forged `action` next to a token is ignored: redemption re-authorizes the action
      // recorded at mint.
      if (a.continuation !== undefined) return redeemNow(a.continuation)
      const caps = await capabilities()
      if (isResult(caps)) return caps
      // A class dispatcher resolves no child: `admin.<action>` is the target.
      const target = resolve({ kind: 'class', dispatcher: 'admin', action: a.action }, caps)
      if (isResult(target)) return target
      const params = a.params ?? {}
      switch (target.name) {
        case 'admin.stats':
          return serveValue(server, session, target, {
            projects: store.listProjects().length,
            continuationStoreWrites: server.continuationWrites(),
          })
        case 'admin.export': {
          if (params.projectId === undefined) return refusal('ERR_PARAMS_REQUIRED')
          return (
            project(params.projectId) ??
            serveValue(server, session, target, store.exportProject(params.projectId))
          )
        }
        default: {
          if (params.credentialId === undefined || params.capability === undefined) {
            return refusal('ERR_PARAMS_REQUIRED')
          }
          if (!server.credentials.has(params.credentialId)) return refusal('ERR_ITEM_NOT_FOUND')
          const revoking = target.name === 'admin.revoke'
          let changed: boolean
          try {
            // Recorded in the shared store (with --redis-url): every instance reads it from
            // the next call on. A store that is down records nothing and says so.
            changed = revoking
              ? await server.credentials.revoke(params.credentialId, params.capability)
              : await server.credentials.grant(params.credentialId, params.capability)
          } catch {
            audit('call_refused', { reason: 'capabilities_unavailable', ...where })
            return refusal(CAPABILITIES_UNAVAILABLE)
          }
          audit(revoking ? 'capability_revoked' : 'capability_granted', {
            by: session.credentialId,
            subject: params.credentialId,
            capability: params.capability,
          })
          const now = await server.credentials
            .capabilitiesOf(params.credentialId)
            .catch(() => undefined)
          if (now === undefined) return refusal(CAPABILITIES_UNAVAILABLE)
          return serveValue(server, session, target, {
            credentialId: params.credentialId,
            changed,
            capabilities: [...now],
          })
        }
      }
    },

    'continuation.fetch': (a: { token: string }) =>
      flat('continuation.fetch', (_t, caps) => redeem(server, session, a.token, caps)),
  }
}
