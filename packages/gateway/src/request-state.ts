// The upstream's `requestState` (2026-07-28 multi-round requests), sealed on the way out and
// opened on the way in. The client holds the state between rounds and echoes it back, so what
// comes back is attacker-controlled: without this control a caller could forge a state, replay
// another caller's, or carry one minted for a harmless tool into another call.
//
// The upstream's state travels inside the handle (continuation's sealed handles: HMAC under a
// key ring, bound to the principal, the route, the method and name called, the arguments'
// digest, and an expiry). Nothing is stored, so any instance holding the keys serves the retry
// and no instance has a table a flood of `input_required` rounds could fill; the price is a
// bound on the state's size (`maxHandleBytes`), refused rather than truncated.
//
// Handles are bound to the upstream too (`upstreamId`, the gateway's identity of the server it
// fronts): two gateways that share keys but front different servers must not accept each
// other's handles, or a state minted by one server would be delivered to another. Inside the
// envelope a state is tagged: `u:` an upstream's own state, `p:` a call parked in this instance
// (a 2025-era upstream's requests to its client, carried to a 2026-07-28 caller), so neither
// can be passed off as the other.

import { AsyncLocalStorage } from 'node:async_hooks'
import { createHash } from 'node:crypto'
import {
  createRouteView,
  createToolRegistry,
  type ResolvedTarget,
  type RouteView,
  resolveScoped,
  type SealedHandles,
  type SealingKey,
  sealedHandles,
} from '@tollgate/continuation'
import { REQUEST_STATE_OPTIONS, type RequestStateOptions } from './request-state-options.js'

/** Methods whose result may be `input_required` and whose retry carries `requestState`. */
export const REQUEST_STATE_METHODS: ReadonlySet<string> = new Set([
  'tools/call',
  'prompts/get',
  'resources/read',
])

/** Per-request facts: who calls, on which route. */
export interface RequestStateCall {
  /** The caller's principal key (a hash; never a token). */
  readonly principal: string
  /** The route the request arrived on (its path; `stdio` for the stdio front). */
  readonly route: string
}

/** Why an incoming `requestState` was refused: the code answered, and the limit when there is one. */
export type RequestStateRefusalCode =
  | 'ERR_REQUEST_STATE_INVALID'
  | 'ERR_REQUEST_STATE_EXPIRED'
  | 'ERR_REQUEST_STATE_TOO_LARGE'

/** The result of {@link RequestStateSeal.open}. */
export type OpenedState =
  | {
      readonly ok: true
      /** The params to forward, the upstream's own state in place of the handle. */
      readonly params: Readonly<Record<string, unknown>> | undefined
      /** The id of the parked call the handle names (then `params` are the caller's, unopened). */
      readonly parked?: string | undefined
    }
  | {
      readonly ok: false
      readonly code: RequestStateRefusalCode
      readonly limit?: number
      /** The precise reason (continuation's refusal reason), for the audit line only. */
      readonly reason: string
      /** The key id the handle named, when it named a key (audit only). */
      readonly keyId?: string | undefined
    }

/** The result of {@link RequestStateSeal.seal}. */
export type SealedState =
  | { readonly ok: true; readonly result: unknown }
  | {
      readonly ok: false
      readonly code: 'ERR_UPSTREAM_STATE_TOO_LARGE' | 'ERR_UPSTREAM_INVALID'
      readonly limit?: number
    }

