import type { AdmissionError } from '@tollgate/json-budget'
import { isAdmissionError } from '@tollgate/json-budget'
import { PREFLIGHT_OPTIONS } from '@tollgate/lexical-preflight'
import {
  BODY_ADMISSION_OPTIONS,
  type BodyAdmissionOptions,
  type BodyPolicy,
  typeShorthand,
} from './body-options.js'
import { admissionError } from './codes.js'
import { parseContentLength } from './content-length.js'
import { type AdmitResult, readBody, type SkipReason, skippedResult } from './core.js'
import { type BodyEncoding, parseContentEncoding } from './inflate.js'
import { parseByteLimit } from './limit.js'
import { matchMediaType } from './media-type.js'
import { holdFleetBody } from './principal-shares.js'
import type { BodySource } from './read-source.js'

/** The parts of a request head a body admission decides on, whatever the framework. */
export interface RequestHead {
  readonly method: string | undefined
  readonly contentType: string | undefined | null
  readonly contentLength: string | readonly string[] | undefined | null
  readonly contentEncoding: string | undefined | null
  /** Whether the transport says a body follows (chunked, or a length was sent). */
  readonly hasBody: boolean
  /**
   * The host has already accepted the media type (body-parser's `type` function did): any
   * type is taken, a charset other than UTF-8 still refused. Default: false.
   */
  readonly typeAccepted?: boolean
}

/**
 * One complete decision about a request head: pass it through unread (`skip`, with the
 * reason), refuse it before a body byte is read (`refuse`), or read its body (`admit`, with
 * the declared length and the encoding to inflate).
 */
export type BodyDecision =
  | { readonly action: 'skip'; readonly reason: SkipReason }
  | { readonly action: 'refuse'; readonly error: AdmissionError }
  | {
      readonly action: 'admit'
      /** The parsed `Content-Length`, when one was sent (never above `maxBytes`). */
      readonly declaredLength: number | undefined
      /** The `Content-Encoding` to inflate, when there is one. */
      readonly encoding: BodyEncoding | undefined
    }

/** The per-call facts of one admission: never options of the control. */
export interface AdmitCall {
  /**
   * The key this body is counted under for per-principal shares (a credential, tenant or
   * client address; at most 1,024 characters). Unset, no share applies. Never put in a
   * response.
   */
  readonly principal?: string | undefined
  /**
   * The pool `principal` belongs to (`'anonymous'` for every caller without a credential, keyed
   * each by its address): the pool together is held to one principal's share
   * (`maxBodiesPerPrincipal`, `principalShare`), and each of its principals to
   * `poolMemberShare` of that, so the pool can never take the others' budget and one member
   * never the whole pool. Unset: the principal is held to a principal's share alone. At most
   * 1,024 characters; only with `principal`.
   */
  readonly pool?: string | undefined
  /** Aborting it stops the read with `ERR_BODY_ABORTED` (the client went away). */
  readonly signal?: AbortSignal | undefined
  /**
   * The name of the route this body arrived on, as the host configured it (never the request's
   * path): reported as `route` in the control's refusal events, nothing else.
   */
  readonly route?: string | undefined
  /** Hand on the admitted bytes for this call even when the control's `keepRaw` is off. */
  readonly keepRaw?: boolean | undefined
  /**
   * A lower cap for this call, in bytes (received, or inflated), judged as chunks arrive like
   * the control's `maxBytes` (`ERR_BODY_TOO_LARGE` with this `limit`): a route's cap for the
   * operation the request's head names. Never raises the control's `maxBytes`. Unset: the
   * control's alone.
   */
  readonly maxBytes?: number | undefined
}

/**
 * A body admission control: built once by {@link bodyAdmission}, frozen, and holding its
 * resolved {@link BodyPolicy}. Hosts (the middleware, `json()`, the node and web adapters, the
 * MCP HTTP path) hold one and pass the per-call facts.
 */
export interface BodyAdmission {
  /** The resolved policy (frozen). */
  readonly policy: BodyPolicy
  /**
   * Decides about a request head, once, in this order: a method in `passMethods` (skip),
   * `Content-Length` syntax (refuse `ERR_BODY_INVALID_LENGTH`), no body (skip), the media type
   * and charset (refuse `ERR_BODY_MEDIA_TYPE`, or skip with `otherTypes: 'pass'`), the
   * `Content-Encoding` (refuse `ERR_BODY_ENCODING`), and a declared length above `maxBytes`
   * (refuse `ERR_BODY_TOO_LARGE`). Never throws for anything the client sends.
   */
  classify(head: RequestHead): BodyDecision
  /**
   * Admits the body of `source` as `decision` says (`classify`'s; omitted, a body with no
   * declared length and no encoding): counts the bytes actually received, runs the preflight
   * on each chunk, enforces the deadlines, the minimum rate, the in-flight budget and the
   * call's principal share, and decodes once. A `skip` decision resolves to `{ ok: true,
   * skipped }` and a `refuse` one to its failure, the source unread. On refusal a `Readable`
   * source is paused, not drained. Never rejects for anything the client sends.
   * @throws TypeError (as a rejection) when `call.principal` is not a string of at most 1,024
   *   characters.
   */
  admit(source: BodySource, decision?: BodyDecision, call?: AdmitCall): Promise<AdmitResult>
}

const ADMIT_PLAIN: BodyDecision = Object.freeze({
  action: 'admit',
  declaredLength: undefined,
  encoding: undefined,
})
const ANY_TYPE: readonly string[] = Object.freeze(['*/*'])
const NO_CALL: AdmitCall = Object.freeze({})

