import { randomUUID } from 'node:crypto'
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

/** The owner-id prefix of anonymous principals; credential ids cannot contain `:`. */
export const ANONYMOUS_PREFIX = 'anonymous:'

/** The one quota key every anonymous principal counts against (sessions, continuations). */
export const ANONYMOUS_QUOTA_KEY = 'anonymous'

/**
 * The principal of a request on `route`, from its bearer token; `undefined` when the request
 * is not authenticated (answer 401 without reading the body). A request with **no**
 * `Authorization` header on a route that admits anonymous callers is an anonymous principal
 * with a fresh id, so nothing it mints is redeemable by another anonymous caller; a header
 * that is present but wrong is never downgraded to anonymous.
 */
export function authenticateRequest(
  context: ServerContext,
  route: Route,
  req: IncomingMessage,
): Principal | undefined {
  if (req.headers.authorization === undefined) {
    return context.anonymousRoutes.has(route.path)
      ? { id: `${ANONYMOUS_PREFIX}${randomUUID()}`, quotaKey: ANONYMOUS_QUOTA_KEY, anonymous: true }
      : undefined
  }
  const token = bearer(req)
  const id = token === undefined ? undefined : context.credentials.authenticate(token)
  return id === undefined ? undefined : { id, quotaKey: id, anonymous: false }
}

/** Whether a request's principal may use a session opened by `opener`. */
export function samePrincipal(opener: Principal, principal: Principal): boolean {
  return opener.anonymous ? principal.anonymous : !principal.anonymous && opener.id === principal.id
}

/**
 * The principal of a stateless (2026-07-28) request. A credential stays itself. An anonymous
 * caller has no session to carry a drawn id from one request to the next, so it is known by
 * its peer address: its quota key is its own (one anonymous caller at its limits leaves
 * another's untouched), and what it mints it can redeem from the same address.
 */
export function statelessPrincipal(principal: Principal, req: IncomingMessage): Principal {
  if (!principal.anonymous) return principal
  const peer = req.socket.remoteAddress ?? 'unknown'
  return {
    id: `${ANONYMOUS_PREFIX}peer:${peer}`,
    quotaKey: `${ANONYMOUS_QUOTA_KEY}@${peer}`,
    anonymous: true,
  }
}
