import {
  type McpServer,
  type ReadResourceResult,
  type Resource,
  ResourceTemplate,
} from '@modelcontextprotocol/server'
import { type RouteView, resolveScoped } from '@tollgate/continuation'
import { mountedResources } from './knowledge-resources.js'
import type { ServerContext, SessionContext } from './tools/context.js'

/** URI template of a document resource: `tollgate://knowledge/{projectId}/documents/{id}`. */
export const DOCUMENT_URI_TEMPLATE = 'tollgate://knowledge/{projectId}/documents/{id}'

/** URI template of a note resource: `tollgate://knowledge/{projectId}/notes/{id}`. */
export const NOTE_URI_TEMPLATE = 'tollgate://knowledge/{projectId}/notes/{id}'

/**
 * The JSON-RPC error code of the one `resources/read` refusal: "resource not found" is
 * `-32602` since the 2025-11-25 revision (the SDK's v2 line answers the older `-32002` as
 * `-32602` on every era, so the server names it so itself).
 */
export const RESOURCE_NOT_FOUND_CODE = -32602

/** Longest resource URI a read considers; a longer one is refused unparsed. */
export const MAX_RESOURCE_URI_LENGTH = 2048

type Kind = 'documents' | 'notes'

const TEMPLATES: Readonly<Record<Kind, string>> = Object.freeze({
  documents: DOCUMENT_URI_TEMPLATE,
  notes: NOTE_URI_TEMPLATE,
})

/**
 * The one refusal of `resources/read`: fixed bytes, never the URI the caller sent. (The SDK
 * answers a thrown error with its `code` and `message`; `McpError` would prefix the message.)
 */
function notFound(): Error {
  return Object.assign(new Error('Resource not found'), { code: RESOURCE_NOT_FOUND_CODE })
}

/**
 * Serves the knowledge store's documents and notes as MCP resources on one session
 * (`resources/list`, `resources/templates/list`, `resources/read`). Each kind is registered
 * only when the session's route mounts its reads (`knowledge.<kind>.*`), so a route that
 * carves a kind out neither lists its template nor serves it. Listing and reading are then
 * authorized per request against the route's surface with the caller's current capabilities
 * (`knowledge.<kind>.list` / `.get`: `documents` or `notes`). Every refused read, whether the
 * kind is not mounted, a capability is missing, or the URI names nothing, is answered with
 * the same JSON-RPC error (`-32602`, `Resource not found`), never echoing the URI. Reads are
 * never truncated: the result budget of the transport refuses one that is too large.
 */
export function registerResources(
  mcp: McpServer,
  server: ServerContext,
  session: SessionContext,
): void {
  const { store, audit } = server
  const view = session.route.view
  const where = { route: session.route.name, credential: session.credentialId }
  // Capabilities are read at each request (shared through Redis with --redis-url); when they
  // cannot be read, nothing is listed or served: the same answer as a resource that is absent.
  const allowed = async (kind: Kind, action: 'list' | 'get'): Promise<boolean> => {
    let permissions: Awaited<ReturnType<typeof server.credentials.capabilitiesOf>>
    try {
      permissions = await server.credentials.capabilitiesOf(session.credentialId)
    } catch {
      return false
    }
    return resolveScoped(
      view,
      { kind: 'group', dispatcher: 'knowledge', resource: kind, action },
      permissions,
    ).ok
  }

  const list = async (kind: Kind): Promise<Resource[]> => {
    if (!(await allowed(kind, 'list'))) return []
    return store.listProjects().flatMap((p) => {
      const items = kind === 'documents' ? store.listDocuments(p.id) : store.listNotes(p.id)
      return items.map((item) => ({
        uri: uriOf(kind, p.id, item.id),
        name: item.id,
        title: item.title,
        mimeType: 'text/markdown',
      }))
    })
  }

  const read = async (
    kind: Kind,
    projectId: unknown,
    id: unknown,
    uri: string,
  ): Promise<ReadResourceResult | undefined> => {
    if (typeof projectId !== 'string' || typeof id !== 'string') return undefined
    if (!(await allowed(kind, 'get'))) return undefined
    const item =
      kind === 'documents' ? store.getDocument(projectId, id) : store.getNote(projectId, id)
    if (item === undefined) return undefined
    // The sentinel: the store was read for this caller.
    audit('resource_read', { resource: kind, ...where })
    return { contents: [{ uri, mimeType: 'text/markdown', text: item.body }] }
  }

  const templates: { kind: Kind; template: ResourceTemplate }[] = []
  /** Every read: matched against this session's templates only, one fixed refusal otherwise. */
  const serve = async (uri: string): Promise<ReadResourceResult> => {
    if (uri.length <= MAX_RESOURCE_URI_LENGTH) {
      for (const { kind, template } of templates) {
        const variables = template.uriTemplate.match(uri)
        const served = variables && (await read(kind, variables.projectId, variables.id, uri))
        if (served) return served
      }
    }
    audit('resource_refused', { reason: 'resource_not_found', ...where })
    throw notFound()
  }

  for (const kind of mountedResources(view) as Kind[]) {
    const template = new ResourceTemplate(TEMPLATES[kind], {
      list: async () => ({ resources: await list(kind) }),
    })
    templates.push({ kind, template })
    mcp.registerResource(
      kind,
      template,
      {
        title: kind === 'documents' ? 'Project documents' : 'Project notes',
        description: `One ${kind === 'documents' ? 'document' : 'note'} of a project of the knowledge store.`,
        mimeType: 'text/markdown',
      },
      (uri) => serve(uri.href),
    )
  }

  // The SDK's own read handler answers an unmatched URI with a message that quotes it (and
  // parses it with `new URL` first), so a URI of a kind this route does not mount would differ
  // from a nonexistent one. `serve` answers every read instead.
  mcp.server.removeRequestHandler('resources/read')
  mcp.server.setRequestHandler('resources/read', (request) => serve(request.params.uri))
}

/**
 * The URI templates of the resource kinds `view` mounts: the route head's `resources` surface,
 * so a 2026-07-28 `resources/read` of anything else is refused before its body is read.
 */
export function mountedResourceTemplates(view: RouteView): readonly string[] {
  return (mountedResources(view) as Kind[]).map((kind) => TEMPLATES[kind])
}

function uriOf(kind: Kind, projectId: string, id: string): string {
  return `tollgate://knowledge/${encodeURIComponent(projectId)}/${kind}/${encodeURIComponent(id)}`
}
