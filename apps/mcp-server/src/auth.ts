import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { ANONYMOUS_POOL, type CallerKeys } from '@tollgate/http-admission'
import type { Route } from './surfaces.js'
import type { ServerContext } from './tools/context.js'

/**
 * Who a request acts for. `id` is the owner identity (continuations are bound to it, a session
 * to it); `quotaKey` is what per-principal quotas count against: a credential's id, or an
 * anonymous caller's own key (`anonymous@` + its `callerKeys` key: the peer address, IPv6 by
 * /64); `pool` is `'anonymous'` for every anonymous caller, so together they hold one
 * credential's quota and each caller a share of it.
 */
export interface Principal {
  readonly id: string
  readonly quotaKey: string
  readonly anonymous: boolean
  readonly pool?: string | undefined
}

function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization
  if (typeof header !== 'string' || header.length > 300) return undefined
  const match = /^Bearer ([\x21-\x7e]+)$/.exec(header)
  return match?.[1]
}

/** The owner-id prefix of anonymous principals; credential ids cannot contain `:`. */
export const ANONYMOUS_PREFIX = 'anonymous:'

/** The prefix of an anonymous caller's quota key: `anonymous@ip:203.0.113.7`. */
export const ANONYMOUS_QUOTA_KEY = 'anonymous'

/** The quota key of the anonymous caller that sent `req` (one per address, IPv6 per /64). */
export function anonymousQuotaKey(callers: CallerKeys, req: IncomingMessage): string {
  return `${ANONYMOUS_QUOTA_KEY}@${callers.keyOf(req)}`
}

/**
 * The principal of a request on `route`, from its bearer token; `undefined` when the request
 * is not authenticated (answer 401 without reading the body). A request with **no**
 * `Authorization` header on a route that admits anonymous callers is an anonymous principal
 * with a fresh id, so nothing it mints is redeemable by another anonymous caller, and with its
 * caller's own quota key in the anonymous pool (`callers`: one key per address); a header that
 * is present but wrong is never downgraded to anonymous.
 */
export function authenticateRequest(
  context: ServerContext,
  route: Route,
  req: IncomingMessage,
  callers: CallerKeys,
): Principal | undefined {
  if (req.headers.authorization === undefined) {
    return context.anonymousRoutes.has(route.path)
      ? {
          id: `${ANONYMOUS_PREFIX}${randomUUID()}`,
          quotaKey: anonymousQuotaKey(callers, req),
          anonymous: true,
          pool: ANONYMOUS_POOL,
        }
      : undefined
  }
  const token = bearer(req)
  const id = token === undefined ? undefined : context.credentials.authenticate(token)
  return id === undefined ? undefined : { id, quotaKey: id, anonymous: false }
}

/**
 * Whether a request's principal may use a session opened by `opener`: the same credential, or,
 * for a session an anonymous caller opened, an anonymous request from the same caller key (the
 * same address; IPv6 the same /64). Within one caller key the session id is a bearer of the
 * session: anyone behind the same address who holds it may use it.
 */
export function samePrincipal(opener: Principal, principal: Principal): boolean {
  return opener.anonymous
    ? principal.anonymous && opener.quotaKey === principal.quotaKey
    : !principal.anonymous && opener.id === principal.id
}

/**
 * The principal of a stateless (2026-07-28) request. A credential stays itself. An anonymous
 * caller has no session to carry a drawn id from one request to the next, so it is known by
 * its caller key: its quota key is its own (one anonymous caller at its limits leaves
 * another's untouched), and what it mints it can redeem from the same address.
 */
export function statelessPrincipal(principal: Principal): Principal {
  if (!principal.anonymous) return principal
  return {
    id: `${ANONYMOUS_PREFIX}peer:${principal.quotaKey}`,
    quotaKey: principal.quotaKey,
    anonymous: true,
    pool: principal.pool,
  }
}
