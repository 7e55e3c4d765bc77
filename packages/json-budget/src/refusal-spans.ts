import { type RefusalEvent, type RefusalHook, reportRefusal } from './refusal-event.js'

// OpenTelemetry is not a dependency: `trace` from `@opentelemetry/api` is passed in and typed by
// the little used of it, so the packages that report refusals stay free of it. With no SDK
// registered, `getActiveSpan()` answers `undefined` and the hook does nothing.

/** The span event {@link refusalSpanEvents} adds. */
export const REFUSAL_SPAN_EVENT = 'tollgate.refusal'

/** What {@link refusalSpanEvents} asks of `@opentelemetry/api`'s `trace` (1.x satisfies it). */
export interface TraceLike {
  getActiveSpan():
    | { addEvent(name: string, attributes?: Record<string, string | number>): unknown }
    | undefined
}

/**
 * An `onRefusal` hook that adds a `tollgate.refusal` event to the active span, with the
 * attributes `tollgate.refusal.code`, `.control`, and where the event has them `.status`,
 * `.limit`, `.option`, `.route` and `.principal` (the event's bounded fields: never the
 * caller's bytes, a credential or an address). Pass `trace` from `@opentelemetry/api`: `refusalSpanEvents(trace)`. Outside
 * a span it does nothing.
 * @throws TypeError when `trace.getActiveSpan` is not a function.
 */
export function refusalSpanEvents(trace: TraceLike): RefusalHook {
  if (typeof (trace as Partial<TraceLike> | null)?.getActiveSpan !== 'function') {
    throw new TypeError("refusalSpanEvents: trace must be @opentelemetry/api's trace")
  }
  const hook: RefusalHook = (event: RefusalEvent) => {
    const span = trace.getActiveSpan()
    if (span === undefined) return
    const attributes: Record<string, string | number> = {
      'tollgate.refusal.code': event.code,
      'tollgate.refusal.control': event.control,
    }
    if (event.status !== undefined) attributes['tollgate.refusal.status'] = event.status
    if (event.limit !== undefined) attributes['tollgate.refusal.limit'] = event.limit
    if (event.option !== undefined) attributes['tollgate.refusal.option'] = event.option
    if (event.route !== undefined) attributes['tollgate.refusal.route'] = event.route
    if (event.principal !== undefined) attributes['tollgate.refusal.principal'] = event.principal
    span.addEvent(REFUSAL_SPAN_EVENT, attributes)
  }
  return Object.freeze(hook)
}

/**
 * One `onRefusal` hook that calls each of `hooks` in order (a counter and span events, say),
 * each guarded as a control guards its hook: one that throws or rejects never keeps the others
 * from running. `undefined` entries are skipped.
 * @throws TypeError when an entry is neither a function nor `undefined`.
 */
export function refusalHooks(...hooks: readonly (RefusalHook | undefined)[]): RefusalHook {
  const set = hooks.filter((h): h is RefusalHook => h !== undefined)
  for (const h of set) {
    if (typeof h !== 'function') throw new TypeError('refusalHooks: each hook must be a function')
  }
  const hook: RefusalHook = (event) => {
    for (const h of set) reportRefusal(h, event)
  }
  return Object.freeze(hook)
}
