import type { IncomingMessage } from 'node:http'
import type { Route } from './surfaces.js'
import type { ServerContext } from './tools/context.js'

/**
 * Who a request acts for. `id` is the owner identity (continuations are bound to it, a session
 * to it); `quotaKey` is what per-principal quotas count against.
 */
export interface Principal {
  readonly id: string
  readonly quotaKey: string
  readonly anonymous: boolean
}

function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization
  if (typeof header !== 'string' || header.length > 300) return undefined
  const match = /^Bearer ([\x21-\x7e]+)$/.exec(header)
  return match?.[1]
}

/**
 * The principal of a request on `route`, from its bearer token; `undefined` when the request
 * is not authenticated (answer 401 without reading the body).
 */
export function authenticateRequest(
  context: ServerContext,
  _route: Route,
  req: IncomingMessage,
): Principal | undefined {
  const token = bearer(req)
  const id = token === undefined ? undefined : context.credentials.authenticate(token)
  return id === undefined ? undefined : { id, quotaKey: id, anonymous: false }
}

/** Whether a request's principal may use a session opened by `opener`. */
export function samePrincipal(opener: Principal, principal: Principal): boolean {
  return opener.anonymous ? principal.anonymous : !principal.anonymous && opener.id === principal.id
}
