import type { InputRequiredResult } from '@modelcontextprotocol/server'
import { CAPABILITIES_UNAVAILABLE } from '../capability-store.js'
import type { ToolInput } from './inputs.js'
import type { Result, ToolKit } from './kit.js'
import { refusal } from './results.js'
import { redeem } from './serve.js'

// One function per tool. Each takes the arguments the input-validation control admitted
// against the tool's published schema (`schemas/mcp/<tool>.schema.json`, generated from the
// tool's input in `inputs.ts`, which the types below are inferred from); nothing here
// re-validates them.

/**
 * A tool handler: the call's kit, the admitted arguments and the SDK's per-request context (read
 * by a tool of several rounds only); an `input_required` result asks the client for a round more.
 */
export type ToolHandler = (
  kit: ToolKit,
  args: never,
  ctx: never,
) => Promise<Result | InputRequiredResult>

/** `project.list`: the projects of the store. */
export const projectList = (kit: ToolKit): Promise<Result> =>
  kit.flat('project.list', (t) => kit.serve(t, { projects: kit.server.store.listProjects() }))

/** `system.capabilities`: this route's surface and the caller's current capabilities. */
export const systemCapabilities = (kit: ToolKit): Promise<Result> =>
  kit.flat('system.capabilities', (t, caps) =>
    kit.serve(t, {
      route: kit.session.route.path,
      ceiling: kit.session.route.view.ceiling,
      tools: kit.session.route.view.list(caps).map((d) => d.name),
      capabilities: [...caps],
    }),
  )

/** `knowledge.search`: reads only the resources this caller can list on this route. */
export const knowledgeSearch = (kit: ToolKit, a: ToolInput<'knowledge.search'>): Promise<Result> =>
  kit.flat(
    'knowledge.search',
    (t, caps) =>
      kit.snapshot(a.snapshotId) ??
      kit.project(a.projectId) ??
      kit.serve(t, {
        hits: kit.server.store.search(a.projectId, a.query, a.limit ?? 10, kit.readable(caps)),
      }),
  )

/** `knowledge.get`: one document; over the heavy threshold it answers a continuation. */
export const knowledgeGet = (kit: ToolKit, a: ToolInput<'knowledge.get'>): Promise<Result> =>
  kit.flat('knowledge.get', (t) => {
    const refused = kit.snapshot(a.snapshotId) ?? kit.project(a.projectId)
    if (refused) return refused
    const doc = kit.server.store.getDocument(a.projectId, a.documentId)
    return doc ? kit.serve(t, doc) : refusal('ERR_ITEM_NOT_FOUND')
  })

/**
 * `knowledge.status`: counted over what the caller can read here only (a count or a byte total
 * of a resource it may not list would describe that resource).
 */
export const knowledgeStatus = (kit: ToolKit, a: ToolInput<'knowledge.status'>): Promise<Result> =>
  kit.flat(
    'knowledge.status',
    (t, caps) =>
      kit.snapshot(a.snapshotId) ??
      kit.project(a.projectId) ??
      kit.serve(t, kit.server.store.status(a.projectId, kit.readable(caps))),
  )

/** Arguments of `knowledge`. */
export type KnowledgeArgs = ToolInput<'knowledge'>

