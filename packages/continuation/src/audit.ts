// Audit events carry the precise reason a response never does. They name the token by its
// SHA-256 (the store key, which cannot be redeemed) and never carry the token, the owner key
// or the payload; a sealed handle is named by its random id and key id, never by the handle,
// its state, the principal or a secret.

import type { ContinuationRefusalReason, MintFailureCode } from './outcome.js'
import type { SurfaceDimension } from './route-view.js'
import type { SealedKind } from './sealed-envelope.js'
import type { SealedHandleRefusalReason, SealFailureCode } from './sealed-outcome.js'

/** One audit event of the continuation service. */
export type ContinuationAuditEvent =
  | {
      readonly event: 'continuation_minted'
      readonly tokenHash: string
      readonly target: string
      readonly bytes: number
      readonly expiresAt: number
    }
  | {
      readonly event: 'continuation_mint_failed'
      readonly code: MintFailureCode
      readonly target: string
      readonly bytes: number
    }
  | {
      readonly event: 'continuation_served'
      readonly tokenHash: string
      readonly route: string
      readonly target: string
    }
  | {
      readonly event: 'continuation_refused'
      readonly reason: ContinuationRefusalReason
      readonly tokenHash: string | undefined
      readonly route: string
      readonly target: string | undefined
      /** For route and capability refusals: which dimension of the surface refused. */
      readonly dimension: SurfaceDimension | undefined
    }
  | {
      readonly event: 'sealed_handle_sealed'
      readonly kind: SealedKind
      /** The handle's random id (not the handle: it cannot be presented). */
      readonly handleId: string
      readonly keyId: string
      readonly route: string
      readonly target: string
      readonly expiresAt: number
    }
  | {
      readonly event: 'sealed_handle_seal_failed'
      readonly code: SealFailureCode
      readonly kind: SealedKind
      readonly route: string
      readonly target: string
    }
  | {
      readonly event: 'sealed_handle_opened'
      readonly kind: SealedKind
      readonly handleId: string
      readonly keyId: string
      readonly route: string
      readonly target: string
    }
  | {
      readonly event: 'sealed_handle_refused'
      readonly reason: SealedHandleRefusalReason
      /** The kind the request presented the handle as. */
      readonly kind: SealedKind
      readonly route: string
      /** Known once the MAC verified (the handle's own), else `undefined`. */
      readonly handleId: string | undefined
      /** The key id the handle named, when it had the grammar to name one. */
      readonly keyId: string | undefined
      readonly target: string | undefined
      readonly dimension: SurfaceDimension | undefined
    }

/** Receives audit events. It must not throw; if it does, the error is swallowed. */
export interface AuditSink {
  record(event: ContinuationAuditEvent): void
}

/** The part of a pino (or pino-compatible) logger the adapter uses. */
export interface PinoLikeLogger {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

/**
 * An {@link AuditSink} writing to a pino-compatible logger: refusals and mint failures at
 * `warn`, mints and serves at `info`, each as `logger.level({ ...event }, event.event)`.
 */
export function pinoAuditSink(logger: PinoLikeLogger): AuditSink {
  if (logger === null || typeof logger !== 'object') throw new TypeError('logger required')
  if (typeof logger.info !== 'function' || typeof logger.warn !== 'function') {
    throw new TypeError('logger must have info() and warn()')
  }
  return Object.freeze({
    record(event: ContinuationAuditEvent) {
      const refused =
        event.event === 'continuation_refused' ||
        event.event === 'continuation_mint_failed' ||
        event.event === 'sealed_handle_refused' ||
        event.event === 'sealed_handle_seal_failed'
      if (refused) logger.warn({ ...event }, event.event)
      else logger.info({ ...event }, event.event)
    },
  })
}