/**
 * Builds a body admission control from its options ({@link BODY_ADMISSION_OPTIONS}), validated
 * once: bad configuration fails here, at start-up, never on a request.
 * @throws TypeError naming the option: an unknown option, a bad value, `maxBytes` (or `limit`)
 *   above 64 MiB, `limit` with `maxBytes`, or `type` with `types`.
 */
export function bodyAdmission(options?: BodyAdmissionOptions): BodyAdmission {
  const policy = resolveBodyPolicy(options)
  const skips = new Map<SkipReason, BodyDecision>()
  const skip = (reason: SkipReason): BodyDecision => {
    let decision = skips.get(reason)
    if (decision === undefined) {
      decision = Object.freeze({ action: 'skip', reason })
      skips.set(reason, decision)
    }
    return decision
  }
  const classify = (head: RequestHead): BodyDecision => {
    try {
      if (policy.passMethods.includes((head.method ?? 'GET').toUpperCase())) return skip('method')
      const declaredLength = parseContentLength(head.contentLength)
      if (!head.hasBody || declaredLength === 0) return skip('no-body')
      const types = head.typeAccepted === true ? ANY_TYPE : policy.types
      if (matchMediaType(head.contentType, types) === 'other') {
        if (policy.otherTypes === 'pass') return skip('media-type')
        throw admissionError('ERR_BODY_MEDIA_TYPE')
      }
      const encoding = parseContentEncoding(head.contentEncoding, policy.inflate)
      if (declaredLength !== undefined && declaredLength > policy.maxBytes) {
        throw admissionError('ERR_BODY_TOO_LARGE', {
          limit: policy.maxBytes,
          observed: declaredLength,
        })
      }
      if (declaredLength === undefined && encoding === undefined) return ADMIT_PLAIN
      return Object.freeze({ action: 'admit', declaredLength, encoding })
    } catch (error) {
      if (isAdmissionError(error)) return Object.freeze({ action: 'refuse', error })
      throw error
    }
  }
  const admit = (
    source: BodySource,
    decision: BodyDecision = ADMIT_PLAIN,
    call: AdmitCall = NO_CALL,
  ): Promise<AdmitResult> => {
    if (decision.action === 'skip') return Promise.resolve(skippedResult(decision.reason))
    if (decision.action === 'refuse') return Promise.resolve({ ok: false, error: decision.error })
    const principal = call.principal
    if (principal !== undefined && (typeof principal !== 'string' || principal.length > 1024)) {
      return Promise.reject(
        new TypeError('principal must be a string of at most 1024 characters, or undefined'),
      )
    }
    const cap = call.maxBytes
    if (cap !== undefined && !(Number.isSafeInteger(cap) && cap > 0)) {
      return Promise.reject(new TypeError('maxBytes of a call must be a positive integer'))
    }
    const pool = call.pool
    if (pool !== undefined && (typeof pool !== 'string' || pool.length > 1024)) {
      return Promise.reject(
        new TypeError('pool must be a string of at most 1024 characters, or undefined'),
      )
    }
    const fleet = policy.fleetBodies
    if (fleet === undefined || principal === undefined) {
      return readBody(source, policy, decision, call)
    }
    return admitInFleet(source, decision, call, principal)
  }
  // The fleet-wide place is taken before a byte is read (a refusal leaves the source unread)
  // and given back once the body has ended or failed, whatever the outcome.
  const admitInFleet = async (
    source: BodySource,
    decision: BodyDecision & { action: 'admit' },
    call: AdmitCall,
    principal: string,
  ): Promise<AdmitResult> => {
    const held = await holdFleetBody(policy.fleetBodies!, principal, call.pool)
    if (isAdmissionError(held)) return { ok: false, error: held }
    try {
      return await readBody(source, policy, decision, call)
    } finally {
      held.release()
    }
  }
  return Object.freeze({ policy, classify, admit })
}

/** Validates the options, applies the cross-option rules and freezes the policy. */
function resolveBodyPolicy(options: BodyAdmissionOptions | undefined): BodyPolicy {
  const o = BODY_ADMISSION_OPTIONS.resolve(options)
  const given = options ?? {}
  if (given.limit !== undefined && given.maxBytes !== undefined) {
    throw new TypeError('limit and maxBytes are the same option; give one')
  }
  if (given.type !== undefined && given.types !== undefined) {
    throw new TypeError('type and types are the same option; give one')
  }
  const maxBytes = o.limit === undefined ? o.maxBytes : parseByteLimit('limit', o.limit)
  const ceiling = BODY_ADMISSION_OPTIONS.rows.maxBytes.ceiling as number
  if (maxBytes > ceiling) {
    // Named as the caller wrote it: `json({ limit: '200mb' })` is about `limit`.
    const name = given.limit === undefined ? 'maxBytes' : 'limit'
    throw new TypeError(`${name} may not exceed ${ceiling}, got ${maxBytes}`)
  }
  const types =
    o.type === undefined
      ? o.types
      : Object.freeze(
          (typeof o.type === 'string' ? [o.type] : o.type).map((t) =>
            typeShorthand(t).toLowerCase(),
          ),
        )
  // The preflight reads its own options (limits and policies) and nothing else.
  const preflight = PREFLIGHT_OPTIONS.pick({ ...o, maxBytes })
  return Object.freeze({ ...o, maxBytes, types, preflight })
}