/** The request-state control. Create with {@link requestStateSeal}. */
export interface RequestStateSeal {
  /** The resolved options, key ids only (frozen). */
  readonly options: Readonly<{
    keyIds: readonly string[]
    ttlMs: number
    maxHandleBytes: number
    upstreamId: string
  }>
  /**
   * Opens the `requestState` of an incoming request. Without one, the params come back as
   * they are; with one, on a method of {@link REQUEST_STATE_METHODS}, the handle must open
   * for this principal, route, method, name and arguments, and the params come back (a new
   * object) carrying the upstream's own state. Anything else is refused: a handle that is
   * not a string, forged, tampered, signed by a key no longer listed, minted for another
   * principal, route, tool or arguments (`ERR_REQUEST_STATE_INVALID`), expired
   * (`ERR_REQUEST_STATE_EXPIRED`), longer than `maxHandleBytes` (`ERR_REQUEST_STATE_TOO_LARGE`),
   * or carried by another method (`ERR_REQUEST_STATE_INVALID`). Never rejects.
   */
  open(
    method: string,
    params: Readonly<Record<string, unknown>> | undefined,
    call: RequestStateCall,
  ): Promise<OpenedState>
  /**
   * Seals the `requestState` of the upstream's `result` to the request (`method`, `params` as
   * the caller sent them). A result without one comes back as it is. A state that is not a
   * string, or one on another method's result, is `ERR_UPSTREAM_INVALID`; one whose handle
   * would pass `maxHandleBytes` is `ERR_UPSTREAM_STATE_TOO_LARGE`: the upstream's state never
   * leaves unsealed.
   */
  seal(
    method: string,
    result: unknown,
    params: Readonly<Record<string, unknown>> | undefined,
    call: RequestStateCall,
  ): SealedState
  /**
   * Seals a handle naming the call `parked` (an id of the gateway's own), bound like any
   * state to the request (`method`, `params` as the caller sent them) and the caller: the
   * `requestState` of an `input_required` result the gateway makes itself. On its way back,
   * {@link RequestStateSeal.open} returns the id as `parked`.
   */
  sealParked(
    method: string,
    parked: string,
    params: Readonly<Record<string, unknown>> | undefined,
    call: RequestStateCall,
  ): SealedState
}

/** The tag of an upstream's own state inside the envelope. */
const UPSTREAM_TAG = 'u:'
/** The tag of a parked call's id inside the envelope. */
const PARKED_TAG = 'p:'

/** Most (route, target) views kept; the set is bounded by routes × served names anyway. */
const MAX_VIEWS = 4096

/**
 * Builds the request-state control over `@tollgate/continuation`'s sealed handles.
 * @throws TypeError at construction on an unknown option, missing or bad `keys` (fewer than 1
 *   or more than 16, an id outside `[A-Za-z0-9_-]{1,32}`, a repeated id, a secret under 32
 *   bytes), a `ttlMs` or `maxHandleBytes` that is not a positive safe integer, or a
 *   `maxHandleBytes` above 1 MiB.
 */
