// How the HTTP front shapes its answers on each era: the 2026-07-28 statuses, the request id a
// refusal carries, and the event stream an answer turns into when notifications come first.

/** The refusal of a 2026-07-28 request whose `_meta` lacks its client capabilities. */
export const MISSING_CAPABILITIES = Object.freeze({
  code: -32602,
  message: 'Invalid params: _meta must carry io.modelcontextprotocol/clientCapabilities',
})

/** The id of a request (string or number), else `null`. */
export function requestIdOf(message: unknown): string | number | null {
  const m = message as { method?: unknown; id?: unknown } | null
  if (m === null || typeof m !== 'object' || Array.isArray(m) || typeof m.method !== 'string')
    return null
  return typeof m.id === 'string' || typeof m.id === 'number' ? m.id : null
}

/**
 * Whether a 2026-07-28 message is not a request, or is one whose `_meta` carries
 * `io.modelcontextprotocol/clientCapabilities` as an object.
 */
export function declaresCapabilities(message: unknown): boolean {
  const m = message as { method?: unknown; id?: unknown; params?: unknown } | null
  if (m === null || typeof m !== 'object' || typeof m.method !== 'string' || m.id === undefined)
    return true
  const meta = (m.params as { _meta?: unknown } | null | undefined)?._meta as
    | Record<string, unknown>
    | null
    | undefined
  const caps = meta?.['io.modelcontextprotocol/clientCapabilities']
  return caps !== null && typeof caps === 'object' && !Array.isArray(caps)
}

/**
 * The HTTP status of a 2026-07-28 answer, as the revision sets it: 404 for `-32601` (a method
 * the server does not implement), 400 for `-32021` (a client capability the request did not
 * declare), `-32020` and `-32022`; 200 for a result or any other error.
 */
export function modernStatus(response: unknown): number {
  const code = (response as { error?: { code?: unknown } } | undefined)?.error?.code
  if (code === -32601) return 404
  if (code === -32020 || code === -32021 || code === -32022) return 400
  return 200
}

/** Whether an `Accept` header lists `text/event-stream` (or accepts anything). */
export function acceptsEventStream(accept: string | string[] | undefined): boolean {
  const value = Array.isArray(accept) ? accept.join(',') : (accept ?? '')
  return EVENT_STREAM.test(value)
}

/** `text/event-stream` as one media range of a list (parameters after it allowed). */
const EVENT_STREAM = /(?:^|,)\s*text\/event-stream\s*(?:;|,|$)/i

/** One server-sent event carrying a JSON-RPC message. */
export function sseEvent(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`
}
