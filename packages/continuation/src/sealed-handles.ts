// Sealed handles: a server's `requestState` or task id, wrapped in an authenticated, expiring
// envelope bound to the principal, the route, the server-resolved tool and a digest of the
// call's arguments. Any instance holding the key set opens it: no shared store. On the way
// back the envelope is verified, then the recorded tool is re-authorized against the current
// view of the route, as a continuation is at redemption. Every refusal is one outcome.

import { defineOptions, integerOption, type OptionsOf, option } from '@tollgate/json-budget'
import type { AuditSink, ContinuationAuditEvent } from './audit.js'
import { methodsOption } from './options.js'
import { isResolvedTarget, type ResolvedTarget } from './resolve.js'
import { authorizeOnRoute, isRouteView, type Permissions, type RouteView } from './route-view.js'
import {
  canonicalJson,
  constantTimeMacCheck,
  type MacCheck,
  newHandleId,
  readEnvelope,
  type SealedKind,
  writeEnvelope,
} from './sealed-envelope.js'
import { createKeyRing, type KeyOps, type SealingKey, sameTag } from './sealed-keys.js'
import {
  SEALED_HANDLE_REFUSED,
  type SealedHandleRefusalReason,
  type SealFailureCode,
} from './sealed-outcome.js'
import { CLOCK_ROW } from './store.js'

/** An optional revocation check, consulted last, after a handle verified and was authorized. */
export interface SealedHandleRevocation {
  /** Whether the handle with this id (see the audit events) is revoked. Throwing refuses. */
  isRevoked(handleId: string): boolean | Promise<boolean>
}

/**
 * The options of {@link sealedHandles}, declared once. `keys` is required: newest first, the
 * first key signs and every listed key verifies (until each handle's own expiry); rotate by
 * listing a new key first and dropping the old one `ttlMs` later.
 */
export const SEALED_HANDLES_OPTIONS = defineOptions('sealedHandles', {
  keys: option<readonly SealingKey[] | undefined>({
    default: undefined,
    check: (value, name) => void createKeyRing(value, name),
    shown: 'required',
    doc: 'the key set, newest first: 1–16 `{ id, secret }`, an id of 1–32 characters of `[A-Za-z0-9_-]`, a secret of at least 32 random bytes',
  }),
  ttlMs: option({
    default: 10 * 60 * 1000,
    check: integerOption(),
    doc: 'lifetime of a handle, in ms (10 minutes)',
  }),
  maxHandleLength: option({
    default: 16_384,
    check: integerOption(),
    doc: '`seal` fails with `ERR_SEALED_HANDLE_TOO_LARGE` past it; `open` refuses a longer value before decoding anything',
  }),
  audit: option<AuditSink | undefined>({
    default: undefined,
    check: methodsOption(['record']),
    doc: 'receives every seal, open and refusal with its precise reason',
  }),
  revocation: option<SealedHandleRevocation | undefined>({
    default: undefined,
    check: methodsOption(['isRevoked']),
    doc: 'a revocation check (e.g. over Redis), consulted last',
  }),
  now: CLOCK_ROW,
})

/** Options of {@link sealedHandles} (see {@link SEALED_HANDLES_OPTIONS}); `keys` is required. */
export type SealedHandlesOptions = OptionsOf<typeof SEALED_HANDLES_OPTIONS.rows> & {
  readonly keys: readonly SealingKey[]
}

/** What to seal: the server's state and what it is bound to. */
export interface SealInput {
  /** `requestState` (an `InputRequiredResult`'s) or `task` (a created task's id). */
  readonly kind: SealedKind
  /** The server's value, as it is. */
  readonly state: string
  /** Who the call acts for (e.g. a hash of the credential): 1–1,024 characters. */
  readonly principal: string
  /** The view of the route the call arrived on. */
  readonly route: RouteView
  /** The target `resolveScoped()` returned for the call. */
  readonly target: ResolvedTarget
  /** The call's `arguments` (missing means `{}`); a retry must carry the same, in any key order. */
  readonly arguments?: unknown
}

/** The result of `seal()`. */
export type SealResult =
  | {
      readonly ok: true
      readonly handle: string
      readonly handleId: string
      readonly expiresAt: number
    }
  | {
      readonly ok: false
      readonly error: { readonly code: SealFailureCode; readonly limit?: number }
    }