export function requestStateSeal(options: RequestStateOptions): RequestStateSeal {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('requestStateSeal: options must be an object')
  }
  const { keys, ttlMs, maxHandleBytes, upstreamId, now } = REQUEST_STATE_OPTIONS.resolve(options)
  // Refusal reasons reach the gateway through the audit sink; the store scopes each to the
  // open() call that raised it, however many opens are in flight.
  const reasons = new AsyncLocalStorage<{ reason?: string; keyId?: string | undefined }>()
  const handles: SealedHandles = sealedHandles({
    keys: keys as readonly SealingKey[],
    ttlMs,
    maxHandleLength: maxHandleBytes,
    now,
    audit: {
      record(event) {
        if (event.event !== 'sealed_handle_refused') return
        const slot = reasons.getStore()
        if (slot !== undefined) {
          slot.reason = event.reason
          slot.keyId = event.keyId
        }
      },
    },
  })
  const views = new Map<string, { view: RouteView; target: ResolvedTarget }>()
  // The continuation's name grammar is lower-case ASCII; an upstream's names are not. The
  // sealed target is a digest of the upstream, the method and the name, so any name binds,
  // none is readable, and a handle sealed in front of another upstream names another target.
  const bind = (method: string, name: string, route: string) => {
    const target = `t${createHash('sha256').update(`${upstreamId}\u0000${method}\u0000${name}`, 'utf8').digest('hex').slice(0, 40)}`
    const key = `${route}\u0000${target}`
    let entry = views.get(key)
    if (entry === undefined) {
      const view = createRouteView({
        name: route,
        registry: createToolRegistry([{ name: target, tier: 'read' }]),
        mount: [target],
        ceiling: 'read',
      })
      const resolved = resolveScoped(view, { kind: 'tool', name: target }, undefined)
      if (!resolved.ok) throw new Error('unreachable: a view always serves its one target')
      if (views.size >= MAX_VIEWS) views.clear()
      entry = { view, target: resolved.target }
      views.set(key, entry)
    }
    return entry
  }
  const nameOf = (method: string, params: Readonly<Record<string, unknown>> | undefined) =>
    method === 'resources/read' ? params?.uri : params?.name
  const argumentsOf = (method: string, params: Readonly<Record<string, unknown>> | undefined) =>
    method === 'resources/read' ? undefined : params?.arguments

  const control: RequestStateSeal = {
    options: Object.freeze({ keyIds: handles.options.keyIds, ttlMs, maxHandleBytes, upstreamId }),

    async open(method, params, call): Promise<OpenedState> {
      if (params === undefined || !Object.hasOwn(params, 'requestState')) {
        return { ok: true, params }
      }
      const state = params.requestState
      const invalid = (reason: string): OpenedState => ({
        ok: false,
        code: 'ERR_REQUEST_STATE_INVALID',
        reason,
      })
      if (!REQUEST_STATE_METHODS.has(method)) return invalid('method_takes_no_state')
      if (typeof state !== 'string') return invalid('handle_malformed')
      // Before any grammar, base64 or JSON work: an over-long value costs one comparison.
      if (state.length > maxHandleBytes) {
        return {
          ok: false,
          code: 'ERR_REQUEST_STATE_TOO_LARGE',
          limit: maxHandleBytes,
          reason: 'handle_too_long',
        }
      }
      const name = nameOf(method, params)
      if (typeof name !== 'string') return invalid('handle_tool_mismatch')
      const { view, target } = bind(method, name, call.route)
      const slot: { reason?: string; keyId?: string | undefined } = {}
      const opened = await reasons.run(slot, () =>
        handles.open(state, {
          kind: 'requestState',
          principal: call.principal,
          route: view,
          permissions: undefined,
          call: { tool: target.name, arguments: argumentsOf(method, params) },
        }),
      )
      if (opened.ok) {
        const inner = opened.state
        if (inner.startsWith(PARKED_TAG)) {
          return { ok: true, params, parked: inner.slice(PARKED_TAG.length) }
        }
        if (inner.startsWith(UPSTREAM_TAG)) {
          return {
            ok: true,
            params: { ...params, requestState: inner.slice(UPSTREAM_TAG.length) },
          }
        }
        return invalid('handle_malformed')
      }
      const reason = slot.reason ?? 'handle_refused'
      return {
        ok: false,
        code:
          reason === 'handle_expired' ? 'ERR_REQUEST_STATE_EXPIRED' : 'ERR_REQUEST_STATE_INVALID',
        reason,
        keyId: slot.keyId,
      }
    },

    seal(method, result, params, call): SealedState {
      if (result === null || typeof result !== 'object' || Array.isArray(result)) {
        return { ok: true, result }
      }
      const r = result as Record<string, unknown>
      if (!Object.hasOwn(r, 'requestState')) return { ok: true, result }
      const name = nameOf(method, params)
      if (
        !REQUEST_STATE_METHODS.has(method) ||
        typeof r.requestState !== 'string' ||
        typeof name !== 'string'
      ) {
        return { ok: false, code: 'ERR_UPSTREAM_INVALID' }
      }
      const sealed = sealInner(method, `${UPSTREAM_TAG}${r.requestState}`, name, params, call)
      if (sealed.ok) return { ok: true, result: { ...r, requestState: sealed.handle } }
      return sealed
    },

    sealParked(method, parked, params, call): SealedState {
      const name = nameOf(method, params)
      if (!REQUEST_STATE_METHODS.has(method) || typeof name !== 'string') {
        return { ok: false, code: 'ERR_UPSTREAM_INVALID' }
      }
      const sealed = sealInner(method, `${PARKED_TAG}${parked}`, name, params, call)
      return sealed.ok ? { ok: true, result: sealed.handle } : sealed
    },
  }

  function sealInner(
    method: string,
    state: string,
    name: string,
    params: Readonly<Record<string, unknown>> | undefined,
    call: RequestStateCall,
  ): { readonly ok: true; readonly handle: string } | Extract<SealedState, { readonly ok: false }> {
    const { view, target } = bind(method, name, call.route)
    const sealed = handles.seal({
      kind: 'requestState',
      state,
      principal: call.principal,
      route: view,
      target,
      arguments: argumentsOf(method, params),
    })
    if (sealed.ok) return { ok: true, handle: sealed.handle }
    return sealed.error.code === 'ERR_SEALED_HANDLE_TOO_LARGE'
      ? { ok: false, code: 'ERR_UPSTREAM_STATE_TOO_LARGE', limit: maxHandleBytes }
      : { ok: false, code: 'ERR_UPSTREAM_INVALID' }
  }
  return Object.freeze(control)
}
