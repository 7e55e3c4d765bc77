// The byte cap a request's head named, handed from the head-admission step to the body step.
// A 2026-07-28 `tools/call` names its tool in `Mcp-Name` before the body; a tool's cap judged
// only on `Content-Length` would let a chunked body (no declared length) run to the route's
// whole MCP cap. The head step records the cap for the response it will answer; the body step
// counts the bytes against it as they arrive. Keyed by the response object, so an entry lives
// exactly as long as its request, and the hosts that call the two steps pass nothing new.
import type { ServerResponse } from 'node:http'

const caps = new WeakMap<ServerResponse, number>()

/**
 * Records `cap` (bytes) as the body cap of the request `res` answers; `undefined` records none.
 * @internal
 */
export function recordHeadBodyCap(res: ServerResponse, cap: number | undefined): void {
  if (cap === undefined) caps.delete(res)
  else caps.set(res, cap)
}

/**
 * The body cap the head step recorded for the request `res` answers, if any.
 * @internal
 */
export function headBodyCapOf(res: ServerResponse): number | undefined {
  return caps.get(res)
}