/** Who presents a handle, where. */
export interface OpenContext {
  /** The kind the request presents it as (`requestState` in a retried call, `task` in `tasks/*`). */
  readonly kind: SealedKind
  /** The caller's principal, derived exactly as at seal. */
  readonly principal: string
  /** The current view of the route the request arrived on. */
  readonly route: RouteView
  /** The capabilities the caller holds now; missing means none. */
  readonly permissions: Permissions | undefined
  /**
   * For a retried call: its tool, resolved as it was for the seal (the `target.name` that
   * `resolveScoped()` gives for this call; `openRequestHandles` uses `params.name`), and its
   * arguments; both must be the sealed ones. Omit for requests that name no tool
   * (`tasks/get`): the recorded tool is still re-authorized.
   */
  readonly call?: { readonly tool: unknown; readonly arguments: unknown }
}

/** The result of `open()`. */
export type OpenResult =
  | {
      readonly ok: true
      /** The server's value, as sealed. */
      readonly state: string
      readonly kind: SealedKind
      /** The tool recorded at seal. */
      readonly target: string
      readonly handleId: string
    }
  | typeof SEALED_HANDLE_REFUSED

/** The sealed-handle control. Create with {@link sealedHandles}. */
export interface SealedHandles {
  /** The resolved options, key ids only (frozen): no secret is reachable from the control. */
  readonly options: Readonly<{
    keyIds: readonly string[]
    ttlMs: number
    maxHandleLength: number
  }>
  /** Seals a state. Throws a `TypeError` only for programming errors (see {@link sealedHandles}). */
  seal(input: SealInput): SealResult
  /** Verifies and re-authorizes a handle; `SEALED_HANDLE_REFUSED` on any failure. Never throws for the handle. */
  open(handle: unknown, context: OpenContext): Promise<OpenResult>
}

const MAX_PRINCIPAL = 1024
const KINDS: readonly SealedKind[] = ['requestState', 'task']

/**
 * Builds the sealed-handle control. Throws a `TypeError` at construction on an unknown option,
 * missing or bad `keys`, a limit that is not a positive safe integer, an audit sink without
 * `record`, a revocation check without `isRevoked`, or a non-function clock. `seal` throws a
 * `TypeError` for a target not returned by `resolveScoped()`, a route not made by
 * `createRouteView()`, a principal that is not 1–1,024 characters, a state that is not a
 * string, or an unknown kind; `open` only for a route not made by `createRouteView()`.
 */
export function sealedHandles(options: SealedHandlesOptions): SealedHandles {
  return buildSealedHandles(options, constantTimeMacCheck)
}

/**
 * The factory behind {@link sealedHandles}, with the MAC check as a parameter so a test can
 * show what removing it lets through. Not exported from the package root.
 */
