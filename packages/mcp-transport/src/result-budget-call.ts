// The facts of one connection a result budget reports its refusals with. The budget is one
// control for every caller, built once; who called and on which route is known only where a
// host connects a server for a caller (a 2025 session, a 2026-07-28 request, a stdio process),
// so it arrives there, as the argument of `decorate`, and is checked and derived once per
// connection rather than per result.
import { refusalPrincipal } from '@tollgate/http-admission'
import type { RefusalHook, RefusalWhere } from '@tollgate/json-budget'

/**
 * The per-connection facts a result budget reports its refusals with, given where the host
 * knows the caller: `budget.decorate(transport, call)` when it connects a session's (or a
 * stateless request's) server. Never options of the control: one budget serves every caller.
 */
export interface ResultBudgetCall {
  /**
   * The key the host counts the connection's caller under (a credential's id or a tenant, or
   * an anonymous caller's address key of `callerKeys()`). Reported as `refusalPrincipal` of
   * `@tollgate/http-admission` reports it: a name as it is, an address key or a key in a pool
   * as a keyed hash, never the address. Default: none (events carry no `principal`).
   */
  readonly principal?: string | undefined
  /** The pool `principal` belongs to (`ANONYMOUS_POOL` for a caller without a credential). */
  readonly pool?: string | undefined
  /**
   * The name of the route the connection arrived on, as the host configured it (`'/mcp'`,
   * `'notes'`), never the request's path. Default: none.
   */
  readonly route?: string | undefined
  /**
   * Called for every result replaced on this connection instead of the control's `onRefusal`
   * (a session's audit, say); `undefined` keeps the control's own. Must be a function.
   */
  readonly onRefusal?: RefusalHook | undefined
}

/** The result budget's view of one connection: where its refusals happened, and their hook. @internal */
export interface ResultBudgetReport {
  readonly where: RefusalWhere
  readonly onRefusal: RefusalHook | undefined
}

/** The `control` of every refusal event the result budget reports. */
export const RESULT_BUDGET_CONTROL = 'mcp-result-budget'

const NO_CALL: ResultBudgetCall = Object.freeze({})

/**
 * Checks a connection's call once and derives what its events report: the route as given, the
 * principal as `refusalPrincipal` reports it (computed once per connection, not per result).
 * @throws TypeError when `call` is not an object or its `onRefusal` is not a function.
 * @internal
 */
export function reportOf(
  call: ResultBudgetCall | undefined = NO_CALL,
  controlHook: RefusalHook | undefined,
): ResultBudgetReport {
  if (typeof call !== 'object' || call === null) {
    throw new TypeError('resultBudget: call must be an object')
  }
  const { onRefusal, route, principal, pool } = call
  if (onRefusal !== undefined && typeof onRefusal !== 'function') {
    throw new TypeError('resultBudget: call.onRefusal must be a function')
  }
  return Object.freeze({
    where: Object.freeze({
      route: typeof route === 'string' ? route : undefined,
      principal: refusalPrincipal(
        typeof principal === 'string' ? principal : undefined,
        typeof pool === 'string' ? pool : undefined,
      ),
    }),
    onRefusal: onRefusal ?? controlHook,
  })
}
