// A workaround for a defect in @modelcontextprotocol/sdk 1.32.2 (the version this was written
// against; checked in 1.32.x), confined to this one module because it reads the SDK's private
// fields.
//
// The defect: in JSON-response mode (`enableJsonResponse: true`),
// `WebStandardStreamableHTTPServerTransport.handlePostRequest` stores
// `{ resolveJson, cleanup }` in its private `_streamMapping` for every POST that carries a
// request, and `send()` resolves the JSON response and clears `_requestToStreamMapping` /
// `_requestResponseMap` but never calls that entry's `cleanup()`. The entry's closures share
// the scope that holds the request's parsed messages, so every POST body stays reachable until
// the session closes: an unbounded per-session memory DoS through any body cap.
// (SSE mode is clean: `send()` calls `cleanup()` when the last response of a stream is written,
// and a cancelled stream deletes its own entry.)
//
// The release: after `handleRequest` has finished for a POST, call `cleanup()` (which only
// deletes the map entry) on every `_streamMapping` entry that
//   - is a JSON-response entry: `resolveJson` and `cleanup` are functions, no SSE `controller`;
//   - is not the standalone GET stream (`_standaloneSseStreamId`);
//   - has no request id left in `_requestToStreamMapping`, i.e. every response of that POST was
//     sent (the SDK removes the ids in the same synchronous step that resolves the JSON).
// An entry with a pending request keeps its ids in `_requestToStreamMapping` (they are set in
// the same synchronous step that creates the entry), so it is never touched.
//
// Feature detection: when the transport is recognisably the SDK's (its constructor name) but the
// private shapes are not those of 1.32.x, nothing is released and one process warning is emitted
// (`TOLLGATE_SDK_SHAPE`), once per process. A transport that is not the SDK's is left alone
// silently.

/** The private shape of the SDK 1.32.x web-standard transport that the release relies on. */
interface WebStandardShape {
  readonly _enableJsonResponse: boolean
  readonly _standaloneSseStreamId: string
  readonly _streamMapping: Map<unknown, unknown>
  readonly _requestToStreamMapping: Map<unknown, unknown>
}

const SDK_CLASSES = new Set([
  'StreamableHTTPServerTransport',
  'WebStandardStreamableHTTPServerTransport',
])

/** The warning code emitted once when an SDK transport does not have the 1.32.x shape. */
export const SDK_SHAPE_WARNING_CODE = 'TOLLGATE_SDK_SHAPE'

let warned = false

/**
 * Releases the SDK's finished JSON-response entries on `transport` (a
 * `StreamableHTTPServerTransport` or the `WebStandardStreamableHTTPServerTransport` inside it).
 * A workaround for `@modelcontextprotocol/sdk` 1.32.2, which keeps one entry, and through it
 * the request's parsed body, per POST until the session closes. Does nothing in SSE mode, on a
 * transport that is not the SDK's, or when the SDK's private shapes are not those of 1.32.x (then
 * it emits one process warning with code `TOLLGATE_SDK_SHAPE`, once per process).
 * @returns how many entries were released.
 */
export function releaseFinishedJsonResponses(transport: unknown): number {
  if (typeof transport !== 'object' || transport === null) return 0
  const wrapped = (transport as { _webStandardTransport?: unknown })._webStandardTransport
  const inner = typeof wrapped === 'object' && wrapped !== null ? wrapped : transport
  if (!hasShape(inner)) {
    if (isSdkTransport(transport) || isSdkTransport(inner)) warnOnce()
    return 0
  }
  if (inner._enableJsonResponse !== true) return 0 // SSE mode: the SDK cleans up itself.
  const streams = inner._streamMapping
  if (streams.size === 0) return 0
  const pending = new Set(inner._requestToStreamMapping.values())
  let released = 0
  for (const [streamId, entry] of [...streams]) {
    if (streamId === inner._standaloneSseStreamId || pending.has(streamId)) continue
    if (typeof entry !== 'object' || entry === null) continue
    const e = entry as { resolveJson?: unknown; cleanup?: unknown; controller?: unknown }
    if (typeof e.resolveJson !== 'function' || typeof e.cleanup !== 'function') continue
    if (e.controller !== undefined) continue // an SSE stream: never ours to end
    e.cleanup()
    // The 1.32.x cleanup deletes the entry; make sure of it whatever cleanup does.
    if (streams.get(streamId) === entry) streams.delete(streamId)
    released++
  }
  return released
}

function hasShape(t: object): t is WebStandardShape {
  const s = t as Partial<Record<keyof WebStandardShape, unknown>>
  return (
    typeof s._enableJsonResponse === 'boolean' &&
    typeof s._standaloneSseStreamId === 'string' &&
    s._streamMapping instanceof Map &&
    s._requestToStreamMapping instanceof Map
  )
}

function isSdkTransport(t: unknown): boolean {
  if (typeof t !== 'object' || t === null) return false
  const name = (t as { constructor?: { name?: unknown } }).constructor?.name
  return typeof name === 'string' && SDK_CLASSES.has(name)
}

function warnOnce(): void {
  if (warned) return
  warned = true
  process.emitWarning(
    'the MCP SDK transport does not have the private shape of @modelcontextprotocol/sdk 1.32.x; ' +
      'finished JSON-response entries are not released (see the @tollgate/mcp-transport README)',
    { code: SDK_SHAPE_WARNING_CODE },
  )
}