/** `knowledge`: the group dispatcher, `resource` + `action` resolved on the route. */
export async function knowledge(kit: ToolKit, a: KnowledgeArgs): Promise<Result> {
  const { store } = kit.server
  kit.invoked('knowledge')
  // The dispatcher is mounted everywhere and needs no capability, so refusing a snapshot
  // before resolution says nothing about the route; it covers redemption too (a token holds
  // the live result it was minted from, not a snapshot).
  const unservable = kit.snapshot(a.snapshotId)
  if (unservable) return unservable
  // A token is redeemed on its recorded target; the caller's resource and action are ignored.
  if (a.continuation !== undefined) return kit.redeemNow(a.continuation)
  const caps = await kit.capabilities()
  if (kit.isResult(caps)) return caps
  // Scoped resolution: `knowledge.<resource>.<action>` is looked up in this route's own
  // surface, so a resource mounted elsewhere and one that exists nowhere get the same bytes.
  const target = kit.resolve(
    { kind: 'group', dispatcher: 'knowledge', resource: a.resource, action: a.action },
    caps,
  )
  if (kit.isResult(target)) return target
  const refused = kit.project(a.projectId)
  if (refused) return refused
  switch (target.name) {
    case 'knowledge.documents.list':
      return kit.serve(target, { documents: store.listDocuments(a.projectId) })
    case 'knowledge.notes.list':
      return kit.serve(target, { notes: store.listNotes(a.projectId) })
    case 'knowledge.documents.get': {
      const doc = a.id === undefined ? undefined : store.getDocument(a.projectId, a.id)
      return doc ? kit.serve(target, doc) : refusal('ERR_ITEM_NOT_FOUND')
    }
    default: {
      const note = a.id === undefined ? undefined : store.getNote(a.projectId, a.id)
      return note ? kit.serve(target, note) : refusal('ERR_ITEM_NOT_FOUND')
    }
  }
}

/** Arguments of `admin`. */
export type AdminArgs = ToolInput<'admin'>

/** `admin`: the class dispatcher, `action` + `params` and no resource. */
export async function admin(kit: ToolKit, a: AdminArgs): Promise<Result> {
  const { store, credentials, audit } = kit.server
  kit.invoked('admin')
  // A forged `action` next to a token is ignored: redemption re-authorizes the action
  // recorded at mint.
  if (a.continuation !== undefined) return kit.redeemNow(a.continuation)
  const caps = await kit.capabilities()
  if (kit.isResult(caps)) return caps
  // A class dispatcher resolves no child: `admin.<action>` is the target.
  const target = kit.resolve({ kind: 'class', dispatcher: 'admin', action: a.action }, caps)
  if (kit.isResult(target)) return target
  const params = a.params ?? {}
  switch (target.name) {
    case 'admin.stats':
      return kit.serve(target, {
        projects: store.listProjects().length,
        continuationStoreWrites: kit.server.continuationWrites(),
      })
    case 'admin.export': {
      if (params.projectId === undefined) return refusal('ERR_PARAMS_REQUIRED')
      return (
        kit.project(params.projectId) ?? kit.serve(target, store.exportProject(params.projectId))
      )
    }
    default: {
      if (params.credentialId === undefined || params.capability === undefined) {
        return refusal('ERR_PARAMS_REQUIRED')
      }
      if (!credentials.has(params.credentialId)) return refusal('ERR_ITEM_NOT_FOUND')
      const revoking = target.name === 'admin.revoke'
      let changed: boolean
      try {
        // Recorded in the shared store (with --redis-url): every instance reads it from the
        // next call on. A store that is down records nothing and says so.
        changed = revoking
          ? await credentials.revoke(params.credentialId, params.capability)
          : await credentials.grant(params.credentialId, params.capability)
      } catch {
        audit('call_refused', { reason: 'capabilities_unavailable', ...kit.where })
        return refusal(CAPABILITIES_UNAVAILABLE)
      }
      audit(revoking ? 'capability_revoked' : 'capability_granted', {
        by: kit.session.credentialId,
        subject: params.credentialId,
        capability: params.capability,
      })
      const now = await credentials.capabilitiesOf(params.credentialId).catch(() => undefined)
      if (now === undefined) return refusal(CAPABILITIES_UNAVAILABLE)
      return kit.serve(target, {
        credentialId: params.credentialId,
        changed,
        capabilities: [...now],
      })
    }
  }
}

/** `continuation.fetch`: redeems a token on the route the call arrived on. */
export const continuationFetch = (
  kit: ToolKit,
  a: ToolInput<'continuation.fetch'>,
): Promise<Result> =>
  kit.flat('continuation.fetch', (_t, caps) => redeem(kit.server, kit.session, a.token, caps))
