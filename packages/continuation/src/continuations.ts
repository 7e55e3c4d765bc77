// Continuations: mint binds the owner key and the server-resolved target (and
// action); redeem checks the owner, then re-authorizes the recorded target against the current
// view of the route the redemption arrived on, then serves. Every refusal is one outcome.

import type { AuditSink, ContinuationAuditEvent } from './audit.js'
import {
  type ContinuationsOptions,
  type ResolvedContinuationsOptions,
  resolveContinuationsOptions,
} from './options.js'
import {
  CONTINUATION_REFUSED,
  type ContinuationRefusalReason,
  type MintFailureCode,
} from './outcome.js'
import { decodeRecord, encodeRecord, hashOwnerKey, sameOwner } from './record.js'
import { isResolvedTarget, type ResolvedTarget } from './resolve.js'
import {
  authorizeOnRoute,
  isRouteView,
  type Permissions,
  type RouteView,
  type SurfaceDimension,
} from './route-view.js'
import { assertPool, isContinuationStoreError } from './store.js'
import { createToken, hashToken, isTokenShape } from './token.js'

/** What `mint()` stores. */
export interface MintEntry {
  /** Who minted it (e.g. a hash of the credential); never the route. 1–1,024 characters. */
  readonly ownerKey: string
  /**
   * Whose store quota the entry counts against, when that is not the owner: callers who are
   * each their own owner but share one quota (every anonymous caller of a server, say), so
   * many of them cannot take more of the store than one credential. 1–1,024 characters.
   * Default: `ownerKey`. Redemption never reads it: only `ownerKey` decides who may redeem.
   */
  readonly quotaKey?: string
  /**
   * The pool the quota owner belongs to (`'anonymous'` for every caller without a credential,
   * each its own quota owner): the pool together holds one owner's store quota and each owner
   * in it a share (the store's `poolMemberShare`), so many addresses cannot fill the store
   * that credentials' tokens live in. Default: none. Redemption never reads it.
   */
  readonly pool?: string
  /** The target `resolveScoped()` returned for the call that produced the payload. */
  readonly target: ResolvedTarget
  /** The heavy result, as the text the server will serve. */
  readonly payload: string
}

/** Why `mint()` did not store a payload: a code the server maps, and the store's limit when one was reached. */
export interface MintFailure {
  readonly code: MintFailureCode
  /** The limit that was passed (`maxPayloadBytes`, or the store's cap), when known. */
  readonly limit?: number
}

/** The result of `mint()`: a token, or an `error` the server maps (the payload is not stored). */
export type MintResult =
  | { readonly ok: true; readonly token: string; readonly expiresAt: number }
  | { readonly ok: false; readonly error: MintFailure }

/** Who is redeeming, where. Nothing else is read: an `action` here is ignored. */
export interface RedeemContext {
  /** The caller's owner key, derived exactly as at mint. */
  readonly ownerKey: string
  /** The current view of the route the redemption arrived on. */
  readonly route: RouteView
  /** The capabilities the caller holds now; missing means none. */
  readonly permissions: Permissions | undefined
}

/** The result of `redeem()`. */
export type RedeemResult =
  | {
      readonly ok: true
      readonly payload: string
      /** The target recorded at mint. */
      readonly target: string
      /** The action recorded at mint (never one from the redemption call). */
      readonly action: string | undefined
    }
  | typeof CONTINUATION_REFUSED

/** The continuation service. Create with {@link createContinuations}. */
export interface Continuations {
  /** The resolved options (frozen). */
  readonly options: ResolvedContinuationsOptions
  /** Whether a payload of `payload` (text, or its UTF-8 byte length) exceeds `thresholdBytes`. */
  isHeavy(payload: string | number): boolean
  /**
   * Stores `entry` and returns a token. Never throws for a store failure. The store's per-owner
   * quota applies: at the owner's quota the owner's least recently used (memory) or oldest
   * (Redis) entry is evicted; `ERR_CONTINUATION_STORE_FULL` when only other owners' entries
   * could make room.
   */
  mint(entry: MintEntry): Promise<MintResult>
  /** Serves the entry of `token`, or returns `CONTINUATION_REFUSED`. Never throws for a store failure. */
  redeem(token: unknown, context: RedeemContext): Promise<RedeemResult>
}

const MAX_OWNER_KEY = 1024

/**
 * Creates the continuation service. Throws a `TypeError` at construction on bad options (see
 * `resolveContinuationsOptions`). `mint` throws a `TypeError` only for programming errors: a
 * target not returned by `resolveScoped()`, an owner key that is not 1–1,024 characters, a
 * pool name the stores refuse, or a payload that is not a string. `redeem` throws a `TypeError` only for a route not made by
 * `createRouteView()`.
 */
