// The one client-visible refusal of redemption. A third outcome meaning "valid token, wrong
// route" would tell any token holder that this host serves some other mount where the token
// works; so every refusal is this frozen object and the reason goes to audit only.

/**
 * The one redemption refusal: unknown, expired, wrong owner, route not authorized, capability
 * revoked, unrecorded target, invalid record and store unavailable all return this same frozen
 * object (`===`, its `error` frozen too), so its serialization is byte-identical whatever the
 * reason.
 */
export const CONTINUATION_REFUSED: Readonly<{
  ok: false
  error: Readonly<{ code: 'ERR_CONTINUATION_EXPIRED_OR_UNKNOWN'; message: string }>
}> = Object.freeze({
  ok: false,
  error: Object.freeze({
    code: 'ERR_CONTINUATION_EXPIRED_OR_UNKNOWN',
    message: 'The continuation is expired or unknown.',
  } as const),
} as const)

/** Why a redemption was refused; recorded in the audit event, never answered. */
export type ContinuationRefusalReason =
  | 'continuation_unknown'
  | 'continuation_expired'
  | 'continuation_owner_mismatch'
  | 'continuation_route_not_authorized'
  | 'continuation_capability_revoked'
  | 'continuation_target_unrecorded'
  | 'continuation_record_invalid'
  | 'continuation_store_unavailable'

/** Every refusal reason, in the order redemption checks them (frozen). */
export const CONTINUATION_REFUSAL_REASONS: readonly ContinuationRefusalReason[] = Object.freeze([
  'continuation_unknown',
  'continuation_store_unavailable',
  'continuation_record_invalid',
  'continuation_expired',
  'continuation_owner_mismatch',
  'continuation_target_unrecorded',
  'continuation_route_not_authorized',
  'continuation_capability_revoked',
] as const)

/**
 * Why a mint failed; returned to the server, which maps it. `ERR_CONTINUATION_STORE_FULL`: the
 * store's global cap is reached by other owners' live entries and the minting owner holds none
 * it could give up (the store never evicts another owner's entry).
 */
export type MintFailureCode =
  | 'ERR_CONTINUATION_STORE_UNAVAILABLE'
  | 'ERR_CONTINUATION_TOO_LARGE'
  | 'ERR_CONTINUATION_STORE_FULL'
