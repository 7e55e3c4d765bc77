import type { AdmissionCode } from './errors.js'
import { option } from './option-table.js'

// Every package reports a refusal through one event shape, so one hook (a counter, an audit
// line, a span event) serves the HTTP middleware, the framework adapters, the MCP steps and
// stdio alike. The event holds only server-chosen facts: the code, the status answered, the
// limit and option the host configured, the name of the control and of the route. It never
// holds the caller's bytes, a header value, a principal key or a credential, so a hook may log
// or label it without filtering.

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
  /** The route the host configured for the control (a path or a name it chose), never the request URL. */
  readonly route?: string
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

/**
 * Builds the frozen {@link RefusalEvent} for a refusal: copies `code`, `status`, `limit` and
 * `option` from `facts` (an `AdmissionError` or a plain record) and nothing else from it.
 * `route` is cut to 200 characters. Fields that do not apply are absent, not `undefined`
 * (`status` excepted: it is always present).
 * @throws TypeError when `control` is not `a–z` then up to 39 of `a–z 0–9 -` (a programming
 *   error in the calling package).
 */
export function refusalEvent(
  facts: RefusalFacts,
  control: string,
  route?: string | undefined,
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
  if (typeof route === 'string') event.route = route.slice(0, MAX_ROUTE)
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
  doc: 'called once per refusal with a frozen `{ code, status, limit?, option?, control, route? }` (never the caller’s bytes), after the answer is decided; a throwing hook is caught and a returned promise is not awaited',
})