export function createContinuations(
  options: ContinuationsOptions | ResolvedContinuationsOptions = {},
): Continuations {
  const opts = resolveContinuationsOptions(options)
  const { store, ttlMs, now } = opts
  const emit = (event: ContinuationAuditEvent) => audit(opts.audit, event)

  const refuse = (
    reason: ContinuationRefusalReason,
    route: RouteView,
    tokenHash: string | undefined,
    target?: string,
    dimension?: SurfaceDimension,
  ) => {
    emit({ event: 'continuation_refused', reason, tokenHash, route: route.name, target, dimension })
    return CONTINUATION_REFUSED
  }

  return Object.freeze({
    options: opts,
    isHeavy(payload: string | number) {
      const bytes = typeof payload === 'number' ? payload : Buffer.byteLength(payload, 'utf8')
      return bytes > opts.thresholdBytes
    },

    async mint(entry: MintEntry): Promise<MintResult> {
      const { ownerKey, quotaKey, pool, target, payload } = entry ?? ({} as MintEntry)
      if (!isResolvedTarget(target)) throw new TypeError('target must come from resolveScoped()')
      assertOwnerKey(ownerKey)
      if (quotaKey !== undefined) assertOwnerKey(quotaKey, 'quotaKey')
      assertPool(pool)
      if (typeof payload !== 'string') throw new TypeError('payload must be a string')
      const bytes = Buffer.byteLength(payload, 'utf8')
      // Bind the child the server resolved, never the outer dispatcher name: a token minted
      // through a dispatcher must not redeem as the dispatcher.
      const recorded = target.name
      const fail = (code: MintFailureCode, limit?: number): MintResult => {
        emit({ event: 'continuation_mint_failed', code, target: recorded, bytes })
        const error: MintFailure = limit === undefined ? { code } : { code, limit }
        return { ok: false, error: Object.freeze(error) }
      }
      if (bytes > opts.maxPayloadBytes) {
        return fail('ERR_CONTINUATION_TOO_LARGE', opts.maxPayloadBytes)
      }
      const token = createToken()
      const tokenHash = hashToken(token)
      const expiresAt = now() + ttlMs
      const ownerHash = hashOwnerKey(ownerKey)
      const value = encodeRecord({
        ownerHash,
        target: recorded,
        action: target.action,
        expiresAt,
        payload,
      })
      try {
        // A hash, never the key: the store's quota is per quota owner (the owner unless a
        // quotaKey is given), and only that owner's entries may be evicted for this one.
        await store.set(
          tokenHash,
          value,
          ttlMs,
          quotaKey === undefined ? ownerHash : hashOwnerKey(quotaKey),
          pool,
        )
      } catch (error) {
        const known = isContinuationStoreError(error) ? error : undefined
        const code = known?.code
        return code === 'ERR_CONTINUATION_TOO_LARGE' || code === 'ERR_CONTINUATION_STORE_FULL'
          ? fail(code, typeof known?.limit === 'number' ? known.limit : undefined)
          : fail('ERR_CONTINUATION_STORE_UNAVAILABLE')
      }
      emit({ event: 'continuation_minted', tokenHash, target: recorded, bytes, expiresAt })
      return { ok: true, token, expiresAt }
    },

    async redeem(token: unknown, context: RedeemContext): Promise<RedeemResult> {
      const route = context?.route
      if (!isRouteView(route)) throw new TypeError('route must come from createRouteView()')
      const ownerKey = context.ownerKey
      const permissions = context.permissions
      if (!isTokenShape(token)) return refuse('continuation_unknown', route, undefined)
      const tokenHash = hashToken(token)
      let text: string | undefined
      try {
        text = await store.get(tokenHash)
      } catch {
        return refuse('continuation_store_unavailable', route, tokenHash)
      }
      if (text === undefined) return refuse('continuation_unknown', route, tokenHash)
      const record = decodeRecord(text)
      if (record === undefined) return refuse('continuation_record_invalid', route, tokenHash)
      if (record.expiresAt <= now()) return refuse('continuation_expired', route, tokenHash)
      // Who minted it. The route is not part of the owner key: the same caller may redeem on
      // another route that authorizes the target.
      if (typeof ownerKey !== 'string' || !sameOwner(hashOwnerKey(ownerKey), record.ownerHash)) {
        return refuse('continuation_owner_mismatch', route, tokenHash)
      }
      // An entry without a recorded target cannot be re-authorized.
      const target = record.target
      if (target === undefined) return refuse('continuation_target_unrecorded', route, tokenHash)
      // The recorded target against the current view of this route, all four dimensions.
      const dimension = authorizeOnRoute(route, target, permissions)
      if (dimension !== undefined) {
        const reason =
          dimension === 'capability'
            ? 'continuation_capability_revoked'
            : 'continuation_route_not_authorized'
        return refuse(reason, route, tokenHash, target, dimension)
      }
      emit({ event: 'continuation_served', tokenHash, route: route.name, target })
      return { ok: true, payload: record.payload, target, action: record.action }
    },
  })
}

function assertOwnerKey(ownerKey: unknown, name = 'ownerKey'): asserts ownerKey is string {
  if (typeof ownerKey !== 'string' || ownerKey.length === 0 || ownerKey.length > MAX_OWNER_KEY) {
    throw new TypeError(`${name} must be a string of 1–1,024 characters`)
  }
}

function audit(sink: AuditSink | undefined, event: ContinuationAuditEvent): void {
  if (sink === undefined) return
  try {
    sink.record(Object.freeze(event))
  } catch {
    // An audit sink that throws must not turn a refusal into a crash or a different outcome.
  }
}