export function buildSealedHandles(
  options: SealedHandlesOptions,
  macCheck: MacCheck,
): SealedHandles {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('sealedHandles: options must be an object')
  }
  const {
    keys,
    ttlMs,
    maxHandleLength,
    now,
    audit: sink,
    revocation,
  } = SEALED_HANDLES_OPTIONS.resolve(options)
  const ring = createKeyRing(keys)
  const emit = (event: ContinuationAuditEvent) => {
    if (sink === undefined) return
    try {
      sink.record(Object.freeze(event))
    } catch {
      // An audit sink that throws must not change an outcome.
    }
  }
  const argumentsTag = (key: KeyOps, args: unknown): string | undefined => {
    const text = canonicalJson(args === undefined ? {} : args)
    return text === undefined ? undefined : key.tag('arguments', text)
  }

  return Object.freeze({
    options: Object.freeze({ keyIds: ring.ids, ttlMs, maxHandleLength }),

    seal(input: SealInput): SealResult {
      const { kind, state, principal, route, target } = input ?? ({} as SealInput)
      if (!KINDS.includes(kind)) throw new TypeError('kind must be requestState or task')
      if (!isRouteView(route)) throw new TypeError('route must come from createRouteView()')
      if (!isResolvedTarget(target)) throw new TypeError('target must come from resolveScoped()')
      if (!isPrincipal(principal))
        throw new TypeError('principal must be a string of 1–1,024 characters')
      if (typeof state !== 'string') throw new TypeError('state must be a string')
      const fail = (code: SealFailureCode, limit?: number): SealResult => {
        emit({
          event: 'sealed_handle_seal_failed',
          code,
          kind,
          route: route.name,
          target: target.name,
        })
        return { ok: false, error: limit === undefined ? { code } : { code, limit } }
      }
      const key = ring.signer
      const digest = argumentsTag(key, input.arguments)
      if (digest === undefined) return fail('ERR_SEALED_HANDLE_UNSEALABLE')
      // A state longer than the limit can never make a handle that fits: refuse before encoding.
      if (state.length > maxHandleLength)
        return fail('ERR_SEALED_HANDLE_TOO_LARGE', maxHandleLength)
      const handleId = newHandleId()
      const expiresAt = now() + ttlMs
      const handle = writeEnvelope(key, {
        kind,
        handleId,
        expiresAt,
        target: target.name,
        principalTag: key.tag('principal', principal),
        routeTag: key.tag('route', route.name),
        argumentsTag: digest,
        state,
      })
      if (handle.length > maxHandleLength)
        return fail('ERR_SEALED_HANDLE_TOO_LARGE', maxHandleLength)
      emit({
        event: 'sealed_handle_sealed',
        kind,
        handleId,
        keyId: key.id,
        route: route.name,
        target: target.name,
        expiresAt,
      })
      return { ok: true, handle, handleId, expiresAt }
    },

    async open(handle: unknown, context: OpenContext): Promise<OpenResult> {
      const route = context?.route
      if (!isRouteView(route)) throw new TypeError('route must come from createRouteView()')
      const kind: SealedKind = context.kind === 'task' ? 'task' : 'requestState'
      const refuse = (
        reason: SealedHandleRefusalReason,
        known: { handleId?: string; keyId?: string; target?: string } = {},
        dimension?: ReturnType<typeof authorizeOnRoute>,
      ) => {
        emit({
          event: 'sealed_handle_refused',
          reason,
          kind,
          route: route.name,
          handleId: known.handleId,
          keyId: known.keyId,
          target: known.target,
          dimension,
        })
        return SEALED_HANDLE_REFUSED
      }
      const read = readEnvelope(handle, ring, maxHandleLength, macCheck)
      if (!read.ok) return refuse(read.reason, { keyId: read.keyId })
      const { key, body } = read
      const known = { handleId: body.handleId, keyId: key.id, target: body.target }
      if (body.expiresAt <= now()) return refuse('handle_expired', known)
      if (body.kind !== context.kind) return refuse('handle_kind_mismatch', known)
      const principal = context.principal
      if (!isPrincipal(principal) || !sameTag(key.tag('principal', principal), body.principalTag)) {
        return refuse('handle_principal_mismatch', known)
      }
      if (!sameTag(key.tag('route', route.name), body.routeTag)) {
        return refuse('handle_route_mismatch', known)
      }
      const call = context.call
      if (call !== undefined) {
        if (call.tool !== body.target) return refuse('handle_tool_mismatch', known)
        const digest = argumentsTag(key, call.arguments)
        if (digest === undefined || !sameTag(digest, body.argumentsTag)) {
          return refuse('handle_arguments_mismatch', known)
        }
      }
      // The recorded tool against the current view of this route, all four dimensions.
      const dimension = authorizeOnRoute(route, body.target, context.permissions)
      if (dimension !== undefined) {
        const reason =
          dimension === 'capability' ? 'handle_capability_revoked' : 'handle_route_not_authorized'
        return refuse(reason, known, dimension)
      }
      if (revocation !== undefined) {
        let revoked: boolean
        try {
          revoked = (await revocation.isRevoked(body.handleId)) !== false
        } catch {
          return refuse('handle_revocation_unavailable', known)
        }
        if (revoked) return refuse('handle_revoked', known)
      }
      emit({
        event: 'sealed_handle_opened',
        kind: body.kind,
        handleId: body.handleId,
        keyId: key.id,
        route: route.name,
        target: body.target,
      })
      return {
        ok: true,
        state: body.state,
        kind: body.kind,
        target: body.target,
        handleId: body.handleId,
      }
    },
  })
}

function isPrincipal(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_PRINCIPAL
}
