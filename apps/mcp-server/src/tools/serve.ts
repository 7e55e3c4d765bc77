import type { CallToolResult } from '@modelcontextprotocol/server'
import { CONTINUATION_REFUSED, type ResolvedTarget } from '@tollgate/continuation'
import { ANONYMOUS_POOL } from '@tollgate/http-admission'
import { ANONYMOUS_PREFIX, ANONYMOUS_QUOTA_KEY } from '../auth.js'
import type { Capability } from '../config.js'
import type { ServerContext, SessionContext } from './context.js'
import { jsonText, refusal } from './results.js'

/** The owner key of a credential: who minted a continuation. Route identity is never part of it. */
export function ownerKey(credentialId: string): string {
  return `credential:${credentialId}`
}

/**
 * Answers a value produced for a resolved target: as JSON text when it is small, as a
 * continuation token when its compact JSON exceeds the heavy threshold (64 KiB). The entry
 * binds the minting credential and the server-resolved target, never the outer dispatcher.
 */
export async function serveValue(
  server: ServerContext,
  session: SessionContext,
  target: ResolvedTarget,
  value: unknown,
): Promise<CallToolResult> {
  const text = JSON.stringify(value)
  if (!server.continuations.isHeavy(text)) return jsonText(text)
  const minted = await server.continuations.mint({
    ownerKey: ownerKey(session.credentialId),
    // Each anonymous session or request owns its tokens, and they count against its caller's
    // quota (one per address): opening sessions cannot buy a caller more of the store than one
    // credential has, and one anonymous caller's mints never evict another's. Every address
    // is in the anonymous pool, which together holds one credential's quota: many addresses
    // cannot fill the store and lock the credentials out.
    ...(session.credentialId.startsWith(ANONYMOUS_PREFIX)
      ? { quotaKey: ownerKey(session.quotaKey ?? ANONYMOUS_QUOTA_KEY), pool: ANONYMOUS_POOL }
      : {}),
    target,
    payload: text,
  })
  if (!minted.ok) return refusal(minted.error.code)
  return jsonText(
    JSON.stringify({ continuation: { token: minted.token, bytes: Buffer.byteLength(text) } }),
  )
}

/**
 * Redeems a continuation on the route the request arrived on, with the caller's current
 * capabilities (`capabilities`, read by the handler for this call: from Redis with
 * `--redis-url`, so a revocation on any instance refuses the redemption here). Every refusal is the one expired-or-unknown answer; the precise reason is in
 * the audit stream (`continuation_refused` with `reason`).
 */
export async function redeem(
  server: ServerContext,
  session: SessionContext,
  token: string,
  capabilities: ReadonlySet<Capability>,
): Promise<CallToolResult> {
  const served = await server.continuations.redeem(token, {
    ownerKey: ownerKey(session.credentialId),
    route: session.route.view,
    permissions: capabilities,
  })
  return served.ok ? jsonText(served.payload) : refusal(CONTINUATION_REFUSED.error)
}
