import type { AdmissionCode } from './errors.js'
import { option } from './option-table.js'

// Every package reports a refusal through one event shape, so one hook (a counter, an audit
// line, a span event) serves the HTTP middleware, the framework adapters, the MCP steps and
// stdio alike. The event holds only server-chosen or server-derived facts: the code, the status
// answered, the limit and option the host configured, the name of the control and of the
// route, and the key the control counted the caller under. It never holds the caller's bytes,
// a header value, a credential or an anonymous caller's address, so a hook may log it without
// filtering. The principal is the one unbounded-cardinality field: a metric must not label by
// it (the counter of this package does not).

/**
 * What a control reports once per refusal, after the answer is decided. Frozen; every field
 * is a bounded, server-chosen value (never the caller's bytes, a key or a credential).
 */
export interface RefusalEvent {
  /** The stable refusal code (`ERR_*`): a closed set, registered by the package that raised it. */
  readonly code: AdmissionCode
  /** The HTTP status answered; `undefined` where there is none (stdio, a closed socket). */
  readonly status: number | undefined
  /** The limit that was passed, in the unit of `option`, where one applies. */
  readonly limit?: number
  /** The option the host raises to admit more, where one applies. */
  readonly option?: string
  /**
   * The control that refused: a short, fixed name chosen by the package (`'body-admission'`,
   * `'mcp-head'`, `'stdio'`, …), `a–z 0–9 -`, at most 40 characters. A closed set, safe as a
   * metric label.
   */
  readonly control: string
  /**
   * The name of the route the refused request arrived on, as the host configured it (a name
   * such as `'notes'` or the path pattern it mounted, e.g. `'/mcp'`), never the request's own
   * path, which is caller bytes. At most 200 characters. Absent where no route was named.
   */
  readonly route?: string
  /**
   * The key the refusing control counted the caller under, as a report may hold it: a
   * principal the host named (a credential's id or a tenant, never a secret), or for an
   * anonymous caller its pool's name and a keyed hash of its address (`anonymous#1f0c…`),
   * never the address itself. At most 128 characters. Absent where the control knows no caller
   * (stdio, where the one caller is the parent process; a result budget decorated without the
   * connection's call). Unbounded in cardinality: log it, never use it as a metric label.
   */
  readonly principal?: string
}

/** Where a refusal happened: the route's name and the caller's key, when the control knows them. */
export interface RefusalWhere {
  /** See {@link RefusalEvent.route}. */
  readonly route?: string | undefined
  /** See {@link RefusalEvent.principal}: already a reportable key, never a raw address. */
  readonly principal?: string | undefined
}

/**
 * A refusal hook: called once per refusal with a {@link RefusalEvent}, after the answer is
 * decided. What it returns is ignored; a hook that throws or rejects is caught and never
 * changes the answer, and a returned promise is not awaited.
 */
export type RefusalHook = (event: RefusalEvent) => void

/** The facts a refusal carries that an event copies (an `AdmissionError` has them all). */
export interface RefusalFacts {
  readonly code: AdmissionCode
  readonly status?: number | undefined
  readonly limit?: number | undefined
  readonly option?: string | undefined
}

const CONTROL_SHAPE = /^[a-z][a-z0-9-]{0,39}$/
// A configured route is a path or a name; longer than this it is cut, never refused.
const MAX_ROUTE = 200
// A reportable key is a short id or a pool name and a hash; longer than this it is cut.
const MAX_PRINCIPAL = 128
const NOWHERE: RefusalWhere = Object.freeze({})

/**
 * Builds the frozen {@link RefusalEvent} for a refusal: copies `code`, `status`, `limit` and
 * `option` from `facts` (an `AdmissionError` or a plain record) and nothing else from it, and
 * `route` and `principal` from `where` (cut to 200 and 128 characters). Fields that do not
 * apply are absent, not `undefined` (`status` excepted: it is always present).
 * @throws TypeError when `control` is not `a–z` then up to 39 of `a–z 0–9 -` (a programming
 *   error in the calling package).
 */
export function refusalEvent(
  facts: RefusalFacts,
  control: string,
  where: RefusalWhere = NOWHERE,
): RefusalEvent {
  if (typeof control !== 'string' || !CONTROL_SHAPE.test(control)) {
    throw new TypeError('refusalEvent: control must be a–z then up to 39 of a–z, 0–9, -')
  }
  const event: { -readonly [K in keyof RefusalEvent]: RefusalEvent[K] } = {
    code: facts.code,
    status: facts.status,
    control,
  }
  if (typeof facts.limit === 'number') event.limit = facts.limit
  if (typeof facts.option === 'string') event.option = facts.option
  const { route, principal } = where
  if (typeof route === 'string' && route.length > 0) event.route = route.slice(0, MAX_ROUTE)
  if (typeof principal === 'string' && principal.length > 0) {
    event.principal = principal.slice(0, MAX_PRINCIPAL)
  }
  return Object.freeze(event)
}

/**
 * Calls `hook` with `event` when a hook is set. A hook that throws is caught, a returned
 * promise is not awaited and its rejection is caught, so no hook can change an answer, crash
 * the process or leave an unhandled rejection. Returns nothing.
 */
export function reportRefusal(hook: RefusalHook | undefined, event: RefusalEvent): void {
  if (hook === undefined) return
  try {
    const returned: unknown = hook(event)
    if (typeof (returned as PromiseLike<unknown> | null)?.then === 'function') {
      Promise.resolve(returned).catch(ignore)
    }
  } catch {
    // A hook observes refusals; it never decides them.
  }
}

function ignore(): void {}

/**
 * The `onRefusal` option row every control's options table shares: default none; a set value
 * must be a function (checked at construction, so a bad hook fails at start-up).
 */
export const ON_REFUSAL_OPTION = option<RefusalHook | undefined>({
  default: undefined,
  check: (value, name) => {
    if (typeof value !== 'function') throw new TypeError(`${name} must be a function`)
  },
  doc: 'called once per refusal with a frozen `{ code, status, limit?, option?, control, route?, principal? }` (never the caller’s bytes, a credential or an address), after the answer is decided; a throwing hook is caught and a returned promise is not awaited',
})
