// The one client-visible refusal of a sealed handle, and the reasons only audit sees. A handle
// that fails for "another principal" but not for "bad MAC" would tell a holder which handles
// are genuine; so every failure is this one frozen object.

/**
 * The one refusal of `open()`: malformed, over-long, unknown key, bad MAC, expired, another
 * kind, principal, route, tool or argument set, a target the route no longer authorizes, a
 * revoked capability, a revoked handle and a revocation store that is down all return this
 * same frozen object (`===`, its `error` frozen too), so its serialization is byte-identical.
 */
export const SEALED_HANDLE_REFUSED: Readonly<{
  ok: false
  error: Readonly<{ code: 'ERR_SEALED_HANDLE_REFUSED'; message: string }>
}> = Object.freeze({
  ok: false,
  error: Object.freeze({
    code: 'ERR_SEALED_HANDLE_REFUSED',
    message: 'The handle is expired or invalid.',
  } as const),
} as const)

/** Why a handle was refused; recorded in the audit event, never answered. */
export type SealedHandleRefusalReason =
  | 'handle_too_long'
  | 'handle_malformed'
  | 'handle_unknown_key'
  | 'handle_bad_mac'
  | 'handle_expired'
  | 'handle_kind_mismatch'
  | 'handle_principal_mismatch'
  | 'handle_route_mismatch'
  | 'handle_tool_mismatch'
  | 'handle_arguments_mismatch'
  | 'handle_route_not_authorized'
  | 'handle_capability_revoked'
  | 'handle_revoked'
  | 'handle_revocation_unavailable'

/** Every refusal reason, in the order `open()` checks them (frozen). */
export const SEALED_HANDLE_REFUSAL_REASONS: readonly SealedHandleRefusalReason[] = Object.freeze([
  'handle_too_long',
  'handle_malformed',
  'handle_unknown_key',
  'handle_bad_mac',
  'handle_expired',
  'handle_kind_mismatch',
  'handle_principal_mismatch',
  'handle_route_mismatch',
  'handle_tool_mismatch',
  'handle_arguments_mismatch',
  'handle_route_not_authorized',
  'handle_capability_revoked',
  'handle_revoked',
  'handle_revocation_unavailable',
] as const)

/**
 * Why `seal()` produced no handle; returned to the server, which answers an internal error
 * (the state must not leave unsealed). `ERR_SEALED_HANDLE_TOO_LARGE`: the handle would be
 * longer than `maxHandleLength` (`limit`). `ERR_SEALED_HANDLE_UNSEALABLE`: nothing to bind it
 * to — arguments that are not JSON or nest past 64 containers, or (in the message helpers) a
 * result for a tool the route does not serve or a method other than `tools/call`.
 */
export type SealFailureCode = 'ERR_SEALED_HANDLE_TOO_LARGE' | 'ERR_SEALED_HANDLE_UNSEALABLE'
