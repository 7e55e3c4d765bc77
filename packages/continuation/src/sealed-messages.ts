// Sealed handles on plain JSON-RPC messages, for a host's transport decorator. Where the
// 2026-07-28 revision puts them:
//   - a `tools/call` result `{ resultType: 'input_required', inputRequests?, requestState? }`;
//     the retry is the same `tools/call` with `params.requestState` and `params.inputResponses`;
//   - a `tools/call` result `{ resultType: 'task', taskId, status, ... }` (the tasks extension);
//     the task methods (`tasks/get`, `tasks/update`, `tasks/cancel`) carry `params.taskId`.
// Outgoing values are sealed; incoming ones are opened and replaced by the server's own value,
// or the request is answered with the one refusal and never reaches the server.

import { resolveScoped } from './resolve.js'
import type { Permissions, RouteView } from './route-view.js'
import type { SealedHandles } from './sealed-handles.js'
import type { SealFailureCode } from './sealed-outcome.js'

/** The per-request facts the helpers need: who, on which route, holding what. */
export interface HandleCall {
  /** The caller's principal (a credential hash; an anonymous caller's own key). */
  readonly principal: string
  /** The current view of the route the request arrived on. */
  readonly route: RouteView
  /** The capabilities the caller holds now; missing means none. */
  readonly permissions: Permissions | undefined
}

/**
 * The JSON-RPC error of every refused handle: `-32602` (invalid params, as the MCP SDK answers
 * an invalid `requestState`), `data.code` `ERR_SEALED_HANDLE_REFUSED`. One frozen object, so
 * the answer is byte-identical whatever the reason.
 */
export const SEALED_HANDLE_ERROR: Readonly<{
  code: -32602
  message: 'Invalid or expired handle'
  data: Readonly<{ code: 'ERR_SEALED_HANDLE_REFUSED' }>
}> = Object.freeze({
  code: -32602,
  message: 'Invalid or expired handle',
  data: Object.freeze({ code: 'ERR_SEALED_HANDLE_REFUSED' } as const),
} as const)

/** The methods whose `params.taskId` is a task handle. */
export const TASK_METHODS: ReadonlySet<string> = new Set([
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
])

type Json = Record<string, unknown>
type Id = string | number

/** The result of {@link openRequestHandles}: the request to deliver, or the answer to send. */
export type OpenedRequest =
  | { readonly ok: true; readonly message: unknown }
  | {
      readonly ok: false
      readonly response: {
        readonly jsonrpc: '2.0'
        readonly id: Id
        readonly error: typeof SEALED_HANDLE_ERROR
      }
    }

/**
 * Opens the handles an incoming request carries: `params.requestState` of a `tools/call`
 * (bound to its tool and arguments) and `params.taskId` of a task method. On success the
 * request comes back with the server's own values in their place (a new object; the input is
 * not modified), or as it was when it carries none. A `requestState` on any other method, or
 * one that is not a string, is refused like a forged one: tollgate never sealed it, so the
 * server would be trusting caller bytes. Messages without an id pass unchanged.
 */
export async function openRequestHandles(
  handles: SealedHandles,
  message: unknown,
  call: HandleCall,
): Promise<OpenedRequest> {
  if (!isObject(message) || !isId(message.id) || typeof message.method !== 'string') {
    return { ok: true, message }
  }
  const { id, method } = message
  const params = isObject(message.params) ? message.params : undefined
  if (params === undefined) return { ok: true, message }
  const refused: OpenedRequest = {
    ok: false,
    response: { jsonrpc: '2.0', id, error: SEALED_HANDLE_ERROR },
  }
  const base = { principal: call.principal, route: call.route, permissions: call.permissions }
  let replaced: Json = params
  if ('requestState' in params) {
    if (method !== 'tools/call') {
      // Audit it through the control: a requestState presented where none was ever sealed.
      await handles.open(undefined, { ...base, kind: 'requestState' })
      return refused
    }
    const opened = await handles.open(params.requestState, {
      ...base,
      kind: 'requestState',
      call: { tool: params.name, arguments: params.arguments },
    })
    if (!opened.ok) return refused
    replaced = { ...replaced, requestState: opened.state }
  }
  if (TASK_METHODS.has(method) && 'taskId' in params) {
    const opened = await handles.open(params.taskId, { ...base, kind: 'task' })
    if (!opened.ok) return refused
    replaced = { ...replaced, taskId: opened.state }
  }
  return { ok: true, message: replaced === params ? message : { ...message, params: replaced } }
}

/**
 * Seals the handles of an outgoing response to `request` (the request as the client sent it,
 * matched by id by the host): the `requestState` of an `input_required` `tools/call` result and
 * the `taskId` of a `task` result; a task method's result gets the client's handle back in
 * place of the server's task id. Returns the message to send (a new object when anything
 * changed). A `requestState` on another method's result (a task method's included), or one that cannot be sealed (the
 * tool is not on the route for this caller, the handle would pass `maxHandleLength`), must not
 * leave unsealed: the response becomes JSON-RPC `-32603` with `data.code`
 * `ERR_SEALED_HANDLE_UNSEALABLE` or `ERR_SEALED_HANDLE_TOO_LARGE`.
 */
export function sealResponseHandles(
  handles: SealedHandles,
  response: unknown,
  request: unknown,
  call: HandleCall,
): unknown {
  if (!isObject(response) || !isObject(response.result) || !isObject(request)) return response
  const result = response.result
  const method = request.method
  const params = isObject(request.params) ? request.params : {}
  const id = response.id
  const failed = (code: SealFailureCode) => ({
    jsonrpc: '2.0' as const,
    id,
    error: { code: -32603, message: 'Internal error', data: { code } },
  })

  if (TASK_METHODS.has(method as string)) {
    // A task's own input round (its requestState) is not bound here: refuse to send it raw.
    if ('requestState' in result) return failed('ERR_SEALED_HANDLE_UNSEALABLE')
    if (typeof result.taskId !== 'string' || typeof params.taskId !== 'string') return response
    return { ...response, result: { ...result, taskId: params.taskId } }
  }
  const state = result.requestState
  const taskId = result.resultType === 'task' ? result.taskId : undefined
  if (state === undefined && typeof taskId !== 'string') return response
  if (method !== 'tools/call') return failed('ERR_SEALED_HANDLE_UNSEALABLE')
  const resolved = resolveScoped(call.route, { kind: 'tool', name: params.name }, call.permissions)
  if (!resolved.ok) return failed('ERR_SEALED_HANDLE_UNSEALABLE')
  const base = {
    principal: call.principal,
    route: call.route,
    target: resolved.target,
    arguments: params.arguments,
  }
  let sealed: Json = result
  if (state !== undefined) {
    if (typeof state !== 'string') return failed('ERR_SEALED_HANDLE_UNSEALABLE')
    const r = handles.seal({ ...base, kind: 'requestState', state })
    if (!r.ok) return failed(r.error.code)
    sealed = { ...sealed, requestState: r.handle }
  }
  if (typeof taskId === 'string') {
    const r = handles.seal({ ...base, kind: 'task', state: taskId })
    if (!r.ok) return failed(r.error.code)
    sealed = { ...sealed, taskId: r.handle }
  }
  return { ...response, result: sealed }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isId(value: unknown): value is Id {
  return typeof value === 'string' || typeof value === 'number'
}
