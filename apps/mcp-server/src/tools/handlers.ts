import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import {
  type ResolvedTarget,
  resolveScoped,
  type ScopedRequest,
  TOOL_NOT_FOUND,
} from '@tollgate/continuation'
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
  resource: string
  action: string
  id?: string | undefined
  continuation?: string | undefined
}

/** The handlers of one session, closed over its route and credential. */
export function createHandlers(server: ServerContext, session: SessionContext) {
  const { store, audit } = server
  const where = { route: session.route.name, credential: session.credentialId }
  const caps = () => server.credentials.capabilitiesOf(session.credentialId)

  /** The sentinel: every handler says so on the audit stream before it does anything. */
  const invoked = (tool: string) => audit('tool_invoked', { tool, ...where })

  /**
   * Scoped resolution against this session's route, with the caller's current capabilities:
   * one refusal whatever the reason (not mounted, carved out, above the ceiling, missing
   * capability, nowhere at all).
   */
  const resolve = (request: ScopedRequest): ResolvedTarget | Result => {
    const r = resolveScoped(session.route.view, request, caps())
    if (r.ok) return r.target
    audit('call_refused', { reason: 'tool_not_found', kind: request.kind, ...where })
    return refusal(TOOL_NOT_FOUND)
  }
  const isResult = (v: ResolvedTarget | Result): v is Result => 'content' in v

  const project = (projectId: string): Result | undefined =>
    store.hasProject(projectId) ? undefined : refusal('ERR_PROJECT_NOT_FOUND')

  /** A flat tool: invoked, resolved on the route, then run. */
  const flat = async (
    name: string,
    run: (target: ResolvedTarget) => Result | Promise<Result>,
  ): Promise<Result> => {
    invoked(name)
    const target = resolve({ kind: 'tool', name })
    return isResult(target) ? target : run(target)
  }

  return {
    'project.list': () =>
      flat('project.list', (t) =>
        serveValue(server, session, t, { projects: store.listProjects() }),
      ),

    'system.capabilities': () =>
      flat('system.capabilities', (t) =>
        serveValue(server, session, t, {
          route: session.route.path,
          ceiling: session.route.view.ceiling,
          tools: session.route.view.list(caps()).map((d) => d.name),
          capabilities: [...caps()],
        }),
      ),

    'knowledge.search': (a: { projectId: string; query: string; limit?: number | undefined }) =>
      flat('knowledge.search', (t) => {
        // Search reads only the resources this caller can list on this route.
        const visible = new Set(
          mountedResources(session.route.view).filter(
            (r) =>
              resolveScoped(
                session.route.view,
                { kind: 'group', dispatcher: 'knowledge', resource: r, action: 'list' },
                caps(),
              ).ok,
          ),
        )
        return (
          project(a.projectId) ??
          serveValue(server, session, t, {
            hits: store.search(a.projectId, a.query, a.limit ?? 10, visible),
          })
        )
      }),

    'knowledge.get': (a: { projectId: string; documentId: string }) =>
      flat('knowledge.get', (t) => {
        const refused = project(a.projectId)
        if (refused) return refused
        const doc = store.getDocument(a.projectId, a.documentId)
        return doc ? serveValue(server, session, t, doc) : refusal('ERR_ITEM_NOT_FOUND')
      }),

    'knowledge.status': (a: { projectId: string }) =>
      flat(
        'knowledge.status',
        (t) => project(a.projectId) ?? serveValue(server, session, t, store.status(a.projectId)),
      ),

    knowledge: async (a: KnowledgeArgs): Promise<Result> => {
      invoked('knowledge')
      // A token is redeemed on its recorded target; the caller's resource and action are ignored.
      if (a.continuation !== undefined) return redeem(server, session, a.continuation)
      // Scoped resolution: `knowledge.<resource>.<action>` is looked up in this route's own
      // surface, so a resource mounted elsewhere and one that exists nowhere get the same bytes.
      const target = resolve({
        kind: 'group',
        dispatcher: 'knowledge',
        resource: a.resource,
        action: a.action,
      })
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
      if (a.continuation !== undefined) return redeem(server, session, a.continuation)
      // A class dispatcher resolves no child: `admin.<action>` is the target.
      const target = resolve({ kind: 'class', dispatcher: 'admin', action: a.action })
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
          const changed = revoking
            ? server.credentials.revoke(params.credentialId, params.capability)
            : server.credentials.grant(params.credentialId, params.capability)
          audit(revoking ? 'capability_revoked' : 'capability_granted', {
            by: session.credentialId,
            subject: params.credentialId,
            capability: params.capability,
          })
          return serveValue(server, session, target, {
            credentialId: params.credentialId,
            changed,
            capabilities: [...server.credentials.capabilitiesOf(params.credentialId)],
          })
        }
      }
    },

    'continuation.fetch': (a: { token: string }) =>
      flat('continuation.fetch', () => redeem(server, session, a.token)),
  }
}
