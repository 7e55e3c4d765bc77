import type { CallToolResult } from '@modelcontextprotocol/server'
import {
  type ResolvedTarget,
  resolveScoped,
  type ScopedRequest,
  TOOL_NOT_FOUND,
} from '@tollgate/continuation'
import { CAPABILITIES_UNAVAILABLE } from '../capability-store.js'
import type { Capability } from '../config.js'
import { mountedResources } from '../knowledge-resources.js'
import type { ServerContext, SessionContext } from './context.js'
import { refusal } from './results.js'
import { redeem, serveValue } from './serve.js'

/** A tool result. */
export type Result = CallToolResult

/** A caller's capabilities, read for one call. */
export type Caps = ReadonlySet<Capability>

/**
 * The refusal of a call naming a snapshot the store cannot serve. The reference store keeps no
 * snapshots, so every `snapshotId` meets it: a caller who asked for a fixed view is told it did
 * not get one, instead of being served live data as if it had.
 */
export const SNAPSHOT_UNAVAILABLE = Object.freeze({
  code: 'ERR_SNAPSHOT_UNAVAILABLE',
  message: 'This store cannot serve the requested snapshot.',
} as const)

/**
 * What every handler is given: the server's shared state, the route and principal of the
 * call, and the steps the handlers share (the sentinel, capabilities read once per call, scoped
 * resolution on the route, serving through continuations). Built once per `McpServer`: per
 * session for 2025 traffic, per request for 2026-07-28 traffic.
 */
export interface ToolKit {
  readonly server: ServerContext
  readonly session: SessionContext
  /** Route and credential, the fields every audit event of a call carries. */
  readonly where: { readonly route: string; readonly credential: string }
  /** The sentinel: every handler says so on the audit stream before it does anything. */
  invoked(tool: string): void
  /** Whether a value is a (refusal) result rather than what was asked for. */
  isResult(value: object): value is Result
  /** The caller's current capabilities, or a fail-closed refusal when they cannot be read. */
  capabilities(): Promise<Caps | Result>
  /** Scoped resolution on the route: one refusal whatever the reason. */
  resolve(request: ScopedRequest, caps: Caps): ResolvedTarget | Result
  /** The resources of `knowledge` this caller can list on this route. */
  readable(caps: Caps): ReadonlySet<string>
  /** `undefined` when the project exists, its refusal otherwise. */
  project(projectId: string): Result | undefined
  /** A snapshot the store cannot serve is refused, never silently read live. */
  snapshot(snapshotId: string | undefined): Result | undefined
  /** A flat tool: invoked, capabilities read, resolved on the route, then run. */
  flat(
    name: string,
    run: (target: ResolvedTarget, caps: Caps) => Result | Promise<Result>,
  ): Promise<Result>
  /** Answers a value as JSON text, or as a continuation when it is heavy. */
  serve(target: ResolvedTarget, value: unknown): Promise<Result>
  /** Redeems a continuation with the caller's capabilities as they are now. */
  redeemNow(token: string): Promise<Result>
}

/** Builds the {@link ToolKit} of one `McpServer` (one session, or one 2026 request). */
export function createToolKit(server: ServerContext, session: SessionContext): ToolKit {
  const { store, audit } = server
  const where = Object.freeze({ route: session.route.name, credential: session.credentialId })
  const isResult = (v: object): v is Result => 'content' in v
  const capabilities = async (): Promise<Caps | Result> => {
    try {
      // Read at each call (from Redis with --redis-url): a store that cannot be read refuses
      // the call (fail closed), it never falls back to a cache.
      return await server.credentials.capabilitiesOf(session.credentialId)
    } catch {
      audit('call_refused', { reason: 'capabilities_unavailable', ...where })
      return refusal(CAPABILITIES_UNAVAILABLE)
    }
  }
  const resolve = (request: ScopedRequest, caps: Caps): ResolvedTarget | Result => {
    const r = resolveScoped(session.route.view, request, caps)
    if (r.ok) return r.target
    audit('call_refused', { reason: 'tool_not_found', kind: request.kind, ...where })
    return refusal(TOOL_NOT_FOUND.error)
  }
  const kit: ToolKit = {
    server,
    session,
    where,
    invoked: (tool) => audit('tool_invoked', { tool, ...where }),
    isResult,
    capabilities,
    resolve,
    readable: (caps) =>
      new Set(
        mountedResources(session.route.view).filter(
          (r) =>
            resolveScoped(
              session.route.view,
              { kind: 'group', dispatcher: 'knowledge', resource: r, action: 'list' },
              caps,
            ).ok,
        ),
      ),
    project: (projectId) =>
      store.hasProject(projectId) ? undefined : refusal('ERR_PROJECT_NOT_FOUND'),
    snapshot: (snapshotId) => {
      if (snapshotId === undefined || store.hasSnapshot(snapshotId)) return undefined
      audit('call_refused', { reason: 'snapshot_unavailable', ...where })
      return refusal(SNAPSHOT_UNAVAILABLE)
    },
    flat: async (name, run) => {
      kit.invoked(name)
      const caps = await capabilities()
      if (isResult(caps)) return caps
      const target = resolve({ kind: 'tool', name }, caps)
      return isResult(target) ? target : run(target, caps)
    },
    serve: (target, value) => serveValue(server, session, target, value),
    redeemNow: async (token) => {
      const caps = await capabilities()
      return isResult(caps) ? caps : redeem(server, session, token, caps)
    },
  }
  return Object.freeze(kit)
}
