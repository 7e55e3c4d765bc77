// `project.export`: a tool of two rounds (2026-07-28 multi round-trip). The first call answers
// `input_required`: a confirmation to ask the person (an embedded `elicitation/create`) and a
// `requestState` the client echoes on its retry. The state is a sealed handle
// (`@tollgate/continuation`'s `sealedHandles`): bound to the principal, the route, this tool and
// the call's arguments, expiring after 10 minutes, verifiable by every instance holding the key
// file, so the retry may land on any instance and no store is shared. The state comes back from
// the client, so it is attacker-controlled: it is opened before anything else runs, and a
// handle that fails for any reason (a changed character, another caller, route, tool or
// argument set, expired, a key no longer listed) gets the one refusal `ERR_SEALED_HANDLE_REFUSED`
// and the export is not run.

import {
  acceptedContent,
  type InputRequiredResult,
  inputRequired,
} from '@modelcontextprotocol/server'
import { SEALED_HANDLE_REFUSED } from '@tollgate/continuation'
import type { ToolInput } from './inputs.js'
import type { Result, ToolKit } from './kit.js'
import { refusal } from './results.js'

/** The tool's name. */
export const PROJECT_EXPORT = 'project.export'

/** The key of the confirmation in `inputRequests` / `inputResponses`. */
export const CONFIRM_KEY = 'confirm'

/** What the handler reads of the SDK's per-request context. */
export interface RoundContext {
  readonly mcpReq: {
    requestState(): unknown
    readonly inputResponses?: Record<string, unknown> | undefined
  }
}

/** The server's own state inside the handle: which step the retry completes. */
const STATE = JSON.stringify({ v: 1, step: 'confirm' })

const CONFIRMATION_SCHEMA = {
  type: 'object' as const,
  properties: { confirm: { type: 'boolean' as const, description: 'Export the project.' } },
  required: ['confirm'],
}

/**
 * `project.export`: the first round asks for a confirmation and seals its `requestState`; the
 * retry carrying that state and an accepted `confirm: true` answers the project's documents and
 * notes (a continuation when heavy); a declined or missing confirmation answers
 * `{"exported":false}`.
 */
export async function projectExport(
  kit: ToolKit,
  a: ToolInput<'project.export'>,
  ctx: RoundContext,
): Promise<Result | InputRequiredResult> {
  const caps = await kit.capabilities()
  if (kit.isResult(caps)) return caps
  const principal = kit.session.quotaKey ?? `credential:${kit.session.credentialId}`
  const echoed = ctx.mcpReq.requestState()
  if (echoed !== undefined) {
    // Opened first: nothing of the export runs, not even the sentinel, for a refused handle.
    const opened = await kit.server.handles.open(echoed, {
      kind: 'requestState',
      principal,
      route: kit.session.route.view,
      permissions: caps,
      call: { tool: PROJECT_EXPORT, arguments: a },
    })
    if (!opened.ok || opened.state !== STATE) {
      kit.server.audit('call_refused', { reason: 'sealed_handle_refused', ...kit.where })
      return refusal(SEALED_HANDLE_REFUSED.error)
    }
  }
  kit.invoked(PROJECT_EXPORT)
  const target = kit.resolve({ kind: 'tool', name: PROJECT_EXPORT }, caps)
  if (kit.isResult(target)) return target
  const refused = kit.snapshot(a.snapshotId) ?? kit.project(a.projectId)
  if (refused) return refused
  const { store } = kit.server
  if (echoed !== undefined) {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, CONFIRM_KEY)
    if (answer?.confirm !== true) return kit.serve(target, { exported: false })
    return kit.serve(target, store.exportProject(a.projectId))
  }
  const sealed = kit.server.handles.seal({
    kind: 'requestState',
    state: STATE,
    principal,
    route: kit.session.route.view,
    target,
    arguments: a,
  })
  if (!sealed.ok)
    return refusal({ code: sealed.error.code, message: 'The state cannot be sealed.' })
  const documents = store.listDocuments(a.projectId).length
  const notes = store.listNotes(a.projectId).length
  return inputRequired({
    inputRequests: {
      [CONFIRM_KEY]: inputRequired.elicit({
        message: `Export project ${a.projectId}: ${documents} documents and ${notes} notes?`,
        requestedSchema: CONFIRMATION_SCHEMA,
      }),
    },
    requestState: sealed.handle,
  })
}
